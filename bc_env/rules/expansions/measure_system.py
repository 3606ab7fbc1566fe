"""The Measure system every expansion shares (RULINGS R20, R21): TakeMeasure and PlayMeasure, the decks' zones
and the lifecycle of a card (EXP-01-06-02..19, both editions), on the expansion interface (``base.py``).

It is active whenever an active expansion brings a Measure deck (``expansions_for``). The cards themselves
(cost, target kind, the resolver that puts the lasting effect in force) come from the decks (``measures.py``,
``exp01.py``); the lifecycle here is generic per deck.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING, Any

from .. import effects
from .. import jsonread as js
from ..actions import MEASURE_BLOCKS
from ..decisions import POLITICAL, Frame, Resolution
from ..effects import Effect
from ..errors import StateError
from .base import Expansion, ExpansionState
from .measures import (
    HAND_LIMIT,
    MAX_PLAYS,
    NO_TARGET,
    OPEN_MEASURES,
    PLAYABLE,
    PLAYER_TARGETS,
    RESOLVERS,
    RESORT_TARGETS,
    T_RESORT_TYPE,
    TARGET_RESORT_BLOCK,
    target_cells,
    target_players,
)

if TYPE_CHECKING:
    from ..game import Game
    from ..rng import Rng

#: The keys of the ``measures`` object of the JSON state and of each deck in it.
MEASURES_KEYS = frozenset(("decks", "hands", "play_counts", "last_play_round", "additional_action"))
DECK_KEYS = frozenset(("draw_pile", "open", "recycle_pile", "final_discard"))


class Target(Frame):
    """The target of a Measure (a tile or a player; docs/rulings.md BC-20), before its effect resolves."""

    __slots__ = ("card", "targets")
    kind: str | None = "target"

    def __init__(self, owner: int, card: int, targets: list[int]) -> None:
        self.owner = owner
        self.card = card
        self.targets = targets

    def legal(self, game: Game) -> list[int]:
        return list(self.targets)

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        choose_target(game, self.owner, self.card, action)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": self.kind, "owner": self.owner, "card": self.card, "targets": list(self.targets)}


class MeasureZones(ExpansionState):
    """The Measure zones of every active deck (EXP-01-02-15/16, EXP-01-02-E-01 (v1.3), CORE-01-00-12, RULINGS R20;
    EXP-02-07-00-01: each deck its own zones), the hands, the play counters and the v1.3 additional action.
    Card ids are the game's global ids (``game.measures``); ``game.ext["measures"]``."""

    __slots__ = ("draw", "open", "recycle", "final", "hands", "count", "last_round", "extra")
    key = "measures"

    def __init__(self, decks: int, players: int, cards: int) -> None:
        self.draw: list[list[int]] = [[] for _ in range(decks)]  # MeasureDrawPile (hidden order, top = end; R19)
        self.open: list[list[int]] = [[] for _ in range(decks)]  # OpenMeasures (ascending card id)
        self.recycle: list[list[int]] = [[] for _ in range(decks)]  # MeasureRecyclePile
        self.final: list[list[int]] = [[] for _ in range(decks)]  # MeasureFinalDiscard
        self.hands: list[list[int]] = [[] for _ in range(players)]  # PlayerHand (ascending card id; public, R19)
        self.count = [0] * cards  # play counters (EXP-01-06-11, -17)
        self.last_round = [0] * players  # round of each player's last PlayMeasure (EXP-01-06-18); 0 = none
        self.extra = False  # v1.3: the additional Political Action after PlayMeasure (EXP-01-06-05 (v1.3))

    def clone(self) -> MeasureZones:
        z = MeasureZones(0, 0, 0)  # (a compiled class cannot be made by __new__ alone)
        z.draw = [d[:] for d in self.draw]
        z.open = [d[:] for d in self.open]
        z.recycle = [d[:] for d in self.recycle]
        z.final = [d[:] for d in self.final]
        z.hands = [h[:] for h in self.hands]
        z.count = self.count[:]
        z.last_round = self.last_round[:]
        z.extra = self.extra
        return z

    def to_json(self, game: Game) -> dict[str, Any]:
        keys = [m.key for m in game.measures]
        return {
            "decks": {
                deck: {
                    "draw_pile": [keys[k] for k in self.draw[d]],
                    "open": [keys[k] for k in self.open[d]],
                    "recycle_pile": [keys[k] for k in self.recycle[d]],
                    "final_discard": [keys[k] for k in self.final[d]],
                }
                for d, deck in enumerate(game.decks)
            },
            "hands": [[keys[k] for k in hand] for hand in self.hands],
            "play_counts": {keys[k]: self.count[k] for k in range(len(keys))},
            "last_play_round": list(self.last_round),
            "additional_action": self.extra,
        }

    def read_json(self, game: Game, data: Any, where: str) -> None:
        """The zones as written by :meth:`to_json`: known card keys, each in one zone of its own deck; the counters
        and caps are checked by :meth:`check`."""
        g = game
        js.keys(data, where, MEASURES_KEYS)
        keys = {spec.key: k for k, spec in enumerate(g.measures)}
        seen: dict[int, str] = {}

        def cards(raw: Any, zone: str, deck: str | None) -> list[int]:
            if not isinstance(raw, list):
                raise StateError(f"{zone} must be a list of card keys, got {raw!r}")
            out = []
            for key in raw:
                k = keys.get(key) if isinstance(key, str) else None
                if k is None:
                    raise StateError(f"{zone}: unknown Measure card {key!r}")
                if deck is not None and g.measures[k].deck != deck:
                    raise StateError(f"{zone}: card {key} belongs to deck {g.measures[k].deck} (CORE-01-00-12)")
                if k in seen:
                    raise StateError(f"Measure card {key} is in two zones: {seen[k]} and {zone} (CORE-01-00-01)")
                seen[k] = zone
                out.append(k)
            return out

        decks = js.get(data, "decks", where)
        if not isinstance(decks, dict) or sorted(decks) != sorted(g.decks):
            raise StateError(f"{where}.decks must map exactly the decks {', '.join(g.decks)}")
        for d, deck in enumerate(g.decks):
            dw = f"{where}.decks.{deck}"
            zones = decks[deck]
            js.keys(zones, dw, DECK_KEYS)
            self.draw[d] = cards(js.get(zones, "draw_pile", dw), f"{dw}.draw_pile", deck)
            self.open[d] = sorted(cards(js.get(zones, "open", dw), f"{dw}.open", deck))
            self.recycle[d] = cards(js.get(zones, "recycle_pile", dw), f"{dw}.recycle_pile", deck)
            self.final[d] = cards(js.get(zones, "final_discard", dw), f"{dw}.final_discard", deck)
        hands = js.get_list(data, "hands", where)
        if len(hands) != g.num_players:
            raise StateError(f"{where}.hands must list {g.num_players} hands")
        for p, hand in enumerate(hands):
            self.hands[p] = sorted(cards(hand, f"{where}.hands[{p}]", None))
        counts = js.get(data, "play_counts", where)
        if not isinstance(counts, dict) or sorted(counts) != sorted(keys):
            raise StateError(f"{where}.play_counts must map every Measure card key to its play counter")
        for key, k in keys.items():
            n = counts[key]
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_PLAYS:
                raise StateError(f"{where}.play_counts.{key} must be an integer 0..{MAX_PLAYS}, got {n!r}")
            self.count[k] = n
        rounds = js.get_list(data, "last_play_round", where)
        if len(rounds) != g.num_players or any(
            isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= g.round for v in rounds
        ):
            raise StateError(f"{where}.last_play_round must be {g.num_players} integers in 0..{g.round}")
        self.last_round = list(rounds)
        self.extra = js.get_bool(data, "additional_action", where)
        if self.extra and not (g.config.exp01 and g.config.exp01_edition == "v1.3"):
            raise StateError(f"{where}.additional_action exists only in EXP-01 edition v1.3 (EXP-01-06-05)")

    def check(self, game: Game) -> list[str]:
        """Every card in exactly one zone of its deck, the caps, and counters that match the zones."""
        g, where = game, "state.measures"
        out: list[str] = []
        zone_of: dict[int, str] = {}
        for d, deck in enumerate(g.decks):
            dw = f"{where}.decks.{deck}"
            for name, cards in (("draw_pile", self.draw[d]), ("open", self.open[d]),
                                ("recycle_pile", self.recycle[d]), ("final_discard", self.final[d])):  # fmt: skip
                for k in cards:
                    if g.deck_of[k] != d:
                        out.append(f"{dw}.{name}: card {g.measures[k].key} belongs to deck {g.measures[k].deck}")
                    if k in zone_of:
                        out.append(f"Measure card {g.measures[k].key} is in two zones (CORE-01-00-01)")
                    zone_of[k] = name
            if len(self.open[d]) > OPEN_MEASURES:
                out.append(f"{dw}.open holds more than {OPEN_MEASURES} cards (EXP-01-03-03)")
            if not self.draw[d] and self.recycle[d]:
                out.append(f"{dw}: an empty draw pile next to a non-empty recycle pile (EXP-01-06-16, BC-21)")
        for p, hand in enumerate(self.hands):
            if len(hand) > HAND_LIMIT:
                out.append(f"{where}.hands[{p}] holds more than {HAND_LIMIT} Measures (EXP-01-06-03, R20)")
            for k in hand:
                if k in zone_of:
                    out.append(f"Measure card {g.measures[k].key} is in two zones (CORE-01-00-01)")
                zone_of[k] = "hand"
        missing = [g.measures[k].key for k in range(len(g.measures)) if k not in zone_of]
        if missing:
            out.append(f"Measure card(s) {', '.join(missing)} are in no zone (CORE-01-00-01)")
        for k, zone in sorted(zone_of.items()):
            n = self.count[k]
            if (zone == "final_discard") != (n == MAX_PLAYS) or (zone == "recycle_pile" and n != 1):
                out.append(f"Measure card {g.measures[k].key} in {zone} cannot have play counter {n} "
                           "(EXP-01-06-12..15, EXP-01-06-17)")  # fmt: skip
        if self.extra and (g.phase_name in ("place_tile", "over") or self.last_round[g.active] != g.round):
            out.append(f"{where}.additional_action must follow a PlayMeasure of the active player this turn")
        return out


