"""A test-only expansion that uses every extension point EXP-02 and EXP-03 need (not a test module).

``Toy`` (name ``TOY``) is attached to a configuration by :func:`toy_game`, which patches ``expansions_for``:

* a **marker attached to a tile** (``Toy.marks``, its own state) is a modifier source: every Place, Move or
  Formalize whose ContextTile carries it costs +1 Resource of any resort, tagged with the source ``"toy"``
  (the shape of an EXP-02 Regulation surcharge);
* ``TOY-EXEMPT`` waives the ``"toy"`` slots (the shape of Adaptation Strategy / Future Pact, RULINGS R55);
* ``TOY-META`` amends every ``"toy"`` surcharge by +1 (a modifier of modifiers: Parliamentary Oversight, R33);
* ``TOY-DISCOUNT`` lowers a ``DISTINCT`` cost slot by 1 with a floor of 1 (Situation Assessment, R45);
* the **Labor Market** resolves through ``Toy``'s Hotspot resolver, which asks a **decision of another player**
  in the middle of the Hotspot resolution (``ToyChoice``: the player after the active one names a player who
  gains 1 DOM; Inner Order's majority leader, R23, R42), and the placement's other Hotspots and the active
  player's Political Action resume afterwards;
* a Measure whose resolver **acts at once** and leaves no lasting effect (installed over EXP-01-M03).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from bc_env.rules import StateError, effects
from bc_env.rules import game as game_module
from bc_env.rules.decisions import Frame, register_frame
from bc_env.rules.effects import ALL_MASK, ANY, DISTINCT, PERMANENT, ActiveEffect, Cost, Effect, Modifier
from bc_env.rules.expansions import expansions_for
from bc_env.rules.expansions.base import Expansion
from bc_env.rules.expansions.measures import RESOLVERS

SURCHARGE: Cost = ((1, ANY, ALL_MASK),)


class Marked(Modifier):
    kinds = frozenset(("place", "move", "formalize"))
    source = "toy"
    tile_sensitive = True

    def extra_cost(self, game: Any, active: ActiveEffect, effect: Effect) -> Cost:
        return SURCHARGE

    def rule(self, game: Any, active: ActiveEffect) -> str:
        return "TOY-01"


class Exempt(Modifier):
    kinds = frozenset(("place", "move", "formalize"))

    def waives(self, game: Any, active: ActiveEffect, effect: Effect) -> frozenset[str]:
        return frozenset(("toy",)) if effect.actor == active.owner else frozenset()


class Meta(Modifier):
    kinds = frozenset(("place", "move", "formalize"))

    def amend(self, game: Any, active: ActiveEffect, effect: Effect, other: Modifier, other_active: Any,
              extra: Cost) -> Cost:  # fmt: skip
        return extra + SURCHARGE if other.source == "toy" else extra


class Discount(Modifier):
    kinds = frozenset(("formalize",))

    def adjust_cost(self, game: Any, active: ActiveEffect, effect: Effect, cost: Cost) -> Cost:
        out = []
        for count, rule, mask in cost:
            if rule == DISTINCT:
                count = max(1, count - 1)  # the floor
            out.append((count, rule, mask))
        return tuple(out)


@register_frame
class ToyChoice(Frame):
    """A decision of ``owner`` (not the active player) during a Hotspot resolution: name a player (the
    ``target-player`` block), who gains 1 DOM. Written to the JSON state's ``stack`` like a core frame."""

    __slots__ = ()
    kind = "toy-choice"
    name = "toy-choice"

    def to_json(self, game: Any) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner}

    @classmethod
    def from_json(cls, game: Any, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        return ToyChoice(owner)

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def legal(self, game: Any) -> list[int]:
        return [game.layout.target_player + q for q in range(game.num_players)]

    def choose(self, game: Any, action: int) -> None:
        game.stack.pop()
        q = action - game.layout.target_player
        game.res[q * game.num_resorts] += 1
        game.bank[0] -= 1
        game.log("toy-gain", "TOY-02", player=q, chooser=self.owner)


def _ask_next_player(game: Any, cell: int, leader: int) -> None:
    game.log("toy-hotspot", "TOY-02", cell=cell, leader=leader)
    game.stack.append(ToyChoice((game.active + 1) % game.num_players))


class Toy(Expansion):
    name = "TOY"

    def __init__(self) -> None:
        self.marks: set[int] = set()
        self.hotspot_resolvers = {"labor-market": _ask_next_player}

    def modifiers(self, game: Any, effect: Effect) -> Iterable[ActiveEffect]:
        if effect.tile in self.marks:
            yield ActiveEffect("TOY-MARK", -1, PERMANENT, 0, (("cell", effect.tile),))


def _act_at_once(game: Any, player: int, card: int, tile: int, target: int) -> None:
    game.res[player * game.num_resorts + 1] += 2  # 2 FOR from the Bank, nothing lasts
    game.bank[1] -= 2
    game.log("toy-card", "TOY-03", player=player)
    return None


@contextmanager
def toy_game(monkeypatch: Any) -> Iterator[Toy]:
    """Attach a fresh ``Toy`` to every configuration while the context lasts."""
    toy = Toy()
    monkeypatch.setattr(game_module, "expansions_for", lambda config: (*expansions_for(config), toy))
    monkeypatch.setattr(game_module, "_SHARED_CACHE", type(game_module._SHARED_CACHE)())
    for key, handler in (("TOY-MARK", Marked()), ("TOY-EXEMPT", Exempt()), ("TOY-META", Meta()),
                         ("TOY-DISCOUNT", Discount())):  # fmt: skip
        monkeypatch.setitem(effects.MODIFIERS, key, handler)
    monkeypatch.setitem(RESOLVERS, "EXP-01-M03", _act_at_once)
    yield toy
