"""What the hand-written bots know of EXP-02 Security & Order beyond the evaluation (issue #14; docs/policies.md).

The evaluation (``policies/heuristic.py``) reads the Regulations on the Board: a Blockade or SecurityLevel stops /
lowers a ResortTile's production (EXP-02-04-B, RULINGS R29, R40), makes a Committee useless for FormalizeInfluence
(Blockade: prohibited; SecurityLevel: its one new Influence reduced to 0, R29), a Grassroots useless for a
conversion (Blockade) and a Hotspot's free placement void (EXP-02-04-C-03, R29); Control / Administration on the
Committees make every formalization dearer (EXP-02-02-B-03/05). So the one-step look-ahead already values a
Regulation placed, moved or removed (Inner Order, Authority Apparatus, the continuations of a Measure) by the
position it leaves.

A Measure, though, is two Political Actions apart from its effect (TakeMeasure, then PlayMeasure, often a
ConvertResources for the SEC between), which one step does not see. :func:`card_values` therefore prices each
EXP-02 card the bot holds or could take by the best change of the evaluation its effect can make in the current
position (a Regulation placed with Threat Situation, a Blockade on an unresolved Hotspot with Emergency Decree, the
best removal with Legal Review, the best move with Jurisdiction Shift, a Regulation on a Hotspot at the settlement
with Loss of Control, plus what paying the Resources it has towards the cost changes); :func:`option_value` adds
the best card's plan value: its value discounted per Political Action its plan still needs (:func:`plan_turns`:
conversions for the SEC, the TakeMeasure, the PlayMeasure), less the Influence those actions would cost beyond the
bot's spare turns (:func:`spare_turns`). Taking a card, converting for its SEC and playing it then each look better
than the alternatives exactly when the effect is worth it and the turns allow it. :func:`denied_hotspots` is the
evaluation's EXP-02 term for a Regulation that voids a Hotspot's free Influence. Nothing here is read in a game
without EXP-02.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bc_env.rules import Game
from bc_env.rules.components import COMMITTEE, GRASSROOTS, HOTSPOT, RESORT
from bc_env.rules.expansions import exp02

# Regulation types (the order of ``Regulations.on``'s counts).
SECURITY_LEVEL, CONTROL, ADMINISTRATION, BLOCKADE = 0, 1, 2, 3

INNER_ORDER = "Inner Order"

#: The cards whose effect :func:`card_values` prices (the others are worth nothing held).
PRICED = ("EXP-02-M01", "EXP-02-M02", "EXP-02-M04", "EXP-02-M07", "EXP-02-M12")


@dataclass(frozen=True)
class Exp02Weights:
    """How the EXP-02 cards count before they are played (:func:`option_value`).

    A card's plan is the Political Actions still needed to play it: one ConvertResources per Resource of its cost
    ``me`` still lacks (only a conversion gives SEC, RULINGS R24), a TakeMeasure for a face-up card, the
    PlayMeasure (and for Loss of Control the 2 SEC its placement costs at the settlement, RULINGS R44). The plan is
    worth the card's value times ``step`` per action of the plan (a card further away is less sure: an opponent
    may take it, the position may change; and each step towards it, a conversion for its SEC, is worth taking),
    less ``turn`` per action the bot needs for its own Influence (its spare turns are free, :func:`spare_turns`).
    Cards worth less than ``min_value`` count nothing. ``settlement``: the discount of an effect at the next
    settlement."""

    step: float = 0.85
    turn: float = 0.5
    min_value: float = 0.02
    settlement: float = 0.8
    #: :func:`denied_hotspots`: what a voided Hotspot's free Influence is worth to its leader (an Influence placed
    #: at once, ``1 - tempo`` of the evaluation, times the chance the Hotspot closes with that leader in time).
    hotspot: float = 0.5
    #: The weight of the strongest opponent in the relative score (``HeuristicWeights.best_opponent``).
    best_opponent: float = 0.7


DEFAULT_EXP02 = Exp02Weights()


def places_influence(game: Game, tile: int) -> bool:
    """Whether a Hotspot ``tile`` (a catalogue index) places its leader's Influence when it resolves
    (CORE-01-06-05): every Hotspot but EXP-02's Inner Order, whose leader places or moves a Regulation instead and
    places no Influence (EXP-02-02-G-04/07, RULINGS R42)."""
    return game.catalogue[tile].name != INNER_ORDER


def regulations(game: Game) -> dict[int, list[int]] | None:
    """cell -> [SecurityLevel, Control, Administration, Blockade] counts, or None without EXP-02."""
    st = game.ext.get(exp02.NAME)
    return st.on if isinstance(st, exp02.Regulations) else None


def voids_output(counts: list[int] | None) -> bool:
    """A tile with a Blockade (its effect prohibited) or a SecurityLevel: a Committee's one new Influence and a
    Hotspot's one placed Influence are reduced to 0 (RULINGS R29)."""
    return bool(counts) and bool(counts[BLOCKADE] or counts[SECURITY_LEVEL])  # type: ignore[index]


