"""A test-only expansion that uses every extension point EXP-02 and EXP-03 need (not a test module).

``Toy`` (name ``TOY``) is attached to a configuration by :func:`toy_game`, which patches ``expansions_for``:

* a **marker attached to a tile** (``ToyState.marks``, the expansion's own state: cloned, written to the JSON
  state under ``"toy"``, read strictly and checked) is a modifier source: every Place, Move or Formalize whose
  ContextTile carries it costs +1 Resource of any resort, tagged with the source ``"toy"`` (the shape of an
  EXP-02 Regulation surcharge; Regulations conserved between supply and tiles);
* ``TOY-STORM`` surcharges **placing a ResortTile** by +1 DOM (source ``"climate"``): tile placement is an effect
  on the pipeline (EXP-03-08-M12 Extreme Weather, RULINGS R3, R4, R54);
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
from bc_env.rules.components import RESORT
from bc_env.rules.decisions import Frame, register_frame
from bc_env.rules.effects import ALL_MASK, ANY, DISTINCT, PERMANENT, ActiveEffect, Cost, Effect, Modifier
from bc_env.rules.expansions import expansions_for
from bc_env.rules.expansions.base import Expansion, ExpansionState
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


class Storm(Modifier):
    """Placing a ResortTile costs +1 DOM or +1 FOR (the drawn tile is ``game.drawn``; EXP-03-08-M12-04, R54)."""

    kinds = frozenset((effects.PLACE_TILE,))
    source = "climate"

    def extra_cost(self, game: Any, active: ActiveEffect, effect: Effect) -> Cost:
        return ((1, ANY, 0b11),) if game.catalogue[game.drawn].kind == RESORT else ()

    def rule(self, game: Any, active: ActiveEffect) -> str:
        return "TOY-04"


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


class ToyState(ExpansionState):
    """The cells that carry a marker (ascending), at most ``MARKERS`` of them."""

    __slots__ = ("marks",)
    key = "toy"
    MARKERS = 3

    def __init__(self) -> None:
        self.marks: list[int] = []

    def clone(self) -> ToyState:
        st = ToyState()
        st.marks = self.marks[:]
        return st

    def to_json(self, game: Any) -> dict[str, Any]:
        return {"marks": [game.topo.label(c) for c in self.marks]}

    def read_json(self, game: Any, data: Any, where: str) -> None:
        if not isinstance(data, dict) or sorted(data) != ["marks"] or not isinstance(data["marks"], list):
            raise StateError(f"{where} must be an object with the list 'marks'")
        cells = []
        for i, text in enumerate(data["marks"]):
            try:
                cells.append(game.topo.parse(text))
            except (TypeError, ValueError):
                raise StateError(f"{where}.marks[{i}] must be a cell 'x,y', got {text!r}") from None
        self.marks = sorted(cells)

    def check(self, game: Any) -> list[str]:
        out = []
        if len(self.marks) > self.MARKERS or len(set(self.marks)) != len(self.marks):
            out.append(f"toy.marks holds more than {self.MARKERS} markers or one twice (TOY-05)")
        out += [f"toy.marks: {game.topo.label(c)} holds no tile (TOY-05)" for c in self.marks if game.tile_at[c] < 0]
        return out


class Toy(Expansion):
    name = "TOY"

    def __init__(self) -> None:
        self.hotspot_resolvers = {"labor-market": _ask_next_player}

    def new_state(self, game: Any) -> ToyState:
        return ToyState()

    def modifiers(self, game: Any, effect: Effect) -> Iterable[ActiveEffect]:
        if effect.tile in game.ext["TOY"].marks:
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
                         ("TOY-DISCOUNT", Discount()), ("TOY-STORM", Storm())):  # fmt: skip
        monkeypatch.setitem(effects.MODIFIERS, key, handler)
    monkeypatch.setitem(RESOLVERS, "EXP-01-M03", _act_at_once)
    yield toy
