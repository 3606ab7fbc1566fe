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
from ..actions import MEASURE_BLOCKS
from ..decisions import POLITICAL, Frame, Resolution
from ..effects import Effect
from .base import Expansion
from .measures import (
    HAND_LIMIT,
    MAX_PLAYS,
    NO_TARGET,
    OPEN_MEASURES,
    PLAYER_TARGETS,
    RESOLVERS,
    target_cells,
    target_players,
)

if TYPE_CHECKING:
    from ..game import Game


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


class MeasureSystem(Expansion):
    """TakeMeasure / PlayMeasure (EXP-01-00-05, EXP-01-06-01, EXP-01-06-01 (v1.3)) and the Measure zones."""

    name = "measures"
    action_blocks = MEASURE_BLOCKS

    def setup(self, game: Game) -> None:
        g = game
        for d, deck in enumerate(g.decks):
            # EXP-01-03-02/03: shuffle the deck into its MeasureDrawPile, then three OpenMeasures. Starting
            # Influence and the turn structure stay as they are (EXP-01-03-04/05, both texts).
            pile = [k for k in range(len(g.measures)) if g.deck_of[k] == d]
            g.rng.shuffle(pile)
            g.m_draw[d] = pile
            for _ in range(OPEN_MEASURES):
                insort(g.m_open[d], pile.pop())
            g.log("measure-setup", "EXP-01-03-03", deck=deck, open=[g.measures[k].key for k in g.m_open[d]],
                  draw_pile=len(pile))  # fmt: skip

    def political_options(self, game: Game, player: int, out: list[int]) -> None:
        """TakeMeasure and PlayMeasure, appended in layout order (RULINGS R20/R21)."""
        g, p = game, player
        lay = g.layout
        # EXP-01-06-02/03 / EXP-01-06-03 (v1.3), RULINGS R20: take an open card while holding fewer than 2.
        if len(g.hands[p]) < HAND_LIMIT:
            cards = sorted(k for deck in g.m_open for k in deck)
            if g.active_effects or g.modifier_sources:  # TakeMeasure costs nothing of its own; modifiers may add a cost
                cards = [k for k in cards if g.payment_choices(g.effect_for("take", -1, p, k))]
            out.extend([lay.take + k for k in cards])
        # EXP-01-06-18 / EXP-01-06-02 (v1.3), RULINGS R20: one PlayMeasure per round over all decks;
        # EXP-01-06-05 (c) (v1.3): not as the additional Political Action.
        if g.hands[p] and not g.extra and g.m_round[p] != g.round:
            for k in g.hands[p]:
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
            # EXP-01-06-08: the printed cost; CORE-01-06-00-05 (b): a targeted tile is the ContextTile.
            return Effect("play", player, cell, game.measures[card].cost, card=card, target=target)
        return None

    def execute(self, game: Game, res: Resolution, effect: Effect) -> bool:
        if res.effect == "take":
            game._pop(res)
            execute_take(game, effect, res.paid)
            return True
        if res.effect == "play":
            game._pop(res)
            execute_play(game, effect, res.paid)
            return True
        return False

    def turn_end(self, game: Game) -> None:
        game.extra = False


def play_targets(game: Game, k: int, p: int, first: bool = False) -> list[int]:
    """The target actions of card ``k`` whose PlayMeasure ``p`` can pay ([-1] for a card without target)."""
    g = game
    spec = g.measures[k]
    lay = g.layout
    if spec.target == NO_TARGET:
        return [-1] if g.payment_choices(g.effect_for("play", -1, p, k)) else []
    if spec.target in PLAYER_TARGETS:
        cands = [(lay.target_player + q, -1, q) for q in target_players(g, spec.target, p)]
    else:
        cands = [(lay.target + c, c, -1) for c in target_cells(g, spec.target, p)]
    if not cands:
        return []
    if not (g.active_effects or g.modifier_sources) or not effects.tile_sensitive(g, "play"):
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
    tile, target = (a - lay.target, -1) if a < lay.target_player else (-1, a - lay.target_player)
    game._begin_effect(p, "play", tile, card=card, target=target)