def denied_hotspots(game: Game, me: int, w: Exp02Weights | None = None) -> float:
    """The evaluation's EXP-02 term: each unresolved Hotspot (Inner Order aside: it places no Influence) voided by a
    Blockade or a SecurityLevel (EXP-02-04-C-03, RULINGS R29) denies its single majority leader, if it has Influence
    in its supply, the free Influence of the resolution (CORE-01-06-05): ``-hotspot`` where that leader is ``me``,
    ``+hotspot`` times that opponent's weight in the relative score otherwise. The static evaluation counts a
    pending placement only as a small threat (it is uncertain while the Hotspot is open), which leaves a Regulation
    on an opponent's Hotspot worth almost nothing; this term is what the Regulation takes away. 0 without
    Regulations on Hotspots."""
    regs = regulations(game)
    if not regs or game.is_terminal():
        return 0.0
    w = w or DEFAULT_EXP02
    n = game.num_players
    out = 0.0
    for c, counts in regs.items():
        if game.kind_at[c] != HOTSPOT or game.resolved[c] or not voids_output(counts):
            continue
        if not places_influence(game, game.tile_at[c]):
            continue
        t = game.totals(c)
        top = max(t)
        if top <= 0 or t.count(top) != 1:
            continue
        q = t.index(top)
        if game.supply[q] <= 0:
            continue
        if q == me:
            out -= w.hotspot
        else:  # the evaluation weighs the strongest opponent (here: the most Influence) above the others
            strength = [game.on_board[p] + game.supply[p] for p in range(n) if p != me]
            share = (1.0 - w.best_opponent) / (n - 1)
            out += w.hotspot * (share + (w.best_opponent if strength[q - (q > me)] == max(strength) else 0.0))
    return out


def _targets(game: Game) -> list[int]:
    """The tiles a Regulation matters on: ResortTiles, standard Committees, Grassroots, unresolved Hotspots."""
    out = []
    for c in game.nonstart:
        k = game.kind_at[c]
        if k in (RESORT, COMMITTEE, GRASSROOTS) or (k == HOTSPOT and not game.resolved[c]):
            out.append(c)
    return out


def card_values(
    game: Game, me: int, evaluate: Callable[[Game, int], float], w: Exp02Weights = DEFAULT_EXP02
) -> dict[int, float]:
    """Value for ``me`` of each EXP-02 card in ``me``'s hand or face up (by card id): the best gain of the
    evaluation its effect can make now plus what paying its cost (the Resources ``me`` has towards it) changes
    (0 if that is not positive)."""
    zones = game.ext.get("measures")
    if zones is None:
        return {}
    cards = [k for k in zones.hands[me] if game.measures[k].key in PRICED]  # type: ignore[attr-defined]
    for deck in zones.open:  # type: ignore[attr-defined]
        cards.extend(k for k in deck if game.measures[k].key in PRICED)
    if not cards:
        return {}
    keys = {game.measures[k].key for k in cards}
    base = evaluate(game, me)
    paid: dict[str, float] = {}
    for k in cards:  # what paying the card's cost alone loses (the Resources ``me`` has towards it)
        key = game.measures[k].key
        if key not in paid:
            child = game.clone()
            pay_what_you_can(child, me, k)
            paid[key] = evaluate(child, me) - base
    child = game.clone()
    st = exp02.state(child)
    targets = _targets(game)
    hot = [c for c in targets if game.kind_at[c] == HOTSPOT]

    def gain_place(t: int, c: int) -> float:
        st.attach(c, t)
        v = evaluate(child, me) - base
        st.detach(c, t)
        return v

    place = {(t, c): gain_place(t, c) for t in range(4) for c in targets if exp02.attachable(game, t, c)}
    best: dict[str, float] = {}
    best["EXP-02-M01"] = max(place.values(), default=0.0)
    best["EXP-02-M02"] = max((place.get((BLOCKADE, c), 0.0) for c in hot), default=0.0)
    best["EXP-02-M12"] = w.settlement * max(
        (place.get((t, c), 0.0) for t in (BLOCKADE, CONTROL, SECURITY_LEVEL) for c in hot), default=0.0
    )
    if "EXP-02-M07" in keys or "EXP-02-M04" in keys:
        remove, move = 0.0, 0.0
        for t, c in exp02.removable(child):
            st.detach(c, t)
            after = evaluate(child, me) - base
            remove = max(remove, after)
            if "EXP-02-M04" in keys:
                for d in targets:
                    if d != c and exp02.attachable(game, t, d):
                        st.attach(d, t)
                        move = max(move, evaluate(child, me) - base)
                        st.detach(d, t)
            st.attach(c, t)
        best["EXP-02-M07"] = remove
        best["EXP-02-M04"] = move
    return {k: max(0.0, best.get(game.measures[k].key, 0.0) + paid[game.measures[k].key]) for k in cards}