class MeasureSystem(Expansion):
    """TakeMeasure / PlayMeasure (EXP-01-00-05, EXP-01-06-01, EXP-01-06-01 (v1.3)) and the Measure zones."""

    name = "measures"
    action_blocks = MEASURE_BLOCKS

    def new_state(self, game: Game) -> MeasureZones:
        return MeasureZones(len(game.decks), game.num_players, len(game.measures))

    def setup(self, game: Game) -> None:
        g = game
        z = zones(g)
        for d, deck in enumerate(g.decks):
            # EXP-01-03-02/03: shuffle the deck into its MeasureDrawPile, then three OpenMeasures. Starting
            # Influence and the turn structure stay as they are (EXP-01-03-04/05, both texts).
            pile = [k for k in range(len(g.measures)) if g.deck_of[k] == d]
            g.rng.shuffle(pile)
            z.draw[d] = pile
            for _ in range(OPEN_MEASURES):
                insort(z.open[d], pile.pop())
            g.log("measure-setup", "EXP-01-03-03", deck=deck, open=[g.measures[k].key for k in z.open[d]],
                  draw_pile=len(pile))  # fmt: skip

    def political_options(self, game: Game, player: int, out: list[int]) -> None:
        """TakeMeasure and PlayMeasure, appended in layout order (RULINGS R20/R21)."""
        g, p = game, player
        lay = g.layout
        z = zones(g)
        hand = z.hands[p]
        # EXP-01-06-02/03 / EXP-01-06-03 (v1.3), RULINGS R20: take an open card while holding fewer than 2.
        if len(hand) < HAND_LIMIT:
            cards = sorted(k for deck in z.open for k in deck)
            if g._modified():  # TakeMeasure costs nothing of its own; modifiers may add a cost
                cards = [k for k in cards if g.payment_choices(g.effect_for("take", -1, p, k))]
            out.extend([lay.take + k for k in cards])
        # EXP-01-06-18 / EXP-01-06-02 (v1.3), RULINGS R20: one PlayMeasure per round over all decks;
        # EXP-01-06-05 (c) (v1.3): not as the additional Political Action.
        if hand and not z.extra and z.last_round[p] != g.round:
            for k in hand:
                if play_targets(g, k, p, first=True):  # docs/rulings.md BC-20: playable only
                    out.append(lay.play + k)

    def political_choice(self, game: Game, player: int, action: int) -> bool:
        lay = game.layout
        if lay.take <= action < lay.play:  # EXP-01-06-02: TakeMeasure
            game._begin_effect(player, "take", -1, card=action - lay.take)
            return True
        if lay.play <= action < lay.target:  # EXP-01-06-07: PlayMeasure
            begin_play(game, player, action - lay.play)
            return True
        return False

    def effect(self, game: Game, kind: str, cell: int, player: int, card: int, target: int) -> Effect | None:
        if kind == "take":
            return Effect("take", player, -1, effects.FREE, card=card)  # CORE-01-06-00-05 (e): null
        if kind == "play":
            # EXP-01-06-08: the printed cost; CORE-01-06-00-05 (b): a targeted tile is the ContextTile (unless the
            # card has no "Target:" line, RULINGS R27).
            spec = game.measures[card]
            return Effect("play", player, cell if spec.context_tile else -1, spec.cost, card=card, target=target)
        return None

    def execute(self, game: Game, res: Resolution, effect: Effect) -> bool:
        if res.effect == "take":
            game._pop(res)
            execute_take(game, effect, res.paid)
            return True
        if res.effect == "play":
            game._pop(res)
            execute_play(game, effect, res.paid, res.tile)
            return True
        return False

    def resample_hidden(self, game: Game, observer: int, rng: Rng) -> None:
        """RULINGS R19: each MeasureDrawPile's order is hidden from everyone; hands, OpenMeasures, RecyclePiles and
        FinalDiscards are public."""
        for pile in zones(game).draw:
            rng.shuffle(pile)

    def turn_end(self, game: Game) -> None:
        zones(game).extra = False

    def render_lines(self, game: Game) -> list[str]:
        g, z = game, zones(game)
        keys = [m.key for m in g.measures]
        lines = [
            f"measures {deck}: open {', '.join(keys[k] for k in z.open[d]) or '-'}  draw pile "
            f"{len(z.draw[d])}  recycle {len(z.recycle[d])}  final {len(z.final[d])}"
            for d, deck in enumerate(g.decks)
        ]
        lines.extend(f"  P{p} hand: {', '.join(keys[k] for k in hand)}" for p, hand in enumerate(z.hands) if hand)
        return lines


