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
``MODIFIERS``; the core game registers none. A handler names the effect ``kinds`` it can touch, so an
effect only collects the handlers that matter to it.

Substitutions (Economic Council, Supplemental Budget) are *cost variants*: alternative total costs
offered next to the standard one (:func:`cost_variants`); the payer's options are the union of the
payments of every variant, and a payment counts as using a substitution only when no earlier variant
(the standard cost first) allows it. Per-round usage flags (EXP-02-07-04, EXP-03-07-03
``usedThisRound``) are the ``used`` entry of an ActiveEffect's data, reset by :func:`reset_round_flags`
right after each Round Settlement.

Output modifiers run in stages (CORE-01-06-16 (a), EXP-01-04-B-01..04, EXP-03-10-04): changes of the
printed value (floor 0, EXP-01-06-M04-05), doubling, output modifiers, then the floor of 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product
from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:
    from .game import Game

SAME, DISTINCT, ANY = 0, 1, 2
RULE_NAMES = ("same", "distinct", "any")
ALL_MASK = 0x3F

Slot = tuple[int, int, int]
Cost = tuple[Slot, ...]
Payment = tuple[int, ...]

# Base costs of the core effects.
STANDARD_COMMITTEE_COST: Final[Cost] = ((2, DISTINCT, ALL_MASK),)  # CORE-01-04-15
START_COMMITTEE_COST: Final[Cost] = ((3, DISTINCT, ALL_MASK), (1, ANY, ALL_MASK))  # CORE-01-08-08
FREE: Final[Cost] = ()

# Timing keys of durations (EXP-01-07-06, EXP-02-07-02, EXP-03-07-02 and the "until your next turn"
# wording of EXP-03-08). The game calls expire() with one of these at the matching moment.
END_OF_TURN: Final = "end_of_turn"  # "this turn"
END_OF_ROUND: Final = "end_of_round"  # "this round": until the next Round Settlement begins
END_OF_SETTLEMENT: Final = "end_of_settlement"  # "during this Round Settlement"
OWNER_NEXT_TURN: Final = "owner_next_turn"  # "until the beginning of your next turn"
CONSUMED: Final = "consumed"  # "until consumed": removed by its handler
PERMANENT: Final = "permanent"
#: Until the end of the next turn of player ``data["player"]`` that begins after the effect was created
#: (``data["turn"]``): the window of docs/rulings.md BC-29 (Investment Freeze), BC-28 (Economic Council) and
#: BC-30 (Supplemental Budget).
END_OF_PLAYER_TURN: Final = "end_of_player_turn"
#: "Until the end of the next round" (EXP-03-08-M02-04, RULINGS R39/R53): through the Round Settlement of the
#: round after ``data["round"]`` (the round it was created in).
END_OF_NEXT_ROUND: Final = "end_of_next_round"
# EXP-01-07-06/07 (v1.3): these are the timing windows; END_OF_PLAYER_TURN is the window of the rulings above.
TIMINGS = (END_OF_TURN, END_OF_ROUND, END_OF_SETTLEMENT, OWNER_NEXT_TURN, CONSUMED, PERMANENT, END_OF_PLAYER_TURN)
#: Every timing key a state may hold: TIMINGS (the EXP-01 encoding's ``effect_until`` view, unchanged) and the
#: windows the later expansions add.
ALL_TIMINGS = (*TIMINGS, END_OF_NEXT_ROUND)

# Output stages (CORE-01-06-16 (a) 1-3, EXP-01-04-B-01..03).
STAGE_PRINTED, STAGE_DOUBLING, STAGE_OUTPUT = 0, 1, 2

#: The effect kinds of Political Actions (CORE-01-04-09, EXP-01-06-01; "authority": an Authority Apparatus
#: activation, EXP-02-05-02, RULINGS R25).
POLITICAL_KINDS = frozenset(("place", "move", "formalize", "convert", "take", "play", "authority"))
#: The effect of placing the drawn tile (Phase 1, CORE-01-04-05; RULINGS R3): free in the core game, its ContextTile
#: is the cell it goes to and the tile is ``game.drawn``; a modifier may surcharge it (EXP-03-08-M12, RULINGS R54).
PLACE_TILE: Final = "place-tile"


