"""The one effect pipeline (CORE-01-06-00) and the one timing mechanism for durations.

Every effect (a Political Action, a production instance, a Hotspot resolution; later Measures and
Regulations) resolves through the same steps, in this order (CORE-01-06-00-02, EXP-02-04-B-01):

1. collect the modifiers that apply to it (``collect_modifiers``), skipping external modifiers when
   the ContextTile is the Start Committee (CORE-01-08-06A);
2. prohibitions: if any modifier prohibits the effect, it does not resolve (EXP-02-02-D);
3. total cost: the base cost plus every modifier's extra cost slots (EXP-02-02-C, EXP-03-06-03);
4. payment: the owner chooses how to pay when the cost leaves a choice (RULINGS R18), all at once;
5. output: output modifiers in canonical order (CORE-01-06-16 (a)), floor 0;
6. execute, or change nothing (CORE-01-06-00-03).

A cost is a tuple of *slots* ``(count, rule, mask)``: ``count`` Resources whose resorts lie in the
bit ``mask`` and obey ``rule`` (SAME: all one resort, DISTINCT: pairwise different, ANY). For
example the Standard Committee costs ``((2, DISTINCT, ALL),)`` (CORE-01-04-15) and the Start
Committee ``((3, DISTINCT, ALL), (1, ANY, ALL))`` (CORE-01-08-08). A *payment* is a sorted tuple
of resort indices; :func:`payment_options` lists every payment that satisfies a cost.

Durations are :class:`ActiveEffect` records in the game state with an ``until`` timing key; the
game calls :func:`expire` at each timing point. Expansions register modifier handlers by effect id in
``MODIFIERS``; the core game registers none.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game

SAME, DISTINCT, ANY = 0, 1, 2
RULE_NAMES = ("same", "distinct", "any")
ALL_MASK = 0x3F

Slot = tuple[int, int, int]
Cost = tuple[Slot, ...]
Payment = tuple[int, ...]

# Base costs of the core effects.
STANDARD_COMMITTEE_COST: Cost = ((2, DISTINCT, ALL_MASK),)  # CORE-01-04-15
START_COMMITTEE_COST: Cost = ((3, DISTINCT, ALL_MASK), (1, ANY, ALL_MASK))  # CORE-01-08-08
FREE: Cost = ()

# Timing keys of durations (EXP-01-07-06, EXP-02-07-02, EXP-03-07-02 and the "until your next turn"
# wording of EXP-03-08). The game calls expire() with one of these at the matching moment.
END_OF_TURN = "end_of_turn"  # "this turn"
END_OF_ROUND = "end_of_round"  # "this round": until the next Round Settlement begins
END_OF_SETTLEMENT = "end_of_settlement"  # "during this Round Settlement"
OWNER_NEXT_TURN = "owner_next_turn"  # "until the beginning of your next turn"
CONSUMED = "consumed"  # "until consumed": removed by its handler
PERMANENT = "permanent"
TIMINGS = (END_OF_TURN, END_OF_ROUND, END_OF_SETTLEMENT, OWNER_NEXT_TURN, CONSUMED, PERMANENT)


@dataclass(frozen=True)
class Effect:
    """One effect about to resolve: what it is, who owns it and its ContextTile (CORE-01-06-00-04)."""

    kind: str
    actor: int
    #: ContextTile as a cell, or -1 for null (CORE-01-06-00-05).
    tile: int
    base_cost: Cost = FREE


@dataclass(frozen=True)
class ActiveEffect:
    """A duration in force: a Measure's lasting effect, a Regulation and the like."""

    id: str
    owner: int
    until: str
    #: Round in which the effect starts to apply ("next round" effects start later).
    from_round: int = 0
    data: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "until": self.until,
            "from_round": self.from_round,
            "data": dict(self.data),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ActiveEffect:
        return cls(d["id"], d["owner"], d["until"], d.get("from_round", 0), tuple(sorted(d["data"].items())))


class Modifier:
    """What an active effect contributes to an effect's resolution. Override what applies."""

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return False

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return FREE

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount


#: Modifier handlers by ActiveEffect id; the expansions register theirs here.
MODIFIERS: dict[str, Modifier] = {}