def zones(game: Game) -> MeasureZones:
    """The game's Measure zones (``game.ext["measures"]``)."""
    z = game.ext["measures"]
    assert isinstance(z, MeasureZones)
    return z


def play_targets(game: Game, k: int, p: int, first: bool = False) -> list[int]:
    """The target actions of card ``k`` whose PlayMeasure ``p`` can pay ([-1] for a card without target)."""
    g = game
    spec = g.measures[k]
    lay = g.layout
    if spec.target == NO_TARGET:
        playable = PLAYABLE.get(spec.key)
        if playable is not None and not playable(g, p):  # RULINGS R49
            return []
        return [-1] if g.payment_choices(g.effect_for("play", -1, p, k)) else []
    if spec.target in PLAYER_TARGETS:
        cands = [(lay.target_player + q, -1, q) for q in target_players(g, spec.target, p)]
    elif spec.target == T_RESORT_TYPE:  # e.g. EXP-03-08-M02-03 (RULINGS R49/R53)
        base = lay.offset(TARGET_RESORT_BLOCK)
        cands = [(base + r, -1, r) for r in RESORT_TARGETS[spec.key](g, p)]
    else:
        cands = [(lay.target + c, c, -1) for c in target_cells(g, spec.target, p)]
    if not cands:
        return []
    if not g._modified() or not effects.tile_sensitive(g, "play"):
        # The total cost does not depend on the target: check it once.
        _, c, q = cands[0]
        if not g.payment_choices(g.effect_for("play", c, p, k, q)):
            return []
        return [a for a, _, _ in cands[: 1 if first else None]]
    out = []
    for a, c, q in cands:
        if g.payment_choices(g.effect_for("play", c, p, k, q)):
            out.append(a)
            if first:
                break
    return out