class Effect:
    """One effect about to resolve: what it is, who owns it and its ContextTile (CORE-01-06-00-04).

    Immutable by convention; a native class of the compiled engine (cheap to build in the hot paths of legal-action
    generation), compared and hashed by its fields like the NamedTuple it was."""

    __slots__ = ("kind", "actor", "tile", "base_cost", "card", "target")

    kind: str
    actor: int
    #: ContextTile as a cell, or -1 for null (CORE-01-06-00-05).
    tile: int
    base_cost: Cost
    #: The Measure card (global card id) of a TakeMeasure / PlayMeasure, else -1.
    card: int
    #: The targeted player of a PlayMeasure that targets a player, else -1.
    target: int

    def __init__(
        self, kind: str, actor: int, tile: int, base_cost: Cost = FREE, card: int = -1, target: int = -1
    ) -> None:
        self.kind = kind
        self.actor = actor
        self.tile = tile
        self.base_cost = base_cost
        self.card = card
        self.target = target

    def _fields(self) -> tuple[str, int, int, Cost, int, int]:
        return (self.kind, self.actor, self.tile, self.base_cost, self.card, self.target)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Effect) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Effect(kind={self.kind!r}, actor={self.actor!r}, tile={self.tile!r}, base_cost={self.base_cost!r}, "
            f"card={self.card!r}, target={self.target!r})"
        )


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

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.data:
            if k == key:
                return v
        return default

    def with_data(self, **changes: Any) -> ActiveEffect:
        data = dict(self.data)
        data.update(changes)
        return ActiveEffect(self.id, self.owner, self.until, self.from_round, tuple(sorted(data.items())))