def collect_modifiers(game: Game, effect: Effect) -> list[tuple[Modifier, ActiveEffect]]:
    """Step 1. The Start Committee ignores every external modifier (CORE-01-08-06, -06A)."""
    if not game.active_effects or effect.tile == game.topo.centre:
        return []
    out = []
    for active in game.active_effects:
        if active.from_round <= game.round:
            handler = MODIFIERS.get(active.id)
            if handler is not None:
                out.append((handler, active))
    return out


def effect_cost(game: Game, effect: Effect) -> Cost | None:
    """Steps 1-3: the total cost of ``effect``, or None when a prohibition applies."""
    mods = collect_modifiers(game, effect)
    if not mods:
        return effect.base_cost
    cost = effect.base_cost
    for handler, active in mods:
        if handler.prohibits(game, active, effect):
            return None
    for handler, active in mods:
        cost = cost + handler.extra_cost(game, active, effect)
    return cost


def effect_output(game: Game, effect: Effect, amount: int) -> int:
    """Step 5: apply output modifiers, then the floor of 0 (CORE-01-06-16 (a) 3-4)."""
    for handler, active in collect_modifiers(game, effect):
        amount = handler.output(game, active, effect, amount)
    return max(amount, 0)


def expire(game: Game, timing: str, owner: int | None = None) -> None:
    """Remove the durations that end at ``timing`` (for OWNER_NEXT_TURN: only ``owner``'s)."""
    if not game.active_effects:
        return
    keep = []
    for active in game.active_effects:
        ends = active.until == timing and (owner is None or active.owner == owner)
        if ends and active.from_round <= game.round:
            game.log("effect-expired", "EXP-01-07-06", id=active.id, owner=active.owner)
        else:
            keep.append(active)
    game.active_effects = keep


# ---------------------------------------------------------------------------- payments


def _slot_choices(slot: Slot, n_resorts: int) -> list[tuple[int, ...]]:
    count, rule, mask = slot
    allowed = [r for r in range(n_resorts) if mask >> r & 1]
    if rule == SAME:
        return [(r,) * count for r in allowed]
    if rule == DISTINCT:
        return list(combinations(allowed, count))
    return list(combinations_with_replacement(allowed, count))


@lru_cache(maxsize=4096)
def payment_options(cost: Cost, n_resorts: int) -> tuple[tuple[Payment, tuple[int, ...]], ...]:
    """Every payment satisfying ``cost``: (sorted resort tuple, count per resort), sorted."""
    found: set[Payment] = set()
    for parts in product(*(_slot_choices(s, n_resorts) for s in cost)):
        found.add(tuple(sorted(r for part in parts for r in part)))
    out = []
    for pay in sorted(found):
        counts = [0] * n_resorts
        for r in pay:
            counts[r] += 1
        out.append((pay, tuple(counts)))
    return tuple(out)


_AFFORDABLE: dict[tuple[Cost, tuple[int, ...]], list[Payment]] = {}


def affordable(cost: Cost, supply: list[int] | tuple[int, ...]) -> list[Payment]:
    """The payments of ``cost`` that ``supply`` (Resources per resort) can pay in full (memoised)."""
    key = (cost, tuple(supply))
    got = _AFFORDABLE.get(key)
    if got is None:
        if len(_AFFORDABLE) > 200_000:
            _AFFORDABLE.clear()
        got = _AFFORDABLE[key] = [
            pay for pay, counts in payment_options(cost, len(supply)) if all(c <= s for c, s in zip(counts, supply))
        ]
    return list(got)


def next_choices(options: list[Payment], prefix: list[int]) -> list[int]:
    """Resorts that may be paid next after ``prefix`` (payments are chosen in sorted order)."""
    k = len(prefix)
    return sorted({pay[k] for pay in options if list(pay[:k]) == prefix})


def consistent(options: list[Payment], prefix: list[int]) -> list[Payment]:
    k = len(prefix)
    return [pay for pay in options if list(pay[:k]) == prefix]


def slots_text(cost: Cost, resorts: tuple[str, ...]) -> str:
    parts = []
    for count, rule, mask in cost:
        names = [r for i, r in enumerate(resorts) if mask >> i & 1]
        where = "any resort" if len(names) == len(resorts) else "/".join(names)
        parts.append(f"{count} {RULE_NAMES[rule]} ({where})")
    return " + ".join(parts) or "free"
