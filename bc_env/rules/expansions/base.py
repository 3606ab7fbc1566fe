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
* :meth:`turn_start` / :meth:`turn_end` -- when a turn begins (before the draw) / when its Political Action has
  resolved (before durations end);
* :meth:`settlement_start` / :meth:`settlement_end` -- the stages of each Round Settlement around Resort
  Production (CORE-01-07-02/03);
* :meth:`render_lines` -- the expansion's lines in the text rendering;
* :meth:`new_state` -- the expansion's own per-game state (an :class:`ExpansionState`: zones, markers, flags),
  kept in ``game.ext[expansion.name]``; the game clones it, writes and reads it in the JSON state under its
  ``key``, and the invariant harness and the state reader check it (:meth:`ExpansionState.check`).
* :meth:`resample_hidden` -- when search re-samples hidden information (``Game.resample_hidden``, RULINGS R19).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from mypy_extensions import mypyc_attr

from ..actions import Block
from ..components import TileAdder
from ..config import RulesConfig

if TYPE_CHECKING:
    from ..decisions import Resolution
    from ..effects import ActiveEffect, Effect
    from ..game import Game
    from ..rng import Rng

#: resolve(game, cell, leader): a Hotspot's own resolution once its single majority ``leader`` is known.
HotspotResolver = Callable[["Game", int, int], None]


@mypyc_attr(allow_interpreted_subclasses=True)  # expansions' states outside the compiled engine (the toy)
class ExpansionState:
    """One expansion's per-game state (zones, markers, flags), in ``game.ext[name]``.

    ``key`` names it in the JSON state (``Game.to_dict``; ``""``: derived from the rest of the state, e.g. rebuilt by
    :meth:`Expansion.tile_placed` while a state is loaded, and not written)."""

    __slots__ = ()
    key: ClassVar[str] = ""  # a ClassVar: read by the compiled engine from interpreted subclasses

    def clone(self) -> ExpansionState:
        """An independent copy (``Game.clone``)."""
        raise NotImplementedError

    def to_json(self, game: Game) -> dict[str, Any]:
        """The state as plain JSON (written under ``key``)."""
        return {}

    def read_json(self, game: Game, data: Any, where: str) -> None:
        """Read the state written by :meth:`to_json`, strictly: raise ``StateError`` naming the field at ``where``.
        Called after the board, the players and the Bank are read, before the decision stack."""

    def check(self, game: Game) -> list[str]:
        """Conservation and caps of this state against the game: each problem as a sentence citing its rule
        ([] when none). The state reader refuses a state with a problem; the invariant harness asserts none."""
        return []


@mypyc_attr(allow_interpreted_subclasses=True)  # expansions outside the compiled engine (tests/toy_expansion.py)
class Expansion:
    """Base class: every hook does nothing. Subclasses override what their rule text needs."""

    #: The expansion's name (``"EXP-01"``), or ``"measures"`` for the shared Measure system.
    name: ClassVar[str] = ""
    #: Hotspots with their own text (``TileSpec.special``) and how they resolve.
    hotspot_resolvers: dict[str, HotspotResolver] = {}
    #: The action blocks it adds to the layout, after the core blocks (actions.py; named, sized by argument).
    action_blocks: ClassVar[tuple[Block, ...]] = ()
    #: What of its rule text is not implemented yet ("" = complete). While non-empty, ``Game.new`` and
    #: ``Game.from_dict`` refuse a configuration with it (NotImplementedRuleError naming it), except inside
    #: :func:`allow_incomplete` (tests that build an expansion section by section).
    missing: ClassVar[str] = ""

    def after_production(self, game: Game, cell: int, players: list[int], share: int) -> None:
        """A ResortTile at ``cell`` has just produced ``share`` Resources for each of ``players`` (CORE-01-06-11/14);
        may push decisions (the settlement resumes at the next ResortTile after them)."""

    def modifiers(self, game: Game, effect: Effect) -> Iterable[ActiveEffect]:
        """A modifier source: records that modify ``effect`` besides the durations in force (e.g. objects
        attached to its ContextTile); each record's ``id`` names its handler in ``effects.MODIFIERS``. Only
        expansions that override this are asked (``Game.modifier_sources``)."""
        return ()

    def new_state(self, game: Game) -> ExpansionState | None:
        """This expansion's per-game state, created with the game (``game.ext[self.name]``); None: it has none."""
        return None

    def modifying(self, game: Game) -> bool:
        """Whether, as a modifier source, it may give records for some effect now (default: yes); while no source
        does and no duration is in force, effects resolve at their base cost (``Game._modified``)."""
        return True

    def tile_sensitive(self, game: Game, kind: str) -> bool:
        """Whether, as a modifier source, it may now give different records for effects of ``kind`` on different
        ContextTiles (default: yes); False lets the legal-action generation check one tile for all."""
        return True

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

    def before_payment(self, game: Game, res: Resolution, effect: Effect) -> bool:
        """A Political Action (or tile placement) is about to be paid: ask a decision before its payment options
        are set (then True; the decision later sets ``res.options`` and calls ``game._advance_payment(res)``), e.g.
        Intergenerational Pact's transfer (EXP-03-08-M13, RULINGS R52)."""
        return False

    def assisted_payments(self, game: Game, effect: Effect) -> list[tuple[int, ...]]:
        """Payments of ``effect``'s actor that are possible only with another player's help (a transfer, RULINGS
        R52); asked only when the actor cannot pay alone, so that such an action is legal."""
        return []

    def transfer_payments(self, game: Game, res: Resolution) -> list[tuple[int, ...]] | None:
        """The actor's payment options of ``res`` after the transfer it records (``res.transfer``; a state being
        loaded), or None when not this expansion's."""
        return None

    def turn_end(self, game: Game) -> None:
        """The turn's Political Action has resolved (before the durations of the turn end)."""

    def turn_start(self, game: Game) -> None:
        """A turn begins (after "until the beginning of your next turn" durations end, before Phase 1's draw).
        It may change the state but not ask a decision (the draw follows at once)."""

    def resample_hidden(self, game: Game, observer: int, rng: Rng) -> None:
        """Re-sample, in the clone ``game``, the zones of this expansion that ``observer`` cannot see, uniformly
        among the orders consistent with what they have seen (RULINGS R19; ``hidden.py``); ``rng`` is the engine
        RNG to shuffle with."""

    def settlement_start(self, game: Game) -> None:
        """The Round Settlement begins (after "this round" durations end, RULINGS R35; before Resort Production).
        It may push decisions of any player: the settlement resumes after them."""

    def settlement_end(self, game: Game) -> None:
        """Resort Production is over (before "during this Round Settlement" durations end and the per-round usage
        flags reset). Decisions it pushes are taken before the next round (or the end of the game)."""

    def render_lines(self, game: Game) -> list[str]:
        """Lines of the text rendering (``Game.render``) for this expansion's state, after the players."""
        return []


_INCOMPLETE_OK = [False]


@contextmanager
def allow_incomplete() -> Iterator[None]:
    """Test-only switch: games of expansions that are not complete yet (``Expansion.missing``) may be built."""
    before = _INCOMPLETE_OK[0]
    _INCOMPLETE_OK[0] = True
    try:
        yield
    finally:
        _INCOMPLETE_OK[0] = before


def incomplete_allowed() -> bool:
    return _INCOMPLETE_OK[0]


__all__ = ["Expansion", "ExpansionState", "HotspotResolver", "allow_incomplete", "incomplete_allowed"]