def begin_play(game: Game, p: int, k: int) -> None:
    """EXP-01-06-07: PlayMeasure of hand card ``k``; first its target (docs/rulings.md BC-20)."""
    spec = game.measures[k]
    if spec.target == NO_TARGET:
        game._begin_effect(p, "play", -1, card=k)
        return
    targets = play_targets(game, k, p)
    if len(targets) == 1:  # a determined choice completes by itself (as BC-05)
        choose_target(game, p, k, targets[0])
    else:
        game.stack.append(Target(p, k, targets))


def choose_target(game: Game, p: int, card: int, a: int) -> None:
    lay = game.layout
    if game.measures[card].target == T_RESORT_TYPE:  # the resort travels as the target (e.g. EXP-03-08-M02-03)
        tile, target = -1, a - lay.offset(TARGET_RESORT_BLOCK)
    else:
        tile, target = (a - lay.target, -1) if a < lay.target_player else (-1, a - lay.target_player)
    game._begin_effect(p, "play", tile, card=card, target=target)


def execute_take(game: Game, effect: Effect, pay: list[int]) -> None:
    """EXP-01-06-02: one Measure from OpenMeasures into the hand, then refill (EXP-01-06-04..06)."""
    g = game
    p, k = effect.actor, effect.card
    # Only extra costs: TakeMeasure is free (EXP-01-06-M06-05 / EXP-01-08-M06-05).
    g._before_pay(effect, pay, effects.surcharge_rule(g, effect))
    d = g.deck_of[k]
    z = zones(g)
    z.open[d].remove(k)
    insort(z.hands[p], k)
    g.log("take-measure", "EXP-01-06-02", player=p, card=g.measures[k].key)
    refill(g, d)  # EXP-01-06-04 (v1.3): TakeMeasure ends the turn immediately