def pay_what_you_can(game: Game, me: int, card: int) -> None:
    """Take from ``me`` (on a clone) the Resources it has towards ``card``'s printed cost: the named resorts first,
    the free slots from its largest stocks."""
    n = game.num_resorts
    res = game.res
    free = 0
    for count, _rule, mask in game.measures[card].cost:
        if mask & (mask - 1) == 0:
            r = mask.bit_length() - 1
            res[me * n + r] -= min(count, res[me * n + r])
        else:
            free += count
    for _ in range(free):
        r = max(range(n), key=lambda q: res[me * n + q])
        if res[me * n + r] <= 0:
            break
        res[me * n + r] -= 1


def missing(game: Game, me: int, card: int, produced: frozenset[int] = frozenset()) -> int:
    """Resources ``me`` still lacks for ``card``'s printed cost (named resorts first, then the free slots); those of
    a resort in ``produced`` (one ``me`` gets at the next settlement) are not counted."""
    have = list(game.resources_of(me))
    short = 0
    free = 0
    for count, _rule, mask in game.measures[card].cost:
        if mask & (mask - 1) == 0:  # one named resort
            r = mask.bit_length() - 1
            take = min(count, have[r])
            have[r] -= take
            if r not in produced:
                short += count - take
        else:
            free += count
    return short + max(0, free - sum(have))


def produced(game: Game, me: int) -> frozenset[int]:
    """The resorts of the ResortTiles whose majority ``me`` holds (alone or tied) and which still produce (no
    Blockade, output above its SecurityLevels): ``me`` receives them at the next settlement without a turn."""
    regs = regulations(game) or {}
    out = set()
    for c in game.resort_cells:
        t = game.totals(c)
        if t[me] <= 0 or t[me] < max(t):
            continue
        spec = game.catalogue[game.tile_at[c]]
        counts = regs.get(c)
        if counts and (counts[BLOCKADE] or counts[SECURITY_LEVEL] >= spec.value):
            continue
        out.add(spec.resort)
    return frozenset(out)


def spare_turns(game: Game, me: int) -> int:
    """``me``'s turns left beyond those it needs to reach the Influence cap: one Place per Influence in its supply
    (up to the cap) and a FormalizeInfluence + Place per Influence still to create (CORE-01-00-01). A turn spent on
    an EXP-02 card within this budget costs ``me`` no Influence of its own."""
    room = max(0, game.cap - game.on_board[me])
    place = min(game.supply[me], room)
    return game.turns_left(me) - place - 2 * (room - place)


#: Loss of Control's placement is paid at the settlement (RULINGS R44), not with the card: 2 SEC more to plan for.
_LATER_SEC = {"EXP-02-M12": 2}


def plan_turns(game: Game, me: int, card: int, face_up: bool, income: frozenset[int] = frozenset()) -> int:
    """The Political Actions ``me`` still needs to play ``card``: a conversion per Resource of its cost it lacks (none
    for a resort in ``income``, :func:`produced`), the TakeMeasure of a face-up card and the PlayMeasure (Loss of
    Control: also the 2 SEC of its placement at the settlement)."""
    return missing(game, me, card, income) + _LATER_SEC.get(game.measures[card].key, 0) + int(face_up) + 1


def option_value(game: Game, me: int, values: dict[int, float], w: Exp02Weights = DEFAULT_EXP02) -> float:
    """What the EXP-02 cards are worth to ``me`` before they are played (``values`` from :func:`card_values`): the
    best, over the cards in ``me``'s hand and face up, of the card's value times ``step`` per Political Action its
    plan still needs (a conversion per Resource of its cost still missing, RULINGS R24, unless a Resort ``me``
    controls produces it, :func:`produced`; a TakeMeasure for a face-up
    card; the PlayMeasure), less ``turn`` per action of the plan beyond ``me``'s spare turns (:func:`spare_turns`);
    0 where the turns left cannot carry the plan out. So SEC held is worth what the card it pays for is worth, each
    conversion towards a card worth playing gains, and playing it (its effect now, its plan value gone) wins
    exactly when the effect is worth it."""
    zones = game.ext.get("measures")
    if zones is None or not values or game.is_terminal():
        return 0.0
    turns = game.turns_left(me)
    spare = spare_turns(game, me)
    income = produced(game, me)
    best = 0.0
    hand = zones.hands[me]  # type: ignore[attr-defined]
    candidates = [(k, 0) for k in hand]
    for deck in zones.open:  # type: ignore[attr-defined]
        candidates.extend((k, 1) for k in deck)
    for k, take in candidates:
        v = values.get(k, 0.0)
        if v < w.min_value:
            continue
        plan = plan_turns(game, me, k, bool(take), income)
        if plan > turns:
            continue
        best = max(best, v * w.step**plan - w.turn * max(0, plan - spare))
    return best


__all__ = ["DEFAULT_EXP02", "PRICED", "Exp02Weights", "voids_output", "card_values", "missing", "option_value",
           "regulations", "spare_turns", "plan_turns", "produced", "denied_hotspots"]  # fmt: skip