@mypyc_attr(allow_interpreted_subclasses=True)  # expansions outside the compiled engine (tests/toy_expansion.py)
class Modifier:
    """What an active effect contributes to an effect's resolution. Override what applies."""

    #: The effect kinds this handler can touch; other effects never collect it.
    kinds: ClassVar[frozenset[str]] = frozenset()
    #: Whether, for political kinds, the answer depends on the ContextTile or the targeted player (else one
    #: check per decision serves every tile / target).
    tile_sensitive: ClassVar[bool] = False
    #: The keys an ActiveEffect of this handler may carry in its data (checked when a state is loaded): ``cell``
    #: (a Board cell), ``target`` / ``player`` (a player), ``turn`` (a past turn), ``used`` (a usage flag).
    data_keys: ClassVar[frozenset[str]] = frozenset()
    #: Where the extra cost slots it adds come from (``SOURCES``): exemptions name a source (e.g. a Climate
    #: exemption waives "climate" slots only, RULINGS R55), and "imposed by a Measure" (EXP-01-08-M10-05) means
    #: the sources in ``MEASURE_SOURCES``.
    source: ClassVar[str] = "rule"

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return False

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return FREE

    def modifies(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        """Whether it modifies ``effect`` at all (for modifiers of modifiers, e.g. "each Regulation adds +1 when
        applied", RULINGS R33); collected handlers modify by default."""
        return True

    def amend(
        self, game: Game, active: ActiveEffect, effect: Effect, other: Modifier, other_active: ActiveEffect, extra: Cost
    ) -> Cost:
        """A modifier of modifiers: the extra cost ``other`` adds to ``effect``, amended (default: unchanged).
        Called for every other collected modifier that :meth:`modifies` the effect."""
        return extra

    def waives(self, game: Game, active: ActiveEffect, effect: Effect) -> frozenset[str]:
        """The sources whose extra cost slots do not apply to ``effect`` (an exemption, e.g. "climate")."""
        return frozenset()

    def adjust_cost(self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost) -> Cost:
        """The total cost after this handler's decreases (with their floors); applied after every extra cost."""
        return cost

    def substitutes(
        self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost, imposed: tuple[int, ...]
    ) -> list[Cost]:
        """Alternative total costs for ``cost`` (``imposed``: indices of slots imposed by Measures)."""
        return []

    def substitution_used(self, game: Game, active: ActiveEffect, index: int, effect: Effect) -> None:
        """Called when a payment needed this handler's substitution (e.g. set the usage flag)."""

    def forbids_conversion(self, game: Game, active: ActiveEffect, effect: Effect, paid: Payment, gain: int) -> bool:
        """Whether converting the Resources ``paid`` into ``gain`` is prohibited (EXP-01-06-M03-03)."""
        return False

    def resolves_fully(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        """Whether ``effect``, which a limitation would resolve only partially, may resolve fully for 1
        additional Resource of any resort (EXP-01-06-M10-04/05, docs/rulings.md BC-30)."""
        return False

    def suppresses_influence(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        """Whether ``effect`` (a Hotspot resolution or a FormalizeInfluence) places / creates no Influence although
        it resolves (majority suppression, EXP-03-06-06/07)."""
        return False

    def replacement(self, game: Game, active: ActiveEffect, effect: Effect, player: int) -> Any:
        """Where :meth:`suppresses_influence`: a decision frame (decisions.Frame) that lets the affected ``player``
        generate the Influence anyway (a replacement payment, e.g. EXP-03-08-M05-05), or None (suppressed outright,
        or the player cannot pay)."""
        return None

    def cap_share(self, game: Game, active: ActiveEffect, effect: Effect, player: int, share: int) -> int:
        """A production instance's share for ``player`` after this handler's cap (the excess goes to Noise)."""
        return share

    def stage(self, active: ActiveEffect) -> int:
        return STAGE_OUTPUT

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount

    def rule(self, game: Game, active: ActiveEffect) -> str:
        """The rule ID cited when this effect applies."""
        return active.id

    def end_rule(self, game: Game, active: ActiveEffect) -> str:
        """The rule ID cited when this effect's duration ends (``effect-expired`` / ``effect-consumed``)."""
        return self.rule(game, active)

    def pay_rule(self, game: Game, active: ActiveEffect) -> str:
        """The rule ID a ``pay`` event cites when an otherwise free effect pays this handler's extra cost."""
        return self.rule(game, active)


#: Modifier handlers by ActiveEffect id; the expansions register theirs here.
MODIFIERS: Final[dict[str, Modifier]] = {}
#: Where extra cost slots come from (Modifier.source): the rules themselves, a Measure in force, a Regulation on
#: the ContextTile (EXP-02), a Climate effect (EXP-03-02-D).
SOURCES = ("rule", "measure", "regulation", "climate")
#: The sources whose slots are "imposed by a Measure" (EXP-01-08-M10-05; Climate surcharges come from Measures).
MEASURE_SOURCES = frozenset(("measure", "climate"))


def _collect(game: Game, effect: Effect) -> list[tuple[Modifier, ActiveEffect, int]]:
    """Step 1: the durations in force (``game.active_effects``; the index is their position) and the records
    the expansions' modifier sources give for this effect (e.g. objects attached to its ContextTile; index -1)."""
    sources = game.modifier_sources
    if (not game.active_effects and not sources) or effect.tile == game.topo.centre:
        return []
    out = []
    kind = effect.kind
    rnd = game.round
    for i, active in enumerate(game.active_effects):
        if active.from_round <= rnd:
            handler = MODIFIERS.get(active.id)
            if handler is not None and kind in handler.kinds:
                out.append((handler, active, i))
    for source in sources:
        for record in source.modifiers(game, effect):
            handler = MODIFIERS[record.id]
            if kind in handler.kinds:
                out.append((handler, record, -1))
    return out


def collect_modifiers(game: Game, effect: Effect) -> list[tuple[Modifier, ActiveEffect]]:
    """Step 1. The Start Committee ignores every external modifier (CORE-01-08-06, -06A)."""
    return [(h, a) for h, a, _ in _collect(game, effect)]


def touches(game: Game, kind: str) -> bool:
    """Whether any modifier may apply to effects of ``kind``: an expansion's modifier source, or a duration in
    force whose handler names the kind. False means such an effect resolves exactly as the core rules say (e.g. a
    tile placement, RULINGS R3, in every game without a placement surcharge such as EXP-03-08-M12)."""
    for source in game.modifier_sources:
        if source.modifying(game):  # a source with records now (Expansion.modifying)
            return True
    for active in game.active_effects:
        handler = MODIFIERS.get(active.id)
        if handler is not None and kind in handler.kinds:
            return True
    return False


def tile_sensitive(game: Game, kind: str) -> bool:
    """Whether any active modifier of effects of ``kind`` depends on the ContextTile (modifier sources, such as
    objects attached to tiles, may: each source says whether it does now, ``Expansion.tile_sensitive``)."""
    for source in game.modifier_sources:
        if source.tile_sensitive(game, kind):
            return True
    for active in game.active_effects:
        handler = MODIFIERS.get(active.id)
        if handler is not None and handler.tile_sensitive and kind in handler.kinds:
            return True
    return False


def prohibited_by(game: Game, effect: Effect) -> ActiveEffect | None:
    """Step 2: the first active effect that prohibits ``effect`` (EXP-02-02-D), or None."""
    for handler, active, _ in _collect(game, effect):
        if handler.prohibits(game, active, effect):
            return active
    return None


def cost_variants(game: Game, effect: Effect) -> list[tuple[Cost, int]] | None:
    """Steps 1-3: the total costs ``effect`` may be paid by, as ``(cost, i)`` pairs.

    The first pair is the standard total cost (base plus every extra cost, stacking additively,
    EXP-02-04-B-02) with ``i = -1``; each further pair is a substitution offered by
    ``game.active_effects[i]``. None when a prohibition applies (nothing is paid, EXP-02-02-D-02).
    """
    mods = _collect(game, effect)
    if not mods:
        return [(effect.base_cost, -1)]
    for handler, active, _ in mods:
        if handler.prohibits(game, active, effect):
            return None
    waived: frozenset[str] = frozenset()
    for handler, active, _ in mods:
        waived |= handler.waives(game, active, effect)
    cost = effect.base_cost
    imposed: list[int] = []
    for handler, active, _ in mods:
        extra = handler.extra_cost(game, active, effect)
        for meta, meta_active, _ in mods:  # modifiers of modifiers (e.g. RULINGS R33, R46)
            if (
                meta is not handler
                and type(meta).amend is not Modifier.amend
                and handler.modifies(game, active, effect)
            ):
                extra = meta.amend(game, meta_active, effect, handler, active, extra)
        if extra and handler.source not in waived:
            if handler.source in MEASURE_SOURCES:
                imposed.extend(range(len(cost), len(cost) + len(extra)))
            cost = cost + extra
    for handler, active, _ in mods:  # decreases with their floors, after every increase
        cost = handler.adjust_cost(game, active, effect, cost)
    variants = [(cost, -1)]
    seen = {tuple(sorted(cost))}
    for handler, active, i in mods:
        for alt in handler.substitutes(game, active, effect, cost, tuple(imposed)):
            alt = tuple(sorted(alt))
            if alt not in seen:
                seen.add(alt)
                variants.append((alt, i))
    return variants


def effect_cost(game: Game, effect: Effect) -> Cost | None:
    """Steps 1-3: the standard total cost of ``effect``, or None when a prohibition applies."""
    variants = cost_variants(game, effect)
    return None if variants is None else variants[0][0]


def payment_options_for(game: Game, effect: Effect) -> list[Payment]:
    """Step 4's options: every payment of any cost variant the actor's supply can pay in full."""
    variants = cost_variants(game, effect)
    if variants is None:
        return []
    supply = game.resources_of(effect.actor)
    if len(variants) == 1:
        return affordable(variants[0][0], supply)
    found: set[Payment] = set()
    for cost, _ in variants:
        found.update(affordable(cost, supply))
    # docs/rulings.md BC-28: a payment that pays another payment plus more is never offered (it buys the
    # same effect dearer), so no payment is a proper prefix of another (BC-05 needs no "done" decision).
    return [pay for pay in sorted(found) if not any(_sub_multiset(other, pay) for other in found if other != pay)]


def _sub_multiset(small: Payment, big: Payment) -> bool:
    if len(small) >= len(big):
        return False
    rest = list(big)
    for r in small:
        if r not in rest:
            return False
        rest.remove(r)
    return True


def use_payment(game: Game, effect: Effect, pay: Payment) -> None:
    """After payment: tell the substitution a payment needed (the first variant allowing it) it was used."""
    variants = cost_variants(game, effect)
    if variants is None or len(variants) == 1:
        return
    supply = game.resources_of(effect.actor)
    for cost, i in variants:
        if pay in affordable(cost, supply):
            if i >= 0:
                active = game.active_effects[i]
                MODIFIERS[active.id].substitution_used(game, active, i, effect)
            return


def surcharge_rule(game: Game, effect: Effect) -> str:
    """The rule a free effect's payment cites: that of the first modifier adding an extra cost to it (a Place,
    Move or TakeMeasure pays nothing else, CORE-01-04-11/12, EXP-01-06-02)."""
    for handler, active, _ in _collect(game, effect):
        if handler.extra_cost(game, active, effect):
            return handler.pay_rule(game, active)
    return "CORE-01-06-00-02"


def conversion_forbidden(game: Game, effect: Effect, paid: Payment, gain: int) -> bool:
    """Whether an active effect forbids converting ``paid`` into ``gain`` (EXP-01-06-M03-03)."""
    for handler, active, _ in _collect(game, effect):
        if handler.forbids_conversion(game, active, effect, paid, gain):
            return True
    return False


def full_resolution(game: Game, effect: Effect) -> ActiveEffect | None:
    """The active effect that lets ``effect`` resolve fully despite a limitation, for 1 additional Resource
    (EXP-01-06-M10-04/05, docs/rulings.md BC-30), or None."""
    for handler, active, _ in _collect(game, effect):
        if handler.resolves_fully(game, active, effect):
            return active
    return None


def suppression(game: Game, effect: Effect, player: int) -> tuple[ActiveEffect | None, Any]:
    """Majority suppression (EXP-03-06-06/07): the first active effect under which ``effect`` places / creates no
    Influence for ``player`` (None: not suppressed) and the replacement decision offered (None: suppressed outright;
    a suppression without a replacement wins, docs/rulings.md BC-62)."""
    found: ActiveEffect | None = None
    frame = None
    for handler, active, _ in _collect(game, effect):
        if handler.suppresses_influence(game, active, effect):
            offer = handler.replacement(game, active, effect, player)
            if offer is None:
                return active, None
            if found is None:
                found, frame = active, offer
    return found, frame


def capped_share(game: Game, effect: Effect, player: int, share: int) -> tuple[int, ActiveEffect | None]:
    """A production instance's share for ``player`` after every cap (RULINGS R38), and the capping effect."""
    capper = None
    for handler, active, _ in _collect(game, effect):
        new = handler.cap_share(game, active, effect, player, share)
        if new < share:
            share, capper = new, active
    return share, capper


def end_rule(game: Game, active: ActiveEffect) -> str:
    """The rule ID an ``effect-expired`` / ``effect-consumed`` event of ``active`` cites (its edition's)."""
    handler = MODIFIERS.get(active.id)
    return active.id if handler is None else handler.end_rule(game, active)


def effect_output(game: Game, effect: Effect, amount: int, log: bool = False) -> int:
    """Step 5: output modifiers by stage, then the floor of 0 (CORE-01-06-16 (a), EXP-01-04-B-01..04).

    After the printed-value stage the value is floored at 0 (EXP-01-06-M04-05). With ``log`` every
    modifier that changes the amount logs a ``measure-applied`` event citing its rule.
    """
    mods = _collect(game, effect)
    if not mods:
        return max(amount, 0)
    for stage in (STAGE_PRINTED, STAGE_DOUBLING, STAGE_OUTPUT):
        for handler, active, _ in mods:
            if handler.stage(active) == stage:
                new = handler.output(game, active, effect, amount)
                if stage == STAGE_PRINTED:
                    new = max(new, 0)  # EXP-01-06-M04-05: printed value has a minimum of 0
                if log and new != amount:
                    game.log("measure-applied", handler.rule(game, active), id=active.id, owner=active.owner,
                             kind=effect.kind, cell=effect.tile, before=amount, after=new)  # fmt: skip
                amount = new
    return max(amount, 0)  # CORE-01-06-16 (a) 4, EXP-01-04-05, EXP-01-06-M02-05


def _ends(active: ActiveEffect, timing: str, player: int | None, turn: int, rnd: int = 0) -> bool:
    if active.until != timing:
        return False
    if timing == END_OF_NEXT_ROUND:
        return rnd > active.get("round", 0)
    if timing == OWNER_NEXT_TURN:
        return player is None or active.owner == player
    if timing == END_OF_PLAYER_TURN:
        return active.get("player") == player and active.get("turn", -1) < turn
    return True


def expire(game: Game, timing: str, owner: int | None = None) -> None:
    """Remove the durations that end at ``timing``.

    ``owner`` is the player whose turn begins (OWNER_NEXT_TURN: only that owner's effects) or ends
    (END_OF_PLAYER_TURN: the effects keyed to that player, except during the turn they were created in).
    """
    if not game.active_effects:
        return
    keep = []
    for active in game.active_effects:
        if _ends(active, timing, owner, game.turn, game.round) and active.from_round <= game.round:
            game.log("effect-expired", end_rule(game, active), id=active.id, owner=active.owner)
        else:
            keep.append(active)
    game.active_effects = keep


def consume(game: Game, player: int) -> None:
    """EXP-01-06-M06-07 / EXP-01-08-M06-07: after a Political Action attempt by ``player``, consume the CONSUMED
    effects on them."""
    if not game.active_effects:
        return
    keep = []
    for active in game.active_effects:
        if active.until == CONSUMED and active.get("target") == player:
            game.log("effect-consumed", end_rule(game, active), id=active.id, owner=active.owner, target=player)
        else:
            keep.append(active)
    game.active_effects = keep


def reset_round_flags(game: Game) -> None:
    """EXP-02-07-04 / EXP-03-07-03: usedThisRound resets right after each Round Settlement."""
    if not game.active_effects:
        return
    game.active_effects = [a.with_data(used=False) if a.get("used") else a for a in game.active_effects]


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


#: affordable()'s memo: (cost, supply key) -> the payments. A payment of ``cost`` takes at most ``size`` Resources of
#: one resort (the sum of its slots' counts), so the supply clamped at ``size`` per resort decides which payments it
#: can pay (:func:`_supply_key`): a few keys per cost, where the raw supplies of long games are many.
_AFFORDABLE: Final[dict[tuple[Cost, int], list[Payment]]] = {}


def _supply_key(cost: Cost, res: list[int] | tuple[int, ...], start: int, n: int) -> int:
    """``res[start:start + n]`` clamped at the size of ``cost``, as one integer (a leading 1, then one digit in base
    size + 1 per resort: distinct supplies of any length give distinct keys); -1 if a count is negative."""
    size = 0
    for slot in cost:
        size += slot[0]
    base = size + 1
    key = 1
    for i in range(start, start + n):
        s = res[i]
        if s < 0:
            return -1
        key = key * base + (s if s < size else size)
    return key


def _affordable(cost: Cost, res: list[int] | tuple[int, ...], start: int, n: int) -> list[Payment]:
    """The payments of ``cost`` that ``res[start:start + n]`` can pay in full: the memo's list (not to be changed)."""
    key = _supply_key(cost, res, start, n)
    got = _AFFORDABLE.get((cost, key)) if key >= 0 else None
    if got is None:
        supply = res[start : start + n]
        got = [pay for pay, counts in payment_options(cost, n) if all(c <= s for c, s in zip(counts, supply))]
        if key >= 0:
            if len(_AFFORDABLE) > 200_000:
                _AFFORDABLE.clear()
            _AFFORDABLE[(cost, key)] = got
    return got


def affordable(cost: Cost, supply: list[int] | tuple[int, ...]) -> list[Payment]:
    """The payments of ``cost`` that ``supply`` (Resources per resort) can pay in full (memoised)."""
    return list(_affordable(cost, supply, 0, len(supply)))


def affordable_of(cost: Cost, res: list[int], player: int, n_resorts: int) -> list[Payment]:
    """:func:`affordable` of ``player``'s Resources in ``res`` (``Game.res``: player * n_resorts + resort), without
    slicing them out."""
    return list(_affordable(cost, res, player * n_resorts, n_resorts))


def can_afford(cost: Cost, res: list[int], player: int, n_resorts: int) -> bool:
    """Whether ``player``'s Resources in ``res`` pay ``cost`` in full some way (``bool(affordable_of(...))``)."""
    return len(_affordable(cost, res, player * n_resorts, n_resorts)) > 0


def without_one(cost: Cost, i: int) -> Cost:
    """``cost`` less one Resource of slot ``i`` (a component another player pays, e.g. RULINGS R52)."""
    count, rule, mask = cost[i]
    rest = cost[:i] + cost[i + 1 :]
    return rest + ((count - 1, rule, mask),) if count > 1 else rest


@lru_cache(maxsize=4096)
def base_parts(pay: Payment, base: Cost, extra: Cost, n_resorts: int) -> tuple[Payment, ...]:
    """The payments of ``base`` that, taken out of ``pay``, leave a payment of ``extra`` (sorted)."""
    extra_pays = {p for p, _ in payment_options(extra, n_resorts)}
    out = []
    for b, _ in payment_options(base, n_resorts):
        rest = list(pay)
        ok = True
        for r in b:
            if r in rest:
                rest.remove(r)
            else:
                ok = False
                break
        if ok and tuple(rest) in extra_pays:
            out.append(b)
    return tuple(out)


def next_choices(options: list[Payment], prefix: list[int]) -> list[int]:
    """Resorts that may be paid next after ``prefix`` (payments are chosen in sorted order)."""
    k = len(prefix)
    return sorted({pay[k] for pay in options if len(pay) > k and list(pay[:k]) == prefix})
