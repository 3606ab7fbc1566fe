"""The expansion interface: what an expansion adds, and the hooks the core game flow calls.

An expansion (or the Measure system the expansions share, RULINGS R21) is one object of a subclass of
:class:`Expansion`, shared by every game of a configuration (it holds no game state: per-game state lives in
the game). The core flow (``game.py``) names no expansion: at the points the rule texts name it calls the
hooks of ``game.expansions`` in order, and every hook's default does nothing, so an expansion overrides only
what it needs (python-chess's ``chess.variant`` is the model). ``docs/architecture.md`` walks through them.

Hooks, and where the core calls them:

* :meth:`modifiers` -- a modifier source of the effect pipeline besides the durations in force (step 1 of
  ``effects.py``: e.g. objects attached to a tile);
* :meth:`add_tiles` -- the expansion's tiles, appended to the catalogue after the core tiles;
* :meth:`setup` -- at the end of Setup (CORE-01-03), before the first draw;
* :meth:`tile_placed` -- whenever a tile lands on the Board (also when a state is loaded);
* :attr:`hotspot_resolvers` -- a Hotspot with its own text resolves through its resolver instead of
  CORE-01-06-05/06 (e.g. the v1.3 Labor Market); the majority is determined first (CORE-01-06-04 (a));
* :meth:`political_options` / :meth:`political_choice` -- Political Actions the expansion adds
  (CORE-01-04-09 extended, e.g. EXP-01-06-01); :meth:`effect` / :meth:`execute` -- their effect on the pipeline
  and their execution once paid;
* :meth:`after_gain` / :meth:`resolution_options` / :meth:`resolution_choice` / :meth:`before_gain` /
  :meth:`execute_riders` -- a ConvertResources' post-payment choices and their execution (e.g. the Investment
  Program exchange and Supplemental Budget's additional Resource);
* :meth:`turn_end` -- when a turn's Political Action has resolved, before durations end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar

from mypy_extensions import mypyc_attr

from ..actions import Block
from ..components import TileAdder
from ..config import RulesConfig

if TYPE_CHECKING:
    from ..decisions import Resolution
    from ..effects import ActiveEffect, Effect
    from ..game import Game

#: resolve(game, cell, leader): a Hotspot's own resolution once its single majority ``leader`` is known.
HotspotResolver = Callable[["Game", int, int], None]


@mypyc_attr(allow_interpreted_subclasses=True)  # expansions outside the compiled engine (tests/toy_expansion.py)
class Expansion:
    """Base class: every hook does nothing. Subclasses override what their rule text needs."""

    #: The expansion's name (``"EXP-01"``), or ``"measures"`` for the shared Measure system.
    name: ClassVar[str] = ""
    #: Hotspots with their own text (``TileSpec.special``) and how they resolve.
    hotspot_resolvers: dict[str, HotspotResolver] = {}
    #: The action blocks it adds to the layout, after the core blocks (actions.py; named, sized by argument).
    action_blocks: ClassVar[tuple[Block, ...]] = ()

    def modifiers(self, game: Game, effect: Effect) -> Iterable[ActiveEffect]:
        """A modifier source: records that modify ``effect`` besides the durations in force (e.g. objects
        attached to its ContextTile); each record's ``id`` names its handler in ``effects.MODIFIERS``. Only
        expansions that override this are asked (``Game.modifier_sources``)."""
        return ()

    def add_tiles(self, config: RulesConfig, add: TileAdder) -> None:
        """Declare the expansion's tiles: ``add(kind, name, **TileSpec fields)`` appends one to the catalogue
        after the core tiles (tile ids are part of the state schema, so the order is fixed)."""

    def setup(self, game: Game) -> None:
        """Setup additions (e.g. EXP-01-03-02/03: the Measure decks)."""

    def tile_placed(self, game: Game, cell: int) -> None:
        """A tile was put on the Board at ``cell`` (during play or while a state is loaded)."""

    def political_options(self, game: Game, player: int, out: list[int]) -> None:
        """Append the legal actions of the Political Actions this expansion adds (in layout order)."""

    def political_choice(self, game: Game, player: int, action: int) -> bool:
        """Start the Political Action ``action`` if it is one of this expansion's (then True)."""
        return False

    def effect(self, game: Game, kind: str, cell: int, player: int, card: int, target: int) -> Effect | None:
        """The effect of a Political Action of one of this expansion's kinds (None: not one of them)."""
        return None

    def execute(self, game: Game, res: Resolution, effect: Effect) -> bool:
        """Execute ``res`` (its payment complete) if it is one of this expansion's kinds (then True)."""
        return False

    def after_gain(self, game: Game, res: Resolution) -> bool:
        """After a ConvertResources' payment and gain: ask a post-payment decision on ``res`` (then True)."""
        return False

    def resolution_options(self, game: Game, res: Resolution) -> list[int] | None:
        """The options of a decision this expansion asked on ``res`` (None: not one of its decisions)."""
        return None

    def resolution_choice(self, game: Game, res: Resolution, action: int) -> bool:
        """Apply the choice ``action`` of a decision this expansion asked on ``res`` (then True)."""
        return False

    def before_gain(self, game: Game, res: Resolution, effect: Effect) -> None:
        """This expansion's part of a ConvertResources' payment, right after its cost is paid."""

    def execute_riders(self, game: Game, res: Resolution) -> None:
        """Execute this expansion's parts of a ConvertResources, right after its gain (CORE-01-06-00-03: the
        whole effect at once)."""

    def turn_end(self, game: Game) -> None:
        """The turn's Political Action has resolved (before the durations of the turn end)."""


__all__ = ["Expansion", "HotspotResolver"]