def execute_take(game: Game, effect: Effect, pay: list[int]) -> None:
    """EXP-01-06-02: one Measure from OpenMeasures into the hand, then refill (EXP-01-06-04..06)."""
    g = game
    p, k = effect.actor, effect.card
    # Only extra costs: TakeMeasure is free (EXP-01-06-M06-05 / EXP-01-08-M06-05).
    g._before_pay(effect, pay, effects.surcharge_rule(g, effect))
    d = g.deck_of[k]
    g.m_open[d].remove(k)
    insort(g.hands[p], k)
    g.log("take-measure", "EXP-01-06-02", player=p, card=g.measures[k].key)
    refill(g, d)  # EXP-01-06-04 (v1.3): TakeMeasure ends the turn immediately


def refill(game: Game, d: int) -> None:
    """EXP-01-06-04..06: refill OpenMeasures to three; recycle when the MeasureDrawPile runs out."""
    g = game
    draw, open_ = g.m_draw[d], g.m_open[d]
    while len(open_) < OPEN_MEASURES:
        if not draw:
            if not g.m_recycle[d]:
                g.log("measure-not-refilled", "EXP-01-06-06", deck=g.decks[d], open=len(open_))
                break
            recycle(g, d)  # EXP-01-06-05
            draw = g.m_draw[d]
        k = draw.pop()
        insort(open_, k)
        g.log("measure-refill", "EXP-01-06-04", deck=g.decks[d], card=g.measures[k].key)
    recycle(g, d)


def recycle(game: Game, d: int) -> None:
    """EXP-01-06-16/17, EXP-01-07-05 (v1.3), docs/rulings.md BC-21: whenever the MeasureDrawPile is empty
    and the RecyclePile is not, the RecyclePile is shuffled into a new DrawPile (counters are kept)."""
    g = game
    if g.m_draw[d] or not g.m_recycle[d]:
        return
    pile = sorted(g.m_recycle[d])
    g.m_recycle[d] = []
    g.rng.shuffle(pile)
    g.m_draw[d] = pile
    g.log("measure-recycle", "EXP-01-06-16", deck=g.decks[d], cards=len(pile))


def execute_play(game: Game, effect: Effect, pay: list[int]) -> None:
    """EXP-01-06-07..15: pay, resolve, count the play, move the card on."""
    g = game
    p, k = effect.actor, effect.card
    spec = g.measures[k]
    d = g.deck_of[k]
    g._before_pay(effect, pay, "EXP-01-06-09")  # EXP-01-06-08/09: paid in full, to the Bank
    g.hands[p].remove(k)
    g.m_round[p] = g.round  # EXP-01-06-18 / EXP-01-06-02 (v1.3); TakeMeasure does not count (-19)
    g.log("play-measure", "EXP-01-06-07", player=p, card=spec.key, tile=effect.tile, target=effect.target)
    # EXP-01-06-10: the effect resolves immediately: a resolver may act at once, push decisions (they resolve
    # before anything else of this turn) and return the lasting part as an ActiveEffect (None: nothing lasts).
    depth = len(g.stack)
    active = RESOLVERS[spec.key](g, p, k, effect.tile, effect.target)
    if active is not None:
        g.active_effects.append(active)
        g.log("measure-effect", spec.rule(g.config.exp01_edition), card=spec.key, player=p,
              until=active.until, from_round=active.from_round, data=dict(active.data))  # fmt: skip
    g.m_count[k] += 1  # EXP-01-06-11 / EXP-01-07-01 (v1.3); never reset (EXP-01-06-17)
    if g.m_count[k] >= MAX_PLAYS:
        # EXP-01-06-13..15 / EXP-01-07-03/04 (v1.3): after the second play it never returns.
        g.m_final[d].append(k)
        g.log("measure-final-discard", "EXP-01-06-13", card=spec.key)
    else:
        g.m_recycle[d].append(k)  # EXP-01-06-12 / EXP-01-07-02 (v1.3)
        g.log("measure-recycled", "EXP-01-06-12", card=spec.key)
    recycle(g, d)
    if g.config.exp01 and g.config.exp01_edition == "v1.3" and not g.extra:
        # EXP-01-00-05 (v1.3), EXP-01-06-05 (v1.3) (b)-(d): exactly one additional Political Action,
        # not PlayMeasure.
        g.extra = True
        g.stack.insert(depth, POLITICAL[p])  # after the decisions the card's resolution asked for
        g.log("additional-action", "EXP-01-06-05 (v1.3)", player=p)


__all__ = ["MeasureSystem", "Target", "play_targets"]
