"""What every Measure deck shares: card specs, target kinds and the resolver registry.

A deck is a tuple of :class:`MeasureSpec`. The game numbers the cards of all active decks in one
sequence (global card ids, the order of :func:`build_measures`); a card's ``key`` (``"EXP-01-M03"``)
names it in action strings and in the JSON state. The lifecycle (draw pile, three OpenMeasures, hands,
recycle pile, final discard, play counters; EXP-01-06-02..19, RULINGS R20/R21) is generic and lives in
the game; a deck only supplies its cards and a resolver per card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..components import HOTSPOT
from ..config import RulesConfig
from ..effects import ActiveEffect, Cost

if TYPE_CHECKING:
    from ..game import Game

# Target kinds (CORE-01-06-00-05 (b): a Measure that targets one Tile has it as its ContextTile).
NO_TARGET = ""
T_HOTSPOT = "hotspot"  # an unresolved Hotspot on the Board (docs/rulings.md BC-23)
T_RESORT = "resort"  # a ResortTile on the Board
T_OPPONENT_ECO_RESORT = "opponent-eco-resort"  # an ECO ResortTile another player controls (BC-25)
T_PLAYER = "player"  # any player, the actor included
T_OPPONENT = "opponent"  # any other player
T_ANY_HOTSPOT = "any-hotspot"  # any Hotspot on the Board, resolved or not (RULINGS R49: EXP-02-08-M08)
T_NON_START = "non-start"  # any Board tile but the Start Committee (RULINGS R49: EXP-02-08-M13)
PLAYER_TARGETS = (T_PLAYER, T_OPPONENT)
#: A resort (not a tile): EXP-03-08-M02 Carbon Levy (RULINGS R49/R53); the action is in the ``target-resort``
#: block of the expansion that has such a card, the resort index travels as the effect's ``target``.
T_RESORT_TYPE = "resort-type"
TARGET_RESORT_BLOCK = "target-resort"

#: The most MeasureCards a player may hold over all decks (EXP-01-06-03, EXP-01-06-03 (v1.3), RULINGS R20).
HAND_LIMIT = 2
#: OpenMeasures per deck (EXP-01-03-03).
OPEN_MEASURES = 3
#: A Measure resolves at most twice per game (EXP-01-06-13..15).
MAX_PLAYS = 2

#: resolve(game, player, card, tile, target) -> the lasting effect the card puts in force (EXP-01-06-10), or None
#: when nothing lasts. A resolver may also act at once and push decisions onto ``game.stack`` (any player's).
Resolver = Callable[["Game", int, int, int, int], "ActiveEffect | None"]


@dataclass(frozen=True)
class MeasureSpec:
    key: str
    deck: str
    name: str
    #: The printed cost as slots of one Resource each (see effects.py).
    cost: Cost
    target: str = NO_TARGET
    #: The rule IDs of the card's effect text: (standalone, v1.3).
    rules: tuple[str, str] = ("", "")
    #: Whether a targeted tile is the PlayMeasure's ContextTile (CORE-01-06-00-05 (b), a "Target: One ... Tile"
    #: line); EXP-02's cards have none, so their ContextTile is null although they name a tile (RULINGS R27).
    context_tile: bool = True

    def rule(self, edition: str) -> str:
        return self.rules[1] if edition == "v1.3" else self.rules[0]


#: Card resolvers by card key; the decks register theirs here.
RESOLVERS: dict[str, Resolver] = {}
#: Decks by expansion name, in canonical order; a deck whose cards depend on the configuration (e.g. on the
#: index of its resort) is a function of it.
DECKS: dict[str, tuple[MeasureSpec, ...] | Callable[[RulesConfig], tuple[MeasureSpec, ...]]] = {}
#: Preconditions of cards without a target (RULINGS R49: playable only when their effect has something to act
#: on), by card key: playable(game, player).
PLAYABLE: dict[str, Callable[[Game, int], bool]] = {}
#: The legal resort targets of a T_RESORT_TYPE card, by card key: (game, player) -> resort indices (ascending).
RESORT_TARGETS: dict[str, Callable[[Game, int], list[int]]] = {}


def build_measures(config: RulesConfig) -> tuple[MeasureSpec, ...]:
    """Every MeasureCard of the active expansions (CORE-01-00-12: one deck per expansion)."""
    cards: list[MeasureSpec] = []
    for name, on in (("EXP-01", config.exp01), ("EXP-02", config.exp02), ("EXP-03", config.exp03)):
        if on:
            deck = DECKS.get(name, ())
            cards.extend(deck(config) if callable(deck) else deck)
    return tuple(cards)


def target_cells(game: Game, kind: str, player: int) -> list[int]:
    """The Board cells a Measure of target ``kind`` may target for ``player`` (ascending)."""
    if kind == T_HOTSPOT:
        # docs/rulings.md BC-23: only a Hotspot that has not resolved yet can "not resolve".
        return [c for c in game.board if game.kind_at[c] == HOTSPOT and not game.resolved[c]]
    if kind == T_RESORT:
        return list(game.resort_cells)
    if kind == T_ANY_HOTSPOT:
        return [c for c in game.board if game.kind_at[c] == HOTSPOT]
    if kind == T_NON_START:
        return list(game.nonstart)
    if kind == T_OPPONENT_ECO_RESORT:
        eco = game.config.resorts.index("ECO")
        out = []
        for c in game.resort_cells:
            if game.catalogue[game.tile_at[c]].resort == eco:
                ctrl = game.controller(c)
                if ctrl >= 0 and ctrl != player:  # docs/rulings.md BC-25
                    out.append(c)
        return out
    raise ValueError(kind)


def target_players(game: Game, kind: str, player: int) -> list[int]:
    if kind == T_PLAYER:
        return list(range(game.num_players))
    if kind == T_OPPONENT:
        return [q for q in range(game.num_players) if q != player]
    raise ValueError(kind)