def refill(game: Game, d: int) -> None:
    """EXP-01-06-04..06: refill OpenMeasures to three; recycle when the MeasureDrawPile runs out."""
    g = game
    z = zones(g)
    draw, open_ = z.draw[d], z.open[d]
    while len(open_) < OPEN_MEASURES:
        if not draw:
            if not z.recycle[d]:
                g.log("measure-not-refilled", "EXP-01-06-06", deck=g.decks[d], open=len(open_))
                break
            recycle(g, d)  # EXP-01-06-05
            draw = z.draw[d]
        k = draw.pop()
        insort(open_, k)
        g.log("measure-refill", "EXP-01-06-04", deck=g.decks[d], card=g.measures[k].key)
    recycle(g, d)


def recycle(game: Game, d: int) -> None:
    """EXP-01-06-16/17, EXP-01-07-05 (v1.3), docs/rulings.md BC-21: whenever the MeasureDrawPile is empty
    and the RecyclePile is not, the RecyclePile is shuffled into a new DrawPile (counters are kept)."""
    g = game
    z = zones(g)
    if z.draw[d] or not z.recycle[d]:
        return
    pile = sorted(z.recycle[d])
    z.recycle[d] = []
    g.rng.shuffle(pile)
    z.draw[d] = pile
    g.log("measure-recycle", "EXP-01-06-16", deck=g.decks[d], cards=len(pile))


def execute_play(game: Game, effect: Effect, pay: list[int], tile: int | None = None) -> None:
    """EXP-01-06-07..15: pay, resolve, count the play, move the card on (``tile``: the targeted tile, when it
    is not the ContextTile)."""
    g = game
    p, k = effect.actor, effect.card
    spec = g.measures[k]
    d = g.deck_of[k]
    g._before_pay(effect, pay, "EXP-01-06-09")  # EXP-01-06-08/09: paid in full, to the Bank
    z = zones(g)
    z.hands[p].remove(k)
    z.last_round[p] = g.round  # EXP-01-06-18 / EXP-01-06-02 (v1.3); TakeMeasure does not count (-19)
    tile = effect.tile if tile is None else tile
    g.log("play-measure", "EXP-01-06-07", player=p, card=spec.key, tile=tile, target=effect.target)
    # EXP-01-06-10: the effect resolves immediately: a resolver may act at once, push decisions (they resolve
    # before anything else of this turn) and return the lasting part as an ActiveEffect (None: nothing lasts).
    depth = len(g.stack)
    active = RESOLVERS[spec.key](g, p, k, tile, effect.target)
    if active is not None:
        g.active_effects.append(active)
        g.log("measure-effect", spec.rule(g.config.exp01_edition), card=spec.key, player=p,
              until=active.until, from_round=active.from_round, data=dict(active.data))  # fmt: skip
    z.count[k] += 1  # EXP-01-06-11 / EXP-01-07-01 (v1.3); never reset (EXP-01-06-17)
    if z.count[k] >= MAX_PLAYS:
        # EXP-01-06-13..15 / EXP-01-07-03/04 (v1.3): after the second play it never returns.
        z.final[d].append(k)
        g.log("measure-final-discard", "EXP-01-06-13", card=spec.key)
    else:
        z.recycle[d].append(k)  # EXP-01-06-12 / EXP-01-07-02 (v1.3)
        g.log("measure-recycled", "EXP-01-06-12", card=spec.key)
    recycle(g, d)
    if g.config.exp01 and g.config.exp01_edition == "v1.3" and not z.extra:
        # EXP-01-00-05 (v1.3), EXP-01-06-05 (v1.3) (b)-(d): exactly one additional Political Action,
        # not PlayMeasure.
        z.extra = True
        g.stack.insert(depth, POLITICAL[p])  # after the decisions the card's resolution asked for
        g.log("additional-action", "EXP-01-06-05 (v1.3)", player=p)


__all__ = ["MeasureSystem", "MeasureZones", "Target", "play_targets", "zones"]
