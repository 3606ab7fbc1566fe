"""Reusable invariant checks for the engine, CORE-01 and EXP-01 (OpenSpiel ``random_sim_test`` style).

Every check recomputes what it needs from the raw zones (``tile_at``, ``infl``, ``supply``, ``res``,
``bank``, ``noise``, the tile piles, the Measure zones) or from the event log; none trusts the engine's own
counters (``on_board``, ``frontier``, ``created``, ``deployed``, ``m_count``, ``active_effects``...) except
to compare them with a recomputation.

* :func:`check_state` -- stateless checks of one position: tile zones, Measure zones, Influence and
  Resource (ECO included) conservation, caps, nothing negative, nothing on the Start Committee.
* :func:`check_derived` -- the engine's derived indexes (``kind_at``, ``board``, ``frontier``...) recomputed.
* :func:`check_legal` -- ``legal_actions()`` against ``legal_action_mask()`` and, for the default rules,
  against an independent recomputation of the legal set (RULINGS R3, R7, R10, R11, R12, R16, R20; BC-20).
* :class:`Tracker` -- follows one game step by step and checks what needs history: Influence only
  created by FormalizeInfluence (or the v1.3 Labor Market, BC-32), a ledger of every Influence, Resource and
  MeasureCard rebuilt from the events, every payment against its cost (Measure surcharges and substitutions
  included), Noise never decreasing, the Start Committee used at most once per player, Hotspots resolving
  once and exactly when fully surrounded, Round Settlement production (with Measure modifiers), one
  PlayMeasure per player and round, OpenMeasures refilled only as BC-21 says, every Measure effect
  living exactly its window (BC-22..BC-30), and the Investment Program exchange offered and made exactly when
  BC-31 allows it (under Collective Bargaining only with standalone Supplemental Budget's additional
  Resource, BC-24, BC-30).
* :func:`check_all_legal_apply`, :func:`check_action_strings`, :func:`check_clone_independent`,
  :func:`round_trip`, :func:`check_terminal`, :func:`check_replay` -- the expensive checks, run at a few
  random points.
* :func:`run_checked_game` -- plays one seeded random game with all of the above.

Every failure raises :class:`InvariantError` (an ``AssertionError``) whose message names the check.
"""

from __future__ import annotations

import json
import random
from bisect import insort
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from bc_env.rules import Game, IllegalActionError, RulesConfig
from bc_env.rules.actions import CONVERT, FORMALIZE, MOVE_FROM, MOVE_TO, PLACE
from bc_env.rules.components import (
    COMMITTEE,
    GRASSROOTS,
    HOTSPOT,
    INVESTMENT_PROGRAM,
    LABOR_MARKET,
    LOBBYIST,
    RESORT,
    START,
)
from bc_env.rules.config import GrassrootsText
from bc_env.rules.decisions import Resolution
from bc_env.rules.effects import (
    CONSUMED,
    END_OF_PLAYER_TURN,
    END_OF_ROUND,
    END_OF_SETTLEMENT,
    END_OF_TURN,
    PERMANENT,
)

CORE_PRESETS = ("core-2p", "core-3p", "core-4p", "core-5p", "core-6p", "core-4p-variants", "core-4p-hex")
EXP01_PRESETS = ("exp01-2p", "exp01-4p", "exp01-6p", "exp01-v1.3-4p")
PRESETS = CORE_PRESETS + EXP01_PRESETS
#: EXP-02 presets: this harness models the core game and EXP-01 only; their invariants (conservation of Resources,
#: Influence and Regulations, caps, JSON round trips, clones, replays) run in tests/test_exp02_invariants.py.
EXP02_PRESETS = ("exp02-2p", "exp02-4p", "exp02-6p", "exp0102-4p")
#: Presets whose invariant run is another module's (this harness checks CORE-01 and EXP-01 only):
#: tests/test_exp02_invariants.py and tests/test_exp03_invariants.py.
EXP03_PRESETS = ("exp03-2p", "exp03-4p", "exp03-6p", "exp0103-4p")
#: EXP-02 and EXP-03 together (tests/test_exp02_invariants.py and tests/test_exp03_invariants.py).
COMBINED_PRESETS = ("exp0203-4p", "all-4p", "all-6p")
OTHER_HARNESS_PRESETS = EXP02_PRESETS + EXP03_PRESETS + COMBINED_PRESETS

#: Events of a Political Action (CORE-01-04-09, RULINGS R7; EXP-01-06-01 adds TakeMeasure and PlayMeasure).
POLITICAL = frozenset(
    {"place-influence", "move-influence", "formalize", "convert", "pass", "take-measure", "play-measure"}
)
#: Events after which a turn is over (CORE-01-04-09, RULINGS R7); :func:`turn_ending` adds PlayMeasure
#: where it ends the turn.
TURN_ENDING = POLITICAL - {"play-measure"}
#: The events of one Hotspot resolution (CORE-01-06-04..07, BC-06; EXP-01-02-C-04 (v1.3), BC-32).
HOTSPOT_EVENTS = frozenset(
    {"hotspot-resolved", "hotspot-no-supply", "hotspot-no-majority", "labor-market", "labor-market-capped"}
)
#: The events of a Round Settlement's production (CORE-01-06-11..17; Measure modifiers log measure-applied).
PRODUCTION_EVENTS = frozenset({"produce", "production-prohibited", "measure-applied"})

#: EXP-01-06-M01..M10 (standalone) = EXP-01-08-M01..M10 (v1.3): card key -> (name, printed cost, target).
#: Targets (BC-20): an unresolved Hotspot (BC-23), a ResortTile, an ECO ResortTile another player controls
#: (BC-25), any player (BC-26), another player (EXP-01-06-M09-02); "" for none.
EXP01_CARDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "EXP-01-M01": ("Budget Compromise", ("DOM", "ECO", "INF"), "hotspot"),
    "EXP-01-M02": ("Economic Stimulus", ("ECO", "FOR"), "resort"),
    "EXP-01-M03": ("Collective Bargaining", ("ECO", "ECO"), ""),
    "EXP-01-M04": ("Subsidy Reduction", ("ECO", "FOR"), "opponent-eco-resort"),
    "EXP-01-M05": ("Location Debate", ("ECO", "INF"), "resort"),
    "EXP-01-M06": ("Budget Deficit", ("ECO", "ECO"), "player"),
    "EXP-01-M07": ("Debt Brake", ("DOM", "ECO", "ECO"), ""),
    "EXP-01-M08": ("Economic Council", ("ECO", "ECO", "ECO"), ""),
    "EXP-01-M09": ("Investment Freeze", ("ECO", "ECO", "INF"), "opponent"),
    "EXP-01-M10": ("Supplemental Budget", ("ECO",), ""),
}
#: The Measures that modify a tile's production value (EXP-01-06-M09-04 / EXP-01-08-M09-05, BC-29).
PRODUCTION_CARDS = frozenset(("EXP-01-M02", "EXP-01-M04", "EXP-01-M05"))
#: The resorts without and with EXP-01 (CORE-01-01, EXP-01-01-01, EXP-01-07-04 (Rule Interaction)).
_RESORTS = {False: ("DOM", "FOR", "INF"), True: ("DOM", "FOR", "INF", "ECO")}
#: EXP-01-06-03, RULINGS R20; EXP-01-03-03; EXP-01-06-13..15.
HAND_LIMIT, OPEN_MEASURES, MAX_PLAYS = 2, 3, 2


class InvariantError(AssertionError):
    """An invariant of the rules or of the engine API does not hold."""


def _fail(msg: str) -> NoReturn:
    raise InvariantError(msg)


# ---------------------------------------------------------------------------- the catalogue


def is_v13(config: RulesConfig) -> bool:
    """RULINGS R22: the edition of EXP-01."""
    return config.exp01 and config.exp01_edition == "v1.3"


def turn_ending(config: RulesConfig) -> frozenset[str]:
    """The events that end a turn. Standalone: PlayMeasure is the turn's Political Action (EXP-01-06-01);
    v1.3: one additional Political Action follows it (EXP-01-06-05 (v1.3)) and TakeMeasure ends the turn
    (EXP-01-06-04 (v1.3))."""
    return TURN_ENDING if is_v13(config) else TURN_ENDING | {"play-measure"}


def expected_tile_counts(config: RulesConfig) -> Counter[tuple[str, int, str, int]]:
    """(kind name, resort index, name, value) -> count, straight from the rule text.

    CORE-01-02-01 (one Start Committee), CORE-01-02-10..17, ADD56-01-01-02..15, EXP-01-02-01..14.
    """
    counts: Counter[tuple[str, int, str, int]] = Counter()
    counts["start-committee", -1, "Start Committee", 0] = 1
    for r, resort in enumerate(("DOM", "FOR", "INF")):
        for value, n in ((1, 2), (2, 4), (3, 4), (4, 1), (5, 1)):  # CORE-01-02-10..12
            counts["resort", r, f"{resort}-W{value}", value] += n
        if config.addon56:
            for value in (2, 3, 4):  # ADD56-01-01-02..10
                counts["resort", r, f"{resort}-W{value}", value] += 1
    add = config.addon56
    counts["committee", -1, "Committee", 0] = 10 + 2 * add  # CORE-01-02-13, ADD56-01-01-11
    counts["grassroots", -1, "Grassroots", 0] = 8 + 2 * add  # CORE-01-02-14, ADD56-01-01-13
    counts["lobbyist", -1, "Lobbyist", 0] = 9 + 3 * add  # CORE-01-02-15, ADD56-01-01-12
    counts["hotspot", -1, "Hotspot", 0] = 8  # CORE-01-02-16
    if add:
        counts["hotspot", -1, "Hotspot (DOM)", 0] = 1  # ADD56-01-01-14
        counts["hotspot", -1, "Hotspot (FOR)", 0] = 1  # ADD56-01-01-15
    if config.exp01:
        eco = config.resorts.index("ECO")  # EXP-01-01-01
        for value, n in ((1, 2), (2, 1), (3, 1)):  # EXP-01-02-05
            counts["resort", eco, f"ECO-W{value}", value] += n
        if add:
            for value in (1, 2, 3):  # EXP-01-02-06
                counts["resort", eco, f"ECO-W{value}", value] += 1
        counts["hotspot", -1, "Labor Market", 0] = 1  # EXP-01-02-03, -10..12
        counts["system", -1, "Investment Program", 0] = 1  # EXP-01-02-04, -13/14
    return counts


def expected_starting(config: RulesConfig, start_player: int) -> list[int]:
    """CORE-01-03-04..06, ADD56-01-02-01/02, VAR-01-02-02/03 (EXP-01-03-04: unchanged)."""
    base = {2: 4, 3: 3, 4: 2, 5: 2, 6: 2}[config.players]
    return [base - (1 if config.first_player_handicap and p == start_player else 0) for p in range(config.players)]


def expected_cap(config: RulesConfig) -> int:
    """CORE-01-08-01 (7), ADD56-01-03-00-01 (8 with 5-6 players), RULINGS R12 (EXP-01-06-01 (Restrictions)); the
    design option influence_cap (docs/rulings.md BC-67)."""
    if config.influence_cap is not None:
        return config.influence_cap
    return 8 if config.players >= 5 else 7


def is_core_default(config: RulesConfig) -> bool:
    """True when the independent legal-set recomputation below applies (the rulings' defaults)."""
    return (
        config.bank_stock is None
        and not config.action_tiles_require_control
        and config.grassroots_texts == (GrassrootsText(),)
        and not config.exp02
        and not config.exp03
    )


def expected_window(
    config: RulesConfig, key: str, player: int, round_: int, turn: int, tile: int, target: int
) -> tuple[str, int, dict[str, Any]]:
    """The lasting effect a Measure puts in force: (timing, first round, data), from its Duration line.

    ``turn`` counts the turns completed before the current one. EXP-01-06-M01..M10 / EXP-01-08-M01..M10,
    EXP-01-04-A-02/03; docs/rulings.md BC-22 ("this Round Settlement"), BC-25 (Subsidy Reduction), BC-26
    (until consumed), BC-27 (next round), BC-28 / BC-29 / BC-30 (until the end of a player's next turn).
    """
    v13 = is_v13(config)
    if key == "EXP-01-M01":
        return END_OF_ROUND, round_, {"cell": tile}
    if key in ("EXP-01-M02", "EXP-01-M05") or (key == "EXP-01-M04" and v13):
        return END_OF_SETTLEMENT, round_, {"cell": tile}
    if key == "EXP-01-M04":
        return PERMANENT, round_, {"cell": tile}
    if key == "EXP-01-M03":
        return END_OF_ROUND, round_, {}
    if key == "EXP-01-M06":
        return CONSUMED, round_, {"target": target}
    if key == "EXP-01-M07":
        return END_OF_ROUND, round_ + 1, {}
    if key == "EXP-01-M08":
        return END_OF_PLAYER_TURN, round_, {"player": player, "turn": turn, "used": False}
    if key == "EXP-01-M09":
        return END_OF_PLAYER_TURN, round_, {"player": target, "turn": turn}
    if key == "EXP-01-M10":
        if v13:
            return END_OF_TURN, round_, {}
        return END_OF_PLAYER_TURN, round_, {"player": player, "turn": turn}
    _fail(f"unknown Measure {key}")


# ---------------------------------------------------------------------------- independent rule helpers


def occupied_cells(g: Game) -> list[int]:
    return [c for c, t in enumerate(g.tile_at) if t >= 0]


def placement_cells(g: Game) -> list[int]:
    """RULINGS R3 (CORE-01-04-05, -08): empty table cells adjacent to a Board tile, recomputed."""
    tile_at, nbs = g.tile_at, g.topo.neighbors
    return sorted({nb for c in occupied_cells(g) for nb in nbs[c] if tile_at[nb] < 0})


def lobbyist_owner(g: Game, cell: int) -> int:
    """RULINGS R13: strictly the most physical Influence on the Lobbyist, else -1."""
    n = g.num_players
    row = g.infl[cell * n : cell * n + n]
    top = max(row)
    return row.index(top) if top > 0 and row.count(top) == 1 else -1


def totals(g: Game, cell: int, tile_at: list[int] | None = None) -> list[int]:
    """CORE-01-05-03A, -04, BC-11: physical Influence plus +1 per adjacent owned Lobbyist; a Lobbyist counts its
    physical Influence only (RULINGS R13)."""
    n = g.num_players
    tot = g.infl[cell * n : cell * n + n]
    tiles = g.tile_at if tile_at is None else tile_at
    if tiles[cell] >= 0 and g.catalogue[tiles[cell]].kind == LOBBYIST:
        return tot
    for nb in g.topo.neighbors[cell]:
        t = tiles[nb]
        if t >= 0 and g.catalogue[t].kind == LOBBYIST:
            owner = lobbyist_owner(g, nb)
            if owner >= 0:
                tot[owner] += 1
    return tot


def leaders(g: Game, cell: int, tile_at: list[int] | None = None) -> list[int]:
    """RULINGS R14: the players sharing the highest positive total (empty: nobody)."""
    tot = totals(g, cell, tile_at)
    top = max(tot)
    return [p for p, v in enumerate(tot) if v == top] if top > 0 else []


def surrounded(g: Game, cell: int, tile_at: list[int] | None = None) -> bool:
    """CORE-01-06-01, RULINGS R5: every adjacent table cell holds a tile (the table edge is closed)."""
    tiles = g.tile_at if tile_at is None else tile_at
    return all(tiles[nb] >= 0 for nb in g.topo.neighbors[cell])


def card_cost(g: Game, key: str) -> list[int]:
    """The printed cost of a Measure as sorted resort indices (its Cost line, e.g. EXP-01-06-M01-01)."""
    return sorted(g.config.resorts.index(r) for r in EXP01_CARDS[key][1])


def _covers(paid: list[int], need: list[int]) -> bool:
    """Whether the multiset ``paid`` contains the multiset ``need``."""
    return not Counter(need) - Counter(paid)


# ---------------------------------------------------------------------------- stateless checks


def check_tile_zones(g: Game, board_cells: list[int] | None = None) -> None:
    """CORE-01-00-01, -05, -06: every tile in exactly one zone; the tiles are exactly the catalogue.

    ``board_cells`` (from a :class:`Tracker`) saves the scan of every cell: the occupied cells are then
    exactly those cells when their count matches and each holds a distinct catalogue tile.
    """
    n_tiles = len(g.catalogue)
    tile_at = g.tile_at
    if board_cells is None:
        board = [t for t in tile_at if t >= 0]
    else:
        board = [tile_at[c] for c in board_cells]
        if len(tile_at) - tile_at.count(-1) != len(board_cells):
            _fail(f"{len(tile_at) - tile_at.count(-1)} occupied cells, the events placed {len(board_cells)} tiles")
    drawn = [g.drawn] if g.drawn >= 0 else []
    zones = g.draw_pile + g.discard + g.set_aside + board + drawn
    if sorted(zones) != list(range(n_tiles)):
        count = Counter(zones)
        dup = sorted(t for t, k in count.items() if k > 1)
        missing = sorted(set(range(n_tiles)) - set(count))
        extra = sorted(t for t in count if not 0 <= t < n_tiles)
        _fail(f"CORE-01-00-01/06 tile zones: duplicated {dup}, in no zone {missing}, unknown {extra}")
    if (g.drawn >= 0) != (g.phase_name == "place_tile"):
        _fail(f"a drawn tile ({g.drawn}) must exist exactly in phase place_tile, phase is {g.phase_name}")
    if g.tile_at[g.topo.centre] != 0:
        _fail(f"CORE-01-03-01: the Start Committee must stay at the centre, found tile {g.tile_at[g.topo.centre]}")


def eco_index(g: Game) -> int:
    """The ECO resort's index, -1 without EXP-01 (EXP-01-02-17)."""
    return g.config.resorts.index("ECO") if g.config.exp01 else -1


def check_measures(g: Game) -> None:
    """The MeasureCards (EXP-01-02-15/16, CORE-01-00-01/06): each card of the catalogue in exactly one zone
    (MeasureDrawPile, OpenMeasures, a PlayerHand, RecyclePile, FinalDiscard); at most 3 OpenMeasures
    (EXP-01-03-03) and 2 cards per hand over all decks (EXP-01-06-03, R20); play counters 0..2, 1 in the
    RecyclePile, 2 exactly in the FinalDiscard (EXP-01-06-11..15, -17); an empty MeasureDrawPile only next
    to an empty RecyclePile (EXP-01-06-16, BC-21). Without an expansion no Measure exists
    (EXP-01-07-04 (Rule Interaction))."""
    if not g.config.exp01:
        if g.measures or g.ext:
            _fail("EXP-01-07-04 (Rule Interaction): MeasureCards exist without EXP-01")
        return
    keys = [m.key for m in g.measures]
    if keys != list(EXP01_CARDS):
        _fail(f"the Measure catalogue {keys} != EXP-01-06-M01..M10 {list(EXP01_CARDS)}")
    n_cards = len(keys)
    count = g.ext["measures"].count
    if len(count) != n_cards or min(count) < 0 or max(count) > MAX_PLAYS:
        _fail(f"EXP-01-06-11/15: play counters {count} must be 0..{MAX_PLAYS}, one per card")
    zones: list[int] = []
    for d, deck in enumerate(g.decks):
        draw, open_, recycle, final = (
            g.ext["measures"].draw[d],
            g.ext["measures"].open[d],
            g.ext["measures"].recycle[d],
            g.ext["measures"].final[d],
        )
        if len(open_) > OPEN_MEASURES:
            _fail(f"EXP-01-03-03 / EXP-01-06-04: {len(open_)} OpenMeasures in deck {deck}")
        if recycle and not draw:
            _fail(f"EXP-01-06-16, BC-21: deck {deck} has an empty MeasureDrawPile next to RecyclePile {recycle}")
        for k in final:
            if count[k] != MAX_PLAYS:
                _fail(f"EXP-01-06-13: {keys[k]} is in the FinalDiscard with play counter {count[k]}")
        for k in recycle:
            if count[k] != 1:
                _fail(f"EXP-01-06-12: {keys[k]} is in the RecyclePile with play counter {count[k]}")
        for k in draw + open_:
            if count[k] >= MAX_PLAYS:
                _fail(f"EXP-01-06-14: {keys[k]} was played twice but is back in deck {deck}")
        zones += draw + open_ + recycle + final
    for p, hand in enumerate(g.ext["measures"].hands):
        if len(hand) > HAND_LIMIT:
            _fail(f"EXP-01-06-03, R20: player {p} holds {len(hand)} Measures")
        for k in hand:
            if count[k] >= MAX_PLAYS:
                _fail(f"EXP-01-06-14/15: player {p} holds {keys[k]}, already played twice")
        zones += hand
    if sorted(zones) != list(range(n_cards)):
        dup = sorted(keys[k] for k, v in Counter(zones).items() if v > 1)
        missing = sorted(keys[k] for k in set(range(n_cards)) - set(zones))
        _fail(f"EXP-01-02-16, CORE-01-00-01/06 Measure zones: duplicated {dup}, in no zone {missing}")


def check_influence(g: Game) -> list[int]:
    """Influence zones (CORE-01-00-03) from scratch; returns the recomputed Influence on Board per player."""
    n = g.num_players
    infl = g.infl
    if min(infl) < 0:
        _fail(f"negative Influence on the Board at cell {g.topo.label(infl.index(min(infl)) // n)}")
    centre = g.topo.centre
    if any(infl[centre * n : centre * n + n]):
        _fail(f"CORE-01-08-04: Influence on the Start Committee: {infl[centre * n : centre * n + n]}")
    on_board = [sum(infl[p::n]) for p in range(n)]
    if on_board != g.on_board:
        _fail(f"derived on_board {g.on_board} != recomputed {on_board}")
    cap = expected_cap(g.config)
    for p in range(n):
        if g.supply[p] < 0:
            _fail(f"player {p} has negative supply {g.supply[p]}")
        total = g.supply[p] + on_board[p]
        if total != g.starting[p] + g.created[p]:
            _fail(
                f"CORE-01-00-01: player {p} supply {g.supply[p]} + board {on_board[p]} != "
                f"starting {g.starting[p]} + created {g.created[p]}"
            )
        if total > cap:
            _fail(f"CORE-01-08-01 / ADD56-01-03-00-01 / R12: player {p} holds {total} Influence > cap {cap}")
    return on_board


def check_influence_on_tiles(g: Game) -> None:
    """Influence lies only on Board tiles (CORE-01-04-11/12): full scan of every cell."""
    n = g.num_players
    for c in range(g.topo.num_cells):
        if g.tile_at[c] < 0 and any(g.infl[c * n : c * n + n]):
            _fail(f"Influence on the empty cell {g.topo.label(c)}: {g.infl[c * n : c * n + n]}")


def check_resources(g: Game) -> None:
    """CORE-01-00-04, RULINGS R17, EXP-01-02-17: supplies + Bank + Noise = initial per resort (ECO included);
    nothing negative."""
    nr = g.num_resorts
    if g.config.resorts != _RESORTS[g.config.exp01]:
        _fail(f"EXP-01-01-01, EXP-01-07-04 (Rule Interaction): resorts {g.config.resorts}")
    initial = g.config.bank_stock or 0  # unlimited: the Bank is a net balance starting at 0
    res = g.res
    if min(res) < 0:
        i = res.index(min(res))
        _fail(f"player {i // nr} holds {res[i]} {g.config.resorts[i % nr]}")
    if min(g.noise) < 0:
        _fail(f"negative Noise {g.noise}")
    if g.config.bank_stock is not None and min(g.bank) < 0:
        _fail(f"finite Bank went negative: {g.bank}")
    for r in range(nr):
        total = sum(res[r::nr]) + g.bank[r] + g.noise[r]
        if total != initial:
            _fail(
                f"Resources of {g.config.resorts[r]} not conserved: supplies + bank {g.bank[r]} + "
                f"noise {g.noise[r]} = {total}, expected {initial}"
            )


def check_derived(g: Game) -> None:
    """The engine's derived board indexes (``kind_at``, ``board``, ``frontier``...) match a recomputation."""
    occ = occupied_cells(g)
    cat = g.catalogue
    kind = [cat[g.tile_at[c]].kind for c in occ]
    expect = {
        "board": occ,
        "nonstart": [c for c, k in zip(occ, kind) if k != START],
        "committees": [c for c, k in zip(occ, kind) if k in (COMMITTEE, START)],
        "grassroots": [c for c, k in zip(occ, kind) if k == GRASSROOTS],
        "resort_cells": [c for c, k in zip(occ, kind) if k == RESORT],
        "frontier": placement_cells(g),
    }
    for name, want in expect.items():
        got = getattr(g, name)
        if got != want:
            _fail(f"derived {name} {got} != recomputed {want}")
    kinds = [cat[t].kind if t >= 0 else -1 for t in g.tile_at]
    if kinds != g.kind_at:
        bad = [c for c in range(len(kinds)) if kinds[c] != g.kind_at[c]]
        _fail(f"kind_at disagrees with the catalogue at cells {[g.topo.label(c) for c in bad[:5]]}")
    off = [c for c in occ if not g.topo.on_table[c]]
    if off:
        _fail(f"RULINGS R2: tiles off the table at {[g.topo.label(c) for c in off]}")
    in_frontier = [False] * g.topo.num_cells
    for c in expect["frontier"]:
        in_frontier[c] = True
    if in_frontier != g.in_frontier:
        _fail("derived in_frontier disagrees with the recomputed frontier")


def check_state(g: Game) -> list[int]:
    """All stateless checks of one position; returns the recomputed Influence on Board per player."""
    check_tile_zones(g)
    check_measures(g)
    for name, state in g.ext.items():  # each expansion's own conservation and caps (ExpansionState.check)
        problems = state.check(g)
        if problems:
            _fail(f"{name}: {'; '.join(problems)}")
    on_board = check_influence(g)
    check_resources(g)
    return on_board


# ---------------------------------------------------------------------------- legal actions


def check_legal(g: Game, tracker: Tracker | None = None) -> list[int]:
    """``legal_actions()`` vs ``legal_action_mask()``: agree, sorted, unique, non-empty before the end.

    With a :class:`Tracker` (which knows the history) and the default rules, the legal set is also
    compared with an independent recomputation (:func:`expected_legal`).
    """
    legal = g.legal_actions()
    mask = g.legal_action_mask()
    if mask.shape != (g.num_actions,) or mask.dtype != np.bool_:
        _fail(f"legal_action_mask() has shape {mask.shape} dtype {mask.dtype}, expected ({g.num_actions},) bool")
    if np.flatnonzero(mask).tolist() != legal:
        _fail(f"legal_action_mask() and legal_actions() disagree: {np.flatnonzero(mask).tolist()} vs {legal}")
    if g.is_terminal():
        if legal:
            _fail(f"legal actions after the end: {legal}")
        if g.current_player is not None:
            _fail(f"current_player is {g.current_player} after the end, expected None")
        return legal
    if not legal:
        _fail(f"no legal action in phase {g.phase_name} before the end (RULINGS R7)")
    # legal_actions() is sorted and unique: it equals the mask's flatnonzero (checked above).
    if g.current_player != g.active:
        _fail(f"current_player {g.current_player} != active {g.active} (no out-of-turn decisions in CORE-01)")
    if tracker is not None and tracker.core_default:
        want = expected_legal(g, tracker)
        if want is not None:
            tracker.recomputed += 1
        if want is not None and want != legal:
            extra = [g.action_to_string(a) for a in legal if a not in want]
            missing = [g.action_to_string(a) for a in want if a not in legal]
            _fail(f"legal set in phase {g.phase_name}: engine offers extra {extra}, misses {missing}")
    return legal


def expected_legal(g: Game, tracker: Tracker) -> list[int] | None:
    """The legal set recomputed from the rule text for the default rules (None: not recomputed).

    Uses the tracker's history: the Board as the place-tile events built it, the Influence each player
    moved from supply to Board (R11), the Start Committee formalizations (CORE-01-08-07), the Measure zones,
    the PlayMeasures of this round and the Measure effects in force: every Budget Deficit on the actor adds
    1 Resource of any resort to each Political Action but a Start Committee formalization (BC-26), an unused
    Economic Council of the actor may replace one ECO of a Measure cost (BC-28), Collective Bargaining and
    Debt Brake restrict ConvertResources (BC-24, BC-27), Investment Freeze production Measures (BC-29).
    """
    lay = g.layout
    n = lay.n
    phase = g.phase_name
    if phase == "place_tile":
        return sorted(tracker.frontier)  # RULINGS R3: empty table cells next to a Board tile
    p = g.active
    kinds = tracker.board
    nonstart = tracker.nonstart  # CORE-01-08-04: every Board tile but the Start Committee
    if phase == "move_to":
        src = g.decision.src
        return [MOVE_TO * n + c for c in nonstart if c != src]  # RULINGS R10, BC-13
    eco = eco_index(g)
    bargaining = tracker.in_force("EXP-01-M03")  # EXP-01-06-M03-03 / EXP-01-08-M03-04, BC-24
    dec = g.decision
    if phase in ("pay", "exchange") and isinstance(dec, Resolution) and dec.gain >= 0:
        # A ConvertResources' exchange decision, or (pay) Supplemental Budget's additional Resource for the
        # exchange chosen: the supply after the payment, the ECO after the conversion (EXP-01-06-M10-03/04).
        nr = g.num_resorts
        paid = Counter(dec.paid)
        supply = [v - paid[r] for r, v in enumerate(g.res[p * nr : p * nr + nr])]
        eco_after = supply[eco] + (1 if dec.gain == eco else 0)
        if bargaining and not (tracker.budget_open(p) and tracker.supplement_resorts(supply, eco_after)):
            _fail(f"BC-24, BC-30: an Investment Program exchange offered to {p} under Collective Bargaining")
        if phase == "pay":
            # EXP-01-06-M10-04, BC-30: one Resource of any resort; asked only where two or more resorts can pay.
            if not bargaining or dec.supplements is None:
                _fail(f"BC-30: a pay decision after the gain of a ConvertResources: {dec.describe(g)}")
            want = [lay.pay + r for r in tracker.supplement_resorts(supply, eco_after)]
            return want if len(want) >= 2 else _fail(f"BC-05, BC-30: the additional Resource offers {want}")
    if phase == "pay":
        legal = g.legal_actions()
        if not all(lay.pay <= a < lay.gain for a in legal) or len(legal) < 2:
            _fail(f"BC-05: a pay decision must offer two or more Resources, offers {legal}")
        return None  # each choice is checked by applying it (check_all_legal_apply)
    if phase == "gain":
        # R16: a resort other than the converted pair (the rest of the payment is Budget Deficit surcharges,
        # BC-24); Collective Bargaining: no ECO into another resort.
        pairs = [r for r, v in Counter(g.decision.paid).items() if v >= 2]
        gains = {x for r in pairs for x in range(g.num_resorts) if x != r and not (bargaining and r == eco)}
        return [lay.gain + x for x in sorted(gains)]
    if phase == "exchange":
        # EXP-01-05-03/04, BC-31: 2 ECO into one Resource of another resort (unlimited Bank), or decline; under
        # Collective Bargaining only with Supplemental Budget's additional Resource (checked above, BC-30).
        return [lay.exchange + r for r in range(g.num_resorts) if r != eco] + [lay.decline]
    if phase == "target":
        return tracker.targets(g.decision.card, p)  # BC-20: a choice only where two or more are legal
    if phase != "political":
        return None
    np_, nr = g.num_players, g.num_resorts
    infl = g.infl
    res = g.res[p * nr : p * nr + nr]
    held = sum(res)
    kinds_held = sum(1 for v in res if v >= 1)
    extra = tracker.deficits(p)  # EXP-01-06-M06-04/05: +1 Resource of any resort each (BC-26)
    out: list[int] = []
    if held >= extra:  # Place and Move cost nothing but the surcharges
        if g.supply[p] > 0:  # CORE-01-04-11, CORE-01-08-04
            out += [PLACE * n + c for c in nonstart]
        own = [c for c in nonstart if infl[c * np_ + p] > 0]
        if own and len(nonstart) >= 2:  # CORE-01-04-12, BC-13
            out += [MOVE_FROM * n + c for c in own]
    total = g.supply[p] + sum(infl[p::np_])
    gate = all(d >= s for d, s in zip(tracker.deployed, tracker.starting))  # CORE-01-08-02, R11
    if gate and total < expected_cap(g.config):  # R12
        for c, k in kinds:
            if k == START:
                # CORE-01-08-07/08: once per game; 3 different resorts plus 1 of any resort; no surcharge
                # (CORE-01-08-06A).
                if not tracker.start_formalized[p] and kinds_held >= 3 and held >= 4:
                    out.append(FORMALIZE * n + c)
            elif k == COMMITTEE and kinds_held >= 2 and held >= 2 + extra:  # CORE-01-04-15
                out.append(FORMALIZE * n + c)
    # R16: 2 of one resort -> 1 of another (always available with an unlimited Bank); Collective Bargaining
    # forbids converting ECO into another resort (BC-24); Debt Brake forbids ConvertResources (BC-27).
    pair = any(v >= 2 and not (bargaining and r == eco) for r, v in enumerate(res))
    if pair and held >= 2 + extra and not tracker.in_force("EXP-01-M07"):
        out += [CONVERT * n + c for c, k in kinds if k == GRASSROOTS]
    if g.measures:
        if len(tracker.hands[p]) < HAND_LIMIT and held >= extra:  # EXP-01-06-02/03, R20: any open card
            out += [lay.take + k for k in sorted(tracker.open)]
        # EXP-01-06-18 / EXP-01-06-02 (v1.3): one PlayMeasure per round; EXP-01-06-05 (c) (v1.3): not as the
        # additional action; BC-20: only a card with a legal target whose cost can be paid.
        if tracker.last_play[p] != tracker.round and not tracker.in_extra:
            council = tracker.council_open(p)
            for k in tracker.hands[p]:
                if k in tracker.production_cards and tracker.frozen(p):
                    continue  # EXP-01-06-M09-04 / EXP-01-08-M09-05, BC-29
                if tracker.can_pay_card(k, res, extra, council) and tracker.targets(k, p, any_=True):
                    out.append(lay.play + k)
    if not out:
        out.append(lay.pass_)  # RULINGS R7
    return sorted(out)


def check_action_strings(g: Game, legal: list[int]) -> None:
    """``action_to_string`` / ``string_to_action`` round-trip; strings unique within the decision."""
    seen: dict[str, int] = {}
    for a in legal:
        s = g.action_to_string(a)
        if not isinstance(s, str) or not s:
            _fail(f"action {a} has no string: {s!r}")
        back = g.string_to_action(s)
        if back != a:
            _fail(f"string_to_action({s!r}) = {back}, expected {a}")
        if s in seen:
            _fail(f"actions {seen[s]} and {a} share the string {s!r}")
        seen[s] = a


def check_all_legal_apply(g: Game, legal: list[int], rng: random.Random, limit: int) -> int:
    """Every legal action (a sample of ``limit``, always the first and last) applies on a clone."""
    if len(legal) > limit:
        sample = [legal[0], legal[-1], *rng.sample(legal[1:-1], limit - 2)]
    else:
        sample = legal
    for a in sample:
        c = g.clone()
        try:
            c.apply(a)
        except Exception as exc:  # noqa: BLE001 - any exception is the failure being reported
            _fail(f"legal action {a} ({g.action_to_string(a)!r}) raised {type(exc).__name__}: {exc}")
        check_state(c)
        if not c.is_terminal() and not c.legal_actions():
            _fail(f"after {g.action_to_string(a)!r} no legal action although the game is not over")
    return len(sample)


def check_illegal_rejected(g: Game, legal: list[int], rng: random.Random) -> None:
    """An illegal action raises IllegalActionError and changes nothing."""
    legal_set = set(legal)
    illegal = [a for a in (rng.randrange(g.num_actions) for _ in range(20)) if a not in legal_set]
    if not illegal:
        return
    before = g.to_dict()
    try:
        g.apply(illegal[0])
    except IllegalActionError:
        pass
    else:
        _fail(f"illegal action {illegal[0]} ({g.action_to_string(illegal[0])!r}) was accepted")
    if g.to_dict() != before:
        _fail(f"a rejected illegal action {illegal[0]} changed the state")


def check_clone_independent(g: Game, rng: random.Random, steps: int) -> None:
    """``clone()`` is equal, then independent: playing the clone leaves the original unchanged."""
    before = g.to_dict()
    legal_before = g.legal_actions()
    c = g.clone()
    if c.to_dict() != before:
        _fail("clone().to_dict() differs from the original")
    for _ in range(steps):
        if c.is_terminal():
            break
        la = c.legal_actions()
        c.apply(la[rng.randrange(len(la))])
    if g.to_dict() != before or g.legal_actions() != legal_before:
        _fail("playing a clone changed the original game")


def round_trip(g: Game) -> Game:
    """``to_dict`` -> ``json.dumps`` -> ``json.loads`` -> ``from_dict`` gives an equal state."""
    d = g.to_dict()
    text = json.dumps(d)
    twin = Game.from_dict(json.loads(text))
    d2 = twin.to_dict()
    if d2 != d:
        keys = sorted(k for k in d if d.get(k) != d2.get(k))
        _fail(f"JSON round trip changed the state in {keys}")
    if twin.legal_actions() != g.legal_actions() or twin.current_player != g.current_player:
        _fail("JSON round trip changed the legal actions or the current player")
    return twin


def check_replay(g: Game, seed: int, history: list[int]) -> None:
    """Determinism: the same configuration, seed and actions give the same events and the same state."""
    again = Game.new(g.config, seed)
    for a in history:
        again.apply(a)
    if again.events != g.events or again.rng.state != g.rng.state:
        first = next((i for i, (x, y) in enumerate(zip(again.events, g.events)) if x != y), None)
        _fail(f"a replay of the same seed and actions diverged at event {first}")
    if again.to_dict() != g.to_dict():
        _fail("a replay of the same seed and actions reached a different state")


def check_terminal(g: Game) -> None:
    """CORE-01-09-03/04, RULINGS R8, R9 (EXP-01-00-04: unchanged): the end, the winners, zero-sum returns."""
    if not g.is_terminal() or g.phase_name != "over":
        _fail(f"check_terminal on a running game (phase {g.phase_name})")
    check_legal(g)
    n = g.num_players
    on_board = [sum(g.infl[p::n]) for p in range(n)]
    best = max(on_board)
    winners = [p for p in range(n) if on_board[p] == best]
    if len(winners) > 1 and g.config.tie_break == "resources":  # design option, docs/rulings.md BC-67
        r = g.num_resorts
        held = {p: sum(g.res[p * r : (p + 1) * r]) for p in winners}
        winners = [p for p in winners if held[p] == max(held.values())]
    if g.winners() != winners:
        _fail(f"CORE-01-09-03/04: winners {g.winners()} != players with the most Influence on Board {winners}")
    ret = g.returns()
    if len(ret) != n or abs(sum(ret)) > 1e-9:
        _fail(f"RULINGS R9: returns {ret} must have {n} entries and sum to 0")
    k = len(winners)
    want = [0.0] * n if k == n else [1.0 / k if p in winners else -1.0 / (n - k) for p in range(n)]
    if any(abs(a - b) > 1e-12 for a, b in zip(ret, want)):
        _fail(f"RULINGS R9: returns {ret}, expected {want}")
    last = g.events[-1]
    if last["type"] != "game-over" or last.get("winners") != winners:
        _fail(f"the last event must be game-over with winners {winners}, got {last}")
    # CORE-01-09-01, RULINGS R4/R8: the DrawPile is empty, or (TileRecycling) no tile can be placed.
    if g.draw_pile and not (g.config.tile_recycling and not placement_cells(g)):
        _fail(f"the game ended with {len(g.draw_pile)} tiles in the DrawPile")
    # RULINGS R8, CORE-01-09-02: every completed turn is followed by a Round Settlement.
    ending = turn_ending(g.config)
    types = [e["type"] for e in g.events]
    last_turn = max((i for i, t in enumerate(types) if t in ending), default=-1)
    last_settle = max((i for i, t in enumerate(types) if t == "settlement"), default=-1)
    if last_turn > last_settle:
        _fail("RULINGS R8: turns were taken after the last Round Settlement")
    turns = sum(1 for t in types if t in ending)
    settlements = types.count("settlement")
    if settlements != -(-turns // n):
        _fail(f"CORE-01-07-02 / R8: {turns} turns of {n} players need {-(-turns // n)} settlements, got {settlements}")
    if types.count("place-tile") != turns:
        _fail(f"CORE-01-04-01: {types.count('place-tile')} tile placements for {turns} turns")


# ---------------------------------------------------------------------------- history: the tracker


@dataclass
class Tracked:
    """A Measure effect in force, as the tracker rebuilt it from a measure-effect event."""

    id: str
    owner: int
    until: str
    from_round: int
    data: dict[str, Any]
    #: The round it was created in, the turns completed before its turn, the target's Political Actions.
    round: int
    turns: int
    acts: int = 0


class Tracker:
    """Follows one game from its start and checks what needs its history.

    Its ledgers are rebuilt from the event log alone (``pay``, ``convert``, ``produce``, ``formalize``,
    ``place-influence``, ``move-influence``, ``hotspot-*``, ``labor-market*``, ``investment-exchange``, the
    Measure events) and compared with the state after every step. Its own clock (turns, rounds, settlements)
    decides when each Measure effect must end; an effect that ends early or outlives its window fails.
    """

    def __init__(self, g: Game) -> None:
        self.g = g
        n, nr = g.num_players, g.num_resorts
        self.seen = 0
        self.infl = [0] * (g.topo.num_cells * n)
        self.on_board = [0] * n
        self.cap = expected_cap(g.config)
        self.starting: list[int] = []
        self.supply: list[int] = []
        self.formalized = [0] * n
        self.labor = [0] * n  # v1.3 Labor Market Influence (EXP-01-02-C-04, BC-32)
        self.start_formalized = [0] * n
        self.deployed = [0] * n
        self.res = [0] * (n * nr)
        self.bank = [g.config.bank_stock or 0] * nr
        self.noise = [0] * nr
        self.prev_noise = [0] * nr
        self.resolved: set[int] = set()
        self.hotspots: list[int] = []  # cells of the Hotspots on the Board, from the place-tile events
        self.board: list[tuple[int, int]] = [(g.topo.centre, START)]  # (cell, kind), from the events
        self.board_cells = [g.topo.centre]
        self.nonstart: list[int] = []
        self.occupied = {g.topo.centre}
        # RULINGS R3: the empty table cells next to a Board tile, kept from the place-tile events.
        self.frontier = set(g.topo.neighbors[g.topo.centre])
        self.core_default = is_core_default(g.config)
        self.default_texts = g.config.grassroots_texts == (GrassrootsText(),)
        self.last_pay: dict[str, Any] | None = None
        self.settled_at: int | None = None
        self.types: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.max_total = 0
        # The clock (CORE-01-07-01/02, EXP-01-04-A-01..03).
        self.ending = turn_ending(g.config)
        self.v13 = is_v13(g.config)
        self.turn_player = -1
        self.turns = 0
        self.turn_players: list[int] = []
        self.round = 1
        self.in_round = 0
        self.settling = False  # the round's last turn has ended: its Round Settlement comes next
        self.settlement_round = 0  # the round whose Round Settlement is under way (0: none)
        self.production_over = False
        # Measures (EXP-01-06): zones, counters, effects in force, the Political Action under way.
        keys = [m.key for m in g.measures]
        self.keys = {key: k for k, key in enumerate(keys)}
        self.production_cards = {k for k, key in enumerate(keys) if key in PRODUCTION_CARDS}
        self.draw: set[int] = set()
        self.open: list[int] = []
        self.recycle: set[int] = set()
        self.final: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.counts = [0] * len(keys)
        self.last_play = [0] * n
        self.in_play = -1  # the card between its play-measure and its recycled / final-discard event
        self.refilling = False  # right after a TakeMeasure (BC-21)
        self.not_refilled = False
        self.expect_extra = False  # v1.3: play-measure awaits its additional-action event
        self.in_extra = False  # v1.3: the additional Political Action (EXP-01-06-05 (v1.3))
        self.effects: list[Tracked] = []
        self.settle_effects: list[Tracked] = []
        self.acts = [0] * n
        self.surcharges = 0  # Budget Deficit surcharges logged for the action under way
        self.consumed = 0
        self.council = 0
        self.after_convert: tuple[int, bool] | None = None
        self.ip_cell = -1
        # Supplemental Budget (standalone, BC-30): the additional Resource paid in the ConvertResources under way
        # (player, resort), then the exchange its measure-applied event names.
        self.supplement: tuple[int, int] | None = None
        self.supplemented = -1
        self.cards_played: Counter[str] = Counter()
        self.engine_effects: list[Any] = []
        self.card_costs = [card_cost(g, key) for key in keys]
        self.card_needs = [sorted(Counter(cost).items()) for cost in self.card_costs]
        self.acted = False  # the last batch of events held a Political Action or a Round Settlement
        self.last_play_event: dict[str, Any] = {}
        self.play_turn = 0
        self.recomputed = 0  # positions whose legal set was recomputed (check_legal)
        self.passing = False  # Budget Deficits consumed by a Pass follow its event (BC-26)
        self.process()
        self.check()

    # ------------------------------------------------------------------ Measure helpers
    def in_force(self, key: str) -> bool:
        return any(t.id == key and t.from_round <= self.round for t in self.effects)

    def frozen(self, p: int) -> bool:
        """Investment Freeze on ``p`` (BC-29)."""
        return any(t.id == "EXP-01-M09" and t.data["player"] == p for t in self.effects)

    def deficits(self, p: int) -> int:
        """The Budget Deficits on ``p``: each adds 1 Resource to their next Political Action (BC-26)."""
        return sum(1 for t in self.effects if t.id == "EXP-01-M06" and t.data["target"] == p)

    def budget_open(self, p: int) -> bool:
        """A standalone Supplemental Budget of ``p`` in force (EXP-01-06-M10-02..05, BC-30)."""
        return not self.v13 and any(t.id == "EXP-01-M10" and t.owner == p for t in self.effects)

    def supplement_resorts(self, supply: list[int], eco_after: int) -> list[int]:
        """EXP-01-06-M10-03/04, BC-30: the resorts that can pay Supplemental Budget's additional Resource: held
        after the ConvertResources' payment (``supply``), leaving the 2 ECO of the exchange (``eco_after``: the
        ECO after the conversion)."""
        eco = eco_index(self.g)
        if eco_after < 2:
            return []
        return [r for r, v in enumerate(supply) if v >= 1 and (r != eco or eco_after >= 3)]

    def council_open(self, p: int) -> bool:
        """An Economic Council of ``p`` not used yet (EXP-01-06-M08-07, BC-28)."""
        return any(t.id == "EXP-01-M08" and t.owner == p and not t.data["used"] for t in self.effects)

    def can_pay_card(self, k: int, res: list[int], extra: int, council: bool) -> bool:
        """EXP-01-06-08: the printed cost plus ``extra`` Resources of any resort; with an open Council one
        ECO may be replaced by 2 Resources of different non-ECO resorts (EXP-01-06-M08-04..06) / by 1 non-ECO
        Resource (EXP-01-08-M08-04)."""
        cost = self.card_costs[k]
        if all(res[r] >= v for r, v in self.card_needs[k]) and sum(res) - len(cost) >= extra:
            return True
        eco = eco_index(self.g)
        if not council or eco not in cost:
            return False
        rest = Counter(cost)
        rest[eco] -= 1
        left = [v - rest[r] for r, v in enumerate(res)]
        if min(left) < 0:
            return False
        kinds = sum(1 for r, v in enumerate(left) if r != eco and v > 0)
        need = 1 if self.v13 else 2
        return kinds >= need and sum(left) - need >= extra

    def targets(self, k: int, p: int, any_: bool = False) -> Any:
        """The target actions of card ``k`` for player ``p`` (BC-20, BC-23, BC-25, BC-26, EXP-01-06-M09-02).

        With ``any_``: whether the card can be played at all as far as targets go."""
        g = self.g
        lay = g.layout
        kind = EXP01_CARDS[g.measures[k].key][2]
        if kind == "hotspot":
            out = [lay.target + c for c in sorted(self.hotspots) if c not in self.resolved]
        elif kind == "resort":
            out = [lay.target + c for c, t in self.board if t == RESORT]
        elif kind == "opponent-eco-resort":
            eco, cat = eco_index(g), g.catalogue
            out = []
            for c, t in self.board:
                if t == RESORT and cat[g.tile_at[c]].resort == eco:
                    lead = leaders(g, c)
                    if len(lead) == 1 and lead[0] != p:
                        out.append(lay.target + c)
        elif kind == "player":
            out = [lay.target_player + q for q in range(g.num_players)]
        elif kind == "opponent":
            out = [lay.target_player + q for q in range(g.num_players) if q != p]
        else:
            return True if any_ else []
        return bool(out) if any_ else out

    def _due(self, t: Tracked) -> bool:
        """Whether effect ``t``'s window is over by the tracker's clock."""
        until = t.until
        if until == END_OF_TURN:  # "this turn"
            return self.turns > t.turns
        if until == END_OF_PLAYER_TURN:  # the end of the next turn of data["player"] (BC-28..30)
            q = t.data["player"]
            return any(self.turn_players[i] == q for i in range(t.turns + 1, self.turns))
        if until == END_OF_ROUND:  # "this round" / "next round": until that round's settlement begins
            return self.settling and self.round >= t.from_round
        if until == END_OF_SETTLEMENT:  # "this Round Settlement" (BC-22)
            return self.settlement_round >= t.round
        if until == CONSUMED:  # the target's next Political Action (EXP-01-06-M06-07, BC-26)
            return self.acts[t.data["target"]] > t.acts
        return False  # PERMANENT

    def _check_windows(self) -> None:
        for t in self.effects:
            if self._due(t):
                _fail(
                    f"{t.id} of player {t.owner} ({t.until}, created in round {t.round} after {t.turns} turns, "
                    f"data {t.data}) outlived its window: turns {self.turns}, round {self.round}"
                )

    def _close_settlement(self) -> None:
        if not self.settlement_round:
            return
        self._check_windows()
        for i, t in enumerate(self.effects):  # EXP-02-07-04: usedThisRound resets after the settlement
            if t.data.get("used"):
                self.effects[i] = Tracked(**{**t.__dict__, "data": {**t.data, "used": False}})
        self.settlement_round = 0
        self.round += 1
        self.in_round = 0

    def _end_refill(self) -> None:
        """BC-21: after a TakeMeasure, OpenMeasures are three again unless both piles ran out."""
        self.refilling = False
        if len(self.open) < OPEN_MEASURES and (self.draw or self.recycle or not self.not_refilled):
            _fail(f"EXP-01-06-04..06, BC-21: {len(self.open)} OpenMeasures after a TakeMeasure refill")
        self.not_refilled = False

    def _expire(self, e: dict[str, Any], consumed: bool) -> Tracked:
        for i, t in enumerate(self.effects):
            if t.id != e["id"] or t.owner != e["owner"]:
                continue
            if consumed:
                if t.until == CONSUMED and t.data["target"] == e["target"] == self.turn_player:
                    return self.effects.pop(i)
            elif t.until not in (CONSUMED, PERMANENT) and self._due(t):
                return self.effects.pop(i)
        _fail(f"{e['type']} of {e['id']} (player {e['owner']}) outside its window: in force {self.effects}")

    # ------------------------------------------------------------------ events
    def process(self) -> list[dict[str, Any]]:
        g = self.g
        new = g.events[self.seen :]
        self.seen = len(g.events)
        self.acted = False
        centre = g.topo.centre
        n, nr = g.num_players, g.num_resorts
        cat = g.catalogue
        for i, e in enumerate(new):
            t = e.get("type")
            if not isinstance(t, str) or not isinstance(e.get("rule"), str) or not e["rule"]:
                _fail(f"event without a type and rule: {e}")
            self.types[t] += 1
            self.rules[e["rule"]] += 1
            if self.passing and t != "effect-consumed":
                self.passing = False
            if self.refilling and t not in ("measure-refill", "measure-recycle", "measure-not-refilled"):
                self._end_refill()
            if self.after_convert is not None:
                p, due = self.after_convert
                self.after_convert = None
                if due != (t in ("investment-exchange", "investment-declined")):
                    _fail(f"EXP-01-05-03/04, BC-31: the Investment Program exchange was {'not ' * due}offered to {p}")
            if self.settlement_round and t not in PRODUCTION_EVENTS and t != "effect-expired":
                self._close_settlement()
            if t in POLITICAL:
                self._political(e, t)
                self.acted = True
            if t == "draw" or t.startswith("draw-pile-") or t == "game-over":
                self._check_windows()
                if t == "draw":
                    self.turn_player = e["player"]
                elif t != "game-over" and self.in_round:
                    self.settling = True  # RULINGS R8: the final Round Settlement of a begun round
            elif t == "start-player":
                self.starting = expected_starting(g.config, e["player"])
                self.supply = self.starting[:]
            elif t == "starting-influence":
                if e["amount"] != expected_starting(g.config, g.start_player)[e["player"]]:
                    _fail(f"CORE-01-03-04..06 / VAR-01-02: wrong starting Influence {e}")
            elif t == "place-influence" or t == "hotspot-resolved":
                p, c = e["player"], e["cell"]
                tile = g.tile_at[c]
                if tile <= 0:
                    _fail(f"{t} onto {g.topo.label(c)} which holds {'the Start Committee' if tile == 0 else 'no tile'}")
                if t == "hotspot-resolved" and self.v13 and cat[tile].special == LABOR_MARKET:
                    _fail(f"EXP-01-02-C-04 (v1.3): the Labor Market at {g.topo.label(c)} placed an Influence")
                self.supply[p] -= 1
                self.infl[c * n + p] += 1
                self.on_board[p] += 1
                self.deployed[p] += 1
                if self.supply[p] < 0:
                    _fail(f"CORE-01-04-11 / CORE-01-06-07: player {p} placed an Influence with an empty supply")
            elif t == "move-influence":
                p, src, dst = e["player"], e["src"], e["dst"]
                if src == dst or g.tile_at[dst] <= 0:
                    _fail(f"CORE-01-04-12 / R10: bad Move {e}")
                self.infl[src * n + p] -= 1
                self.infl[dst * n + p] += 1
                if self.infl[src * n + p] < 0:
                    _fail(f"CORE-01-04-12: player {p} moved an Influence they do not have from {g.topo.label(src)}")
            elif t == "pay" and e["rule"] == "EXP-01-06-M10-04":
                self._supplement(e)
            elif t == "pay":
                p = e["player"]
                if self.last_pay is not None or p != self.turn_player:
                    _fail(f"a payment of player {p} outside an action of theirs: {e}")
                for r in e["resorts"]:
                    self.res[p * nr + r] -= 1
                    self.bank[r] += 1
                self.last_pay = e
            elif t == "formalize":
                if e["cell"] == centre:
                    self.start_formalized[e["player"]] += 1
                self.formalized[e["player"]] += 1
                self.supply[e["player"]] += 1
            elif t == "convert":
                p, gain, amount = e["player"], e["gain"], e["amount"]
                self.res[p * nr + gain] += amount
                self.bank[gain] -= amount
                self.after_convert = (p, self._exchange_due(p, gain, amount))
            elif t == "investment-exchange" or t == "investment-declined":
                p = e["player"]
                if self.ip_cell < 0 or leaders(g, self.ip_cell) != [p]:
                    _fail(f"EXP-01-05-06, R15: {t} by player {p}, who does not control the Investment Program")
                # BC-30: under Collective Bargaining only the exchange that Supplemental Budget's additional
                # Resource paid for; otherwise no additional Resource.
                bought = self.supplemented if self.supplement is not None else -1
                if t == "investment-exchange":
                    eco, gain = eco_index(g), e["gain"]
                    if gain == eco or self.in_force("EXP-01-M07") or (self.in_force("EXP-01-M03") != (bought >= 0)):
                        _fail(f"EXP-01-05-03, BC-24, BC-27, BC-30: exchange of 2 ECO into {gain} (paid for: {bought})")
                    if bought >= 0 and bought != gain:
                        _fail(f"EXP-01-06-M10-05, BC-30: Supplemental Budget paid for exchange {bought}, got {gain}")
                    self.res[p * nr + eco] -= 2
                    self.bank[eco] += 2
                    self.res[p * nr + gain] += 1
                    self.bank[gain] -= 1
                    if self.res[p * nr + eco] < 0:
                        _fail(f"EXP-01-05-03: player {p} exchanged 2 ECO they do not hold")
                elif self.supplement is not None:
                    _fail("EXP-01-06-M10-04/05, BC-30: Supplemental Budget paid for an exchange that was declined")
                self.supplement = None
                self.supplemented = -1
            elif t == "place-tile":
                c = e["cell"]
                if c not in self.frontier:
                    _fail(f"CORE-01-04-05, R3: a tile placed on {g.topo.label(c)}, not next to the Board")
                insort(self.board, (c, cat[e["tile"]].kind))
                self.board_cells.append(c)
                insort(self.nonstart, c)
                self.frontier.remove(c)
                self.occupied.add(c)
                self.frontier.update(nb for nb in g.topo.neighbors[c] if nb not in self.occupied)
                if cat[e["tile"]].kind == HOTSPOT:
                    self.hotspots.append(e["cell"])
                if cat[e["tile"]].special == INVESTMENT_PROGRAM:
                    self.ip_cell = e["cell"]
            elif t == "settlement":
                if not self.settling or e["round"] != self.round:
                    _fail(f"CORE-01-07-01/02: settlement of round {e['round']} in round {self.round}")
                self._check_windows()  # "this round" ended before the settlement (EXP-01-04-A-02)
                self.settling = False
                self.settlement_round = self.round
                self.production_over = False
                self.settle_effects = list(self.effects)
                self.acted = True
                self.settled_at = self.seen - len(new) + i
            elif t == "produce":
                if not self.settlement_round or self.production_over:
                    _fail(f"CORE-01-07-03 / BC-22: production outside its Round Settlement: {e}")
                r, share, rest = e["resort"], e["share"], e["noise"]
                if share < 0 or rest < 0 or not e["players"]:
                    _fail(f"CORE-01-06-12..15: malformed production {e}")
                for p in e["players"]:
                    self.res[p * nr + r] += share
                self.bank[r] -= share * len(e["players"]) + rest
                self.noise[r] += rest
            elif t == "production-prohibited":
                _fail(f"CORE-01-06-17: no EXP-01 effect prohibits production (EXP-01-06-M09-05): {e}")
            elif t == "labor-market" or t == "labor-market-capped":
                p, c = e["player"], e["cell"]
                if not self.v13 or cat[g.tile_at[c]].special != LABOR_MARKET:
                    _fail(f"EXP-01-02-11/12, EXP-01-02-C-04: {t} at {g.topo.label(c)}")
                total = self.supply[p] + self.on_board[p]
                if (total >= self.cap) != (t == "labor-market-capped"):
                    _fail(f"EXP-01-02-C-04, R12, BC-32: {t} for player {p} holding {total} Influence")
                if t == "labor-market":
                    self.supply[p] += 1
                    self.labor[p] += 1
            elif t not in POLITICAL and t not in HOTSPOT_EVENTS:
                self._measure_event(e, t)
            if t in HOTSPOT_EVENTS or (t == "measure-applied" and e.get("kind") == "hotspot"):
                c = e["cell"]
                if c in self.resolved:
                    _fail(f"RULINGS R5 / BC-06: Hotspot {g.topo.label(c)} resolved twice")
                self.resolved.add(c)
        if self.refilling:
            self._end_refill()
        if self.expect_extra:
            _fail("EXP-01-06-05 (v1.3): a PlayMeasure without its additional Political Action")
        self._close_settlement()
        self._check_windows()
        return new

    def _exchange_due(self, p: int, gain: int, amount: int) -> bool:
        """EXP-01-05-03/06, BC-31: whether the exchange decision must follow this ConvertResources (the ledger
        holds the Resources after the payment and the gain ``amount`` of ``gain``). Under Collective Bargaining
        only with a standalone Supplemental Budget whose additional Resource can be paid (BC-24, BC-30)."""
        if self.ip_cell < 0 or leaders(self.g, self.ip_cell) != [p]:
            return False
        nr, eco = self.g.num_resorts, eco_index(self.g)
        if not self.in_force("EXP-01-M03"):
            if self.supplement is not None:
                _fail("EXP-01-06-M10-04, BC-30: Supplemental Budget's additional Resource without M03 in force")
            return self.res[p * nr + eco] >= 2  # the unlimited Bank can always give
        if self.supplement is not None:
            return True  # paid for the exchange (checked at the investment-exchange event)
        supply = self.res[p * nr : p * nr + nr]
        supply[gain] -= amount  # the supply after the payment, before the gain
        return self.budget_open(p) and bool(self.supplement_resorts(supply, self.res[p * nr + eco]))

    def _supplement(self, e: dict[str, Any]) -> None:
        """EXP-01-06-M10-03/04, BC-30: Supplemental Budget's additional Resource, paid after the payment of the
        owner's ConvertResources (whose ``pay`` event came first) under Collective Bargaining."""
        p, resorts = e["player"], e["resorts"]
        if (
            p != self.turn_player
            or self.last_pay is None
            or self.supplement is not None
            or len(resorts) != 1
            or not self.budget_open(p)
            or not self.in_force("EXP-01-M03")
        ):
            _fail(f"EXP-01-06-M10-03/04, BC-30: additional payment {e} outside Supplemental Budget's case")
        nr, r = self.g.num_resorts, resorts[0]
        self.res[p * nr + r] -= 1
        self.bank[r] += 1
        if self.res[p * nr + r] < 0:  # the ledger holds the supply after the payment: the gain cannot pay it
            _fail(f"EXP-01-06-M10-03, BC-30: player {p} paid a {r} they did not hold after the payment")
        self.supplement = (p, r)

    def _take_pay(self, p: int) -> list[int]:
        pay = self.last_pay
        if pay is None:
            return []
        if pay["player"] != p:
            _fail(f"an effect of player {p} resolved with the payment of player {pay['player']}")
        self.last_pay = None
        return sorted(pay["resorts"])

    def _political(self, e: dict[str, Any], t: str) -> None:
        """One Political Action: the actor, its payment against its cost, the per-round and turn limits."""
        g = self.g
        p = e["player"]
        if p != self.turn_player:
            _fail(f"{t} by player {p} in the turn of player {self.turn_player}")
        paid = self._take_pay(p)
        if self.supplement is not None and t != "convert":
            _fail(f"EXP-01-06-M10-04, BC-30: Supplemental Budget's additional Resource paid for {t}")
        extra, consumed, council = self.surcharges, self.consumed, self.council
        self.surcharges = self.consumed = self.council = 0
        if council and t != "play-measure":
            _fail(f"EXP-01-06-M08-04, BC-28: Economic Council used for {t} (its cost names no ECO)")
        start = t == "formalize" and e["cell"] == g.topo.centre
        # EXP-01-06-M06-04/05, BC-26: +1 Resource per Budget Deficit consumed by this action (stacking), none
        # via the Start Committee (CORE-01-08-06A); every Budget Deficit on the actor is consumed (checked by
        # the windows).
        if extra != (0 if start else consumed) or (t == "pass" and (paid or consumed)):
            _fail(f"BC-26: {t} of player {p} logged {extra} surcharges and consumed {consumed} Budget Deficits")
        if t in ("place-influence", "move-influence", "take-measure"):
            if len(paid) != extra:
                _fail(f"CORE-01-04-11/12, EXP-01-06-02: {t} costs nothing but {extra} surcharges, paid {paid}")
        elif t == "formalize":
            if start:
                # CORE-01-08-07/08: at most once; 3 different resorts plus 1 more.
                if self.start_formalized[p] >= 1:
                    _fail(f"CORE-01-08-07: player {p} formalized via the Start Committee twice")
                if len(paid) != 4 or len(set(paid)) < 3:  # EXP-01-07-03 (Rule Interaction): ECO counts
                    _fail(f"CORE-01-08-08: Start Committee payment {paid}")
            else:
                if g.catalogue[g.tile_at[e["cell"]]].kind != COMMITTEE:
                    _fail(f"CORE-01-04-14: formalize via a non-Committee at {g.topo.label(e['cell'])}")
                if len(paid) != 2 + extra or len(set(paid)) < 2:
                    _fail(f"CORE-01-04-15: Standard Committee payment {paid} with {extra} surcharges")
        elif t == "convert":
            self._check_convert(e, paid, extra)
        elif t == "play-measure":
            self._play(e, paid, extra, council)
        if t == "take-measure":
            k = self.keys[e["card"]]
            if k not in self.open or len(self.hands[p]) >= HAND_LIMIT:
                _fail(f"EXP-01-06-02/03, R20: player {p} took {e['card']} (open {self.open}, hand {self.hands[p]})")
            self.open.remove(k)
            insort(self.hands[p], k)
            self.refilling = True
        if self.in_extra and t == "play-measure":
            _fail("EXP-01-06-05 (c) (v1.3): the additional Political Action was a PlayMeasure")
        self.acts[p] += 1
        self.passing = t == "pass"
        if t in self.ending:  # the turn is over (CORE-01-04-09, EXP-01-06-04 (v1.3))
            self.turns += 1
            self.turn_players.append(p)
            self.in_round += 1
            self.in_extra = False
            if self.in_round == g.num_players:  # CORE-01-07-01/02
                self.settling = True
        elif self.v13:
            self.expect_extra = True

    def _check_convert(self, e: dict[str, Any], paid: list[int], extra: int) -> None:
        """CORE-01-04-20..22, R16 (a pair into one Resource of another resort); BC-24 (only the Grassroots
        part is converted; Collective Bargaining); BC-27 (Debt Brake)."""
        g = self.g
        p, gain, amount = e["player"], e["gain"], e["amount"]
        if g.catalogue[g.tile_at[e["cell"]]].kind != GRASSROOTS:
            _fail(f"CORE-01-04-21: convert via a non-Grassroots at {g.topo.label(e['cell'])}")
        if self.in_force("EXP-01-M07"):
            _fail(f"EXP-01-06-M07-03 / EXP-01-08-M07-04, BC-27: ConvertResources by {p} during a Debt Brake round")
        if not self.default_texts:
            return
        bargaining = self.in_force("EXP-01-M03")
        bases = [r for r, v in Counter(paid).items() if v >= 2 and r != gain and not (bargaining and r == eco_index(g))]
        if len(paid) != 2 + extra or not bases or amount != 1:
            _fail(f"RULINGS R16, BC-24: ConvertResources paid {paid} ({extra} surcharges), gained {amount} of {gain}")

    def _play(self, e: dict[str, Any], paid: list[int], extra: int, council: int) -> None:
        """EXP-01-06-07..11, -18 / EXP-01-06-02 (v1.3): a PlayMeasure of a hand card, once per round, with a
        legal target, paid in full (plus Budget Deficit surcharges; an Economic Council replacement, BC-28)."""
        g = self.g
        p, key, tile, target = e["player"], e["card"], e["tile"], e["target"]
        k = self.keys[key]
        if k not in self.hands[p]:
            _fail(f"EXP-01-06-07: player {p} played {key}, not in their hand {self.hands[p]}")
        if self.last_play[p] == self.round:
            _fail(f"EXP-01-06-18 / EXP-01-06-02 (v1.3): player {p} played a second Measure in round {self.round}")
        if key in PRODUCTION_CARDS and self.frozen(p):
            _fail(f"EXP-01-06-M09-04, BC-29: player {p} played {key} under an Investment Freeze")
        kind = EXP01_CARDS[key][2]
        if kind in ("player", "opponent"):
            action = g.layout.target_player + target
            ok = tile == -1 and action in self.targets(k, p)
        elif kind:
            ok = target == -1 and g.layout.target + tile in self.targets(k, p)
        else:
            ok = tile == -1 and target == -1
        if not ok:
            _fail(f"BC-20: {key} ({kind or 'no target'}) played by {p} on tile {tile}, player {target}")
        cost = self.card_costs[k]
        if not council:
            ok = len(paid) == len(cost) + extra and _covers(paid, cost)
        else:
            # EXP-01-06-M08-04..06: one ECO replaced by 2 Resources of different non-ECO resorts (standalone)
            # / EXP-01-08-M08-04: by 1 non-ECO Resource (v1.3); only where the standard cost cannot pay (BC-28).
            eco = eco_index(g)
            rest = cost[:]
            rest.remove(eco)
            left = Counter(paid) - Counter(rest)
            non_eco = sum(1 for r, v in left.items() if r != eco and v > 0)
            size = len(cost) + extra + (0 if self.v13 else 1)
            ok = (
                council == 1
                and len(paid) == size
                and _covers(paid, rest)
                and non_eco >= (1 if self.v13 else 2)
                and not _covers(paid, cost)
            )
        if not ok:
            _fail(f"EXP-01-06-08/09: {key} costs {cost}, paid {paid} ({extra} surcharges, Council {council})")
        self.hands[p].remove(k)
        self.last_play[p] = self.round
        self.in_play = k
        self.counts[k] += 1  # EXP-01-06-11, never reset (EXP-01-06-17)
        self.cards_played[key] += 1
        self.last_play_event = e
        self.play_turn = self.turns  # the turn is counted as over at its (standalone) play-measure event

    def _measure_event(self, e: dict[str, Any], t: str) -> None:
        g = self.g
        if t == "measure-setup":
            # EXP-01-03-02/03: the deck shuffled, three OpenMeasures.
            deck = [k for k, m in enumerate(g.measures) if m.deck == e["deck"]]
            self.open = sorted(self.keys[key] for key in e["open"])
            self.draw = set(deck) - set(self.open)
            if len(self.open) != OPEN_MEASURES or not set(self.open) <= set(deck) or e["draw_pile"] != len(self.draw):
                _fail(f"EXP-01-03-02/03: Measure setup {e}")
        elif t == "measure-refill":
            k = self.keys[e["card"]]
            if not self.refilling or k not in self.draw or len(self.open) >= OPEN_MEASURES:
                _fail(f"EXP-01-06-04, BC-21: refill of {e['card']} other than right after a TakeMeasure")
            self.draw.remove(k)
            insort(self.open, k)
        elif t == "measure-not-refilled":
            if not self.refilling or self.draw or self.recycle or e["open"] != len(self.open):
                _fail(f"EXP-01-06-06: OpenMeasures left short with draw {self.draw}, recycle {self.recycle}")
            self.not_refilled = True
        elif t == "measure-recycle":
            # EXP-01-06-05, -16/17, BC-21: only an empty MeasureDrawPile is refilled from the RecyclePile.
            if self.draw or not self.recycle or e["cards"] != len(self.recycle):
                _fail(f"EXP-01-06-16: recycle {e} with draw {self.draw}, recycle {self.recycle}")
            self.draw, self.recycle = self.recycle, set()
        elif t == "measure-recycled" or t == "measure-final-discard":
            k = self.keys[e["card"]]
            final = t == "measure-final-discard"
            if k != self.in_play or (self.counts[k] == MAX_PLAYS) != final:
                _fail(f"EXP-01-06-12/13: {t} of {e['card']} with play counter {self.counts[k]}")
            (self.final.append if final else self.recycle.add)(k)
            self.in_play = -1
        elif t == "measure-effect":
            key = e["card"]
            k = self.keys[key]
            p = e["player"]
            if k != self.in_play or p != self.turn_player:
                _fail(f"EXP-01-06-10: effect of {key} without its PlayMeasure")
            play = self.last_play_event  # the play-measure event carries the target
            until, first, data = expected_window(
                g.config, key, p, self.round, self.play_turn, play["tile"], play["target"]
            )
            if (e["until"], e["from_round"], e["data"]) != (until, first, data):
                _fail(f"{key}: effect {e['until']} from round {e['from_round']} {e['data']}, expected {until} "
                      f"from round {first} {data}")  # fmt: skip
            acts = self.acts[play["target"]] if until == CONSUMED else 0
            self.effects.append(Tracked(key, p, until, first, dict(data), self.round, self.play_turn, acts))
        elif t == "effect-expired" or t == "effect-consumed":
            gone = self._expire(e, t == "effect-consumed")
            if t == "effect-consumed" and not self.passing:
                self.consumed += 1
            elif gone.until == END_OF_SETTLEMENT:
                self.production_over = True
        elif t == "measure-applied":
            self._applied(e)
        elif t == "additional-action":
            if not self.expect_extra or e["player"] != self.turn_player:
                _fail(f"EXP-01-06-05 (v1.3): additional-action without a PlayMeasure (edition v1.3: {self.v13})")
            self.expect_extra = False
            self.in_extra = True
        elif t not in ("setup", "discard", "recycle", "set-aside"):  # set-aside: BC-67
            _fail(f"unknown event type {t!r}: {e}")

    def _applied(self, e: dict[str, Any]) -> None:
        """A Measure modifier at work (measure-applied): only where an effect in force allows it."""
        kind, p = e.get("kind"), self.turn_player
        if kind == "production":
            ok = self.settlement_round and not self.production_over
            ok = ok and any(t.id == e["id"] and t.data.get("cell") == e["cell"] for t in self.settle_effects)
        elif kind == "hotspot":  # EXP-01-06-M01-04, BC-23
            ok = any(t.id == "EXP-01-M01" and t.data["cell"] == e["cell"] for t in self.effects)
        elif "extra" in e:  # EXP-01-06-M06-04/05: the surcharge of a Budget Deficit on the actor
            ok = e["player"] == p and e["extra"] == 1 and e["id"] == "EXP-01-M06"
            ok = ok and any(t.id == "EXP-01-M06" and t.data["target"] == p for t in self.effects)
            self.surcharges += 1
        elif e.get("substitution") == "eco":  # EXP-01-06-M08-04..07, BC-28: once, by the owner
            ok = False
            for i, t in enumerate(self.effects):
                if t.id == "EXP-01-M08" and t.owner == e["owner"] == p and not t.data["used"]:
                    self.effects[i] = Tracked(**{**t.__dict__, "data": {**t.data, "used": True}})
                    ok = True
                    break
            self.council += 1
        elif e.get("substitution") == "imposed-cost":  # BC-30 (v1.3): Supplemental Budget, same Resources
            ok = self.v13 and any(t.id == "EXP-01-M10" and t.owner == e["owner"] == p for t in self.effects)
        elif "exchange" in e:  # EXP-01-06-M10-05, BC-30: the exchange despite Collective Bargaining, paid for
            ok = kind == "convert" and e["id"] == "EXP-01-M10" and e["owner"] == e["player"] == p
            ok = ok and self.budget_open(p) and self.in_force("EXP-01-M03") and e["exchange"] != eco_index(self.g)
            ok = ok and self.supplement is not None and self.supplement[0] == p and self.supplemented < 0
            self.supplemented = e["exchange"]
        else:
            ok = False
        if not ok:
            _fail(f"measure-applied without an effect in force that allows it: {e}; in force {self.effects}")

    # ------------------------------------------------------------------ comparisons
    def check_unchanged(self) -> None:
        """CORE-01-06-00-03: a decision that resolves nothing yet (a Move's source, a payment, a gain or a
        target still open) logs nothing and changes nothing: no Resource, Influence or MeasureCard moved."""
        g = self.g
        if (
            g.res != self.res
            or g.bank != self.bank
            or g.supply != self.supply
            or g.infl != self.infl
            or ("measures" in g.ext and g.ext["measures"].hands != self.hands)
            or g.active_effects != self.engine_effects
        ):
            _fail("a decision without events changed Resources, Influence, hands or effects (CORE-01-06-00-03)")

    def check(self, scope: str = "all") -> list[int]:
        """After a step: tile zones and every Influence count against the event ledger; with ``scope`` "all"
        also the Resources, the clock and the Measures. run_checked_game checks "board" after a step that
        placed a tile and ended no Political Action, "all" after every other step that logged events, and
        :meth:`check_unchanged` after a step that logged none."""
        g = self.g
        check_tile_zones(g, self.board_cells)
        n = g.num_players
        on_board = self.on_board
        if g.infl != self.infl:
            diff = [i for i in range(len(self.infl)) if g.infl[i] != self.infl[i]]
            c, p = divmod(diff[0], n)
            _fail(f"Influence of player {p} on {g.topo.label(c)} is {g.infl[diff[0]]}, events say {self.infl[diff[0]]}")
        if g.supply != self.supply:
            _fail(f"supplies {g.supply} != {self.supply} rebuilt from the events")
        if g.on_board != on_board:
            _fail(f"derived on_board {g.on_board} != {on_board} rebuilt from the events")
        centre = g.topo.centre
        if any(g.infl[centre * n : centre * n + n]):
            _fail(f"CORE-01-08-04: Influence on the Start Committee: {g.infl[centre * n : centre * n + n]}")
        cap = self.cap
        if g.starting != self.starting:
            _fail(f"starting Influence {g.starting} != {self.starting} from the rules")
        for p in range(n):
            total = g.supply[p] + on_board[p]
            # Influence is created only by FormalizeInfluence (CORE-01-04-17, CORE-01-08-10) and, in EXP-01
            # v1.3, by the Labor Market (EXP-01-02-C-04, BC-32).
            if total != self.starting[p] + self.formalized[p] + self.labor[p]:
                _fail(
                    f"player {p} holds {total} Influence, but started with {self.starting[p]}, formalized "
                    f"{self.formalized[p]} times and gained {self.labor[p]} from the Labor Market"
                )
            if total > self.max_total:
                self.max_total = total
                if total > cap:
                    _fail(f"CORE-01-08-01 / ADD56-01-03-00-01 / R12: player {p} holds {total} Influence > cap {cap}")
        if g.created != [f + k for f, k in zip(self.formalized, self.labor)]:
            _fail(f"derived created {g.created} != formalize events {self.formalized} + Labor Market {self.labor}")
        if g.deployed != self.deployed:
            _fail(f"derived deployed {g.deployed} != place/hotspot events {self.deployed} (R11)")
        if g.start_used != [k > 0 for k in self.start_formalized]:
            _fail(f"start_used {g.start_used} != Start Committee formalizations {self.start_formalized}")
        if scope != "all":
            return on_board
        check_resources(g)
        if g.res != self.res or g.bank != self.bank:
            _fail(f"resources {g.res} / bank {g.bank} != rebuilt from the events {self.res} / {self.bank}")
        if g.noise != self.noise:
            # Noise only grows: the ledger only ever adds to it (RULINGS R17).
            _fail(f"noise {g.noise} != rebuilt from the events {self.noise}")
        if any(a < b for a, b in zip(g.noise, self.prev_noise)):
            _fail(f"RULINGS R17: Noise decreased from {self.prev_noise} to {g.noise}")
        self.prev_noise = g.noise[:]
        if g.turn != self.turns or (not g.is_terminal() and (g.round, g.turns_in_round) != (self.round, self.in_round)):
            _fail(f"turn {g.turn} / round {g.round}.{g.turns_in_round} != {self.turns} / {self.round}.{self.in_round}")
        if g.measures:
            self.check_measures()
        return on_board

    def check_measures(self) -> None:
        """The Measure zones, counters, per-round plays and effects in force against the event ledger.

        The ledger holds one deck: EXP-01 is the only expansion implemented (EXP-02/03 raise at setup)."""
        g = self.g
        check_measures(g)
        if len(g.decks) != 1:
            _fail(f"the Measure ledger follows one deck, the game has {g.decks}")
        if (
            sorted(g.ext["measures"].draw[0]) != sorted(self.draw)
            or g.ext["measures"].open[0] != self.open
            or sorted(g.ext["measures"].recycle[0]) != sorted(self.recycle)
            or g.ext["measures"].final[0] != self.final
            or g.ext["measures"].hands != self.hands
        ):
            zones = (
                g.ext["measures"].draw[0],
                g.ext["measures"].open[0],
                g.ext["measures"].recycle[0],
                g.ext["measures"].final[0],
                g.ext["measures"].hands,
            )
            rebuilt = (sorted(self.draw), self.open, sorted(self.recycle), self.final, self.hands)
            _fail(f"Measure zones (draw, open, recycle, final, hands) {zones} != rebuilt from the events {rebuilt}")
        if g.ext["measures"].count != self.counts:
            _fail(f"play counters {g.ext['measures'].count} != play-measure events {self.counts} (EXP-01-06-11, -17)")
        if g.ext["measures"].last_round != self.last_play:
            _fail(
                f"rounds of the last PlayMeasure {g.ext['measures'].last_round} != play-measure events {self.last_play}"
            )
        got = [(a.id, a.owner, a.until, a.from_round, dict(a.data)) for a in g.active_effects]
        want = [(t.id, t.owner, t.until, t.from_round, t.data) for t in self.effects]
        if got != want:
            _fail(f"effects in force {got} != rebuilt from the events {want}")
        self.engine_effects = g.active_effects[:]

    def check_hotspots(self) -> None:
        """RULINGS R5, BC-06: a Hotspot on the Board is resolved exactly when it is fully surrounded."""
        g = self.g
        for c in self.hotspots:
            t = g.tile_at[c]
            if t < 0 or g.catalogue[t].kind != HOTSPOT:
                _fail(f"the Hotspot placed on {g.topo.label(c)} is gone")
            closed = surrounded(g, c)
            if closed != (c in self.resolved) or closed != g.resolved[c]:
                _fail(
                    f"Hotspot {g.topo.label(c)}: surrounded={closed}, resolution event={c in self.resolved}, "
                    f"resolved flag={g.resolved[c]}"
                )

    def check_board_from_events(self) -> None:
        """The Board is what the place-tile events built; resolved flags match the Hotspot events."""
        g = self.g
        board = [(c, g.catalogue[t].kind) for c, t in enumerate(g.tile_at) if t >= 0]
        if board != self.board:
            _fail(f"the Board {board} != built by the place-tile events {self.board}")
        on_board = [c for c, t in enumerate(g.tile_at) if t >= 0 and g.catalogue[t].kind == HOTSPOT]
        if sorted(self.hotspots) != on_board:
            _fail(f"Hotspots on the Board {on_board} != placed by events {sorted(self.hotspots)}")
        flagged = [c for c, r in enumerate(g.resolved) if r]
        if flagged != sorted(self.resolved):
            _fail(f"resolved flags {flagged} != Hotspot resolutions in the events {sorted(self.resolved)}")
        self.check_hotspots()

    def predict_hotspots(self, cell: int) -> list[tuple[str, int, int]]:
        """CORE-01-06-02..07, RULINGS R5, BC-06: what placing the drawn tile on ``cell`` resolves.

        A Budget Compromise on the Hotspot blocks it (EXP-01-06-M01-04, BC-23); the v1.3 Labor Market gives
        its leader 1 new Influence below the cap (EXP-01-02-C-04, R12, BC-32)."""
        g = self.g
        tiles = g.tile_at[:]
        tiles[cell] = g.drawn
        cat = g.catalogue
        candidates = sorted([*self.hotspots, cell] if cat[g.drawn].kind == HOTSPOT else self.hotspots)
        closed = [c for c in candidates if c not in self.resolved and surrounded(g, c, tiles)]
        if cell in closed:
            closed.remove(cell)
            closed.insert(0, cell)  # R5: the placed tile first, then ascending cell order
        supply = g.supply[:]
        held = [s + b for s, b in zip(g.supply, g.on_board)]
        blocked = {t.data["cell"] for t in self.effects if t.id == "EXP-01-M01"}
        out = []
        for h in closed:
            if h in blocked:
                out.append(("blocked", h, -1))
                continue
            lead = leaders(g, h, tiles)  # the new tile holds no Influence, so it gives no Lobbyist bonus
            if len(lead) != 1:
                out.append(("hotspot-no-majority", h, -1))  # BC-06
            elif self.v13 and cat[tiles[h]].special == LABOR_MARKET:
                p = lead[0]
                if held[p] >= self.cap:
                    out.append(("labor-market-capped", h, p))
                else:
                    supply[p] += 1
                    held[p] += 1
                    out.append(("labor-market", h, p))
            elif supply[lead[0]] <= 0:
                out.append(("hotspot-no-supply", h, lead[0]))  # CORE-01-06-07
            else:
                supply[lead[0]] -= 1  # CORE-01-06-05/06
                out.append(("hotspot-resolved", h, lead[0]))
        return out

    def production(self, cell: int, value: int) -> int:
        """The production of a ResortTile in this Round Settlement (BC-22): the printed value (standalone
        Subsidy Reduction -1, floor 0: EXP-01-06-M04-04/05), doubled (Economic Stimulus, EXP-01-06-M02-04),
        output modifiers (Location Debate, v1.3 Subsidy Reduction: -1), floor 0 (EXP-01-04-05, EXP-01-04-B-01..04)."""
        mods = [t for t in self.settle_effects if t.data.get("cell") == cell]
        for t in mods:
            if t.id == "EXP-01-M04" and t.until == PERMANENT:
                value = max(value - 1, 0)
        for t in mods:
            if t.id == "EXP-01-M02":
                value *= 2
        for t in mods:
            if t.id == "EXP-01-M05" or (t.id == "EXP-01-M04" and t.until != PERMANENT):
                value -= 1
        return max(value, 0)

    def modifies_production(self) -> bool:
        return any(t.id in PRODUCTION_CARDS for t in self.settle_effects)

    def check_production(self, new: list[dict[str, Any]]) -> int:
        """CORE-01-06-11..16, BC-01, R14, BC-22: the produce events of a settlement in ``new``, recomputed."""
        g = self.g
        idx = [i for i, e in enumerate(new) if e["type"] == "settlement"]
        if not idx:
            return 0
        got = []
        for e in new[idx[-1] + 1 :]:
            if e["type"] not in PRODUCTION_EVENTS:
                break
            if e["type"] == "produce":
                got.append((e["cell"], e["resort"], e["players"], e["share"], e["noise"]))
        want = []
        for c, t in enumerate(g.tile_at):  # ascending cell order (BC-01)
            if t > 0 and g.catalogue[t].kind == RESORT:
                spec = g.catalogue[t]
                lead = leaders(g, c)
                amount = self.production(c, spec.value)
                if lead and amount > 0:
                    share, rest = divmod(amount, len(lead))
                    want.append((c, spec.resort, lead, share, rest))
        if got != want:
            _fail(f"Round Settlement production {got} != recomputed {want}")
        return len(want)


# ---------------------------------------------------------------------------- one checked game


@dataclass
class Stats:
    """What the checked games covered (to assert that the checks were exercised)."""

    games: int = 0
    decisions: int = 0
    events: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)
    round_trip_phases: Counter[str] = field(default_factory=Counter)
    sample_phases: Counter[str] = field(default_factory=Counter)
    cards_played: Counter[str] = field(default_factory=Counter)
    sampled_actions: int = 0
    productions_checked: int = 0
    modified_productions: int = 0
    hotspot_predictions: int = 0
    legal_recomputed: int = 0
    cap_reached: int = 0
    shared_wins: int = 0
    replays: int = 0

    def merge(self, other: Stats) -> None:
        for name in (
            "games",
            "decisions",
            "sampled_actions",
            "productions_checked",
            "modified_productions",
            "hotspot_predictions",
            "legal_recomputed",
            "cap_reached",
            "shared_wins",
            "replays",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("events", "rules", "round_trip_phases", "sample_phases", "cards_played"):
            getattr(self, name).update(getattr(other, name))


def choose(g: Game, legal: list[int], rng: random.Random, measure_bias: float = 0.0) -> int:
    """A random policy that picks the kind of action first (so rare kinds are played often enough).

    TakeMeasure and PlayMeasure are kinds of their own; with ``measure_bias`` a legal PlayMeasure is
    chosen with that probability (then a TakeMeasure with half of it), so that cards are played,
    recycled and discarded often."""
    if g.phase_name != "political" or len(legal) == 1:
        return legal[rng.randrange(len(legal))]
    lay = g.layout
    n = lay.n
    groups: dict[int, list[int]] = {}
    for a in legal:
        key = a // n if a <= lay.pass_ else (-1 if a < lay.play else -2)  # -1: take, -2: play
        groups.setdefault(key, []).append(a)
    if measure_bias:
        if -2 in groups and rng.random() < measure_bias:
            return groups[-2][rng.randrange(len(groups[-2]))]
        if -1 in groups and rng.random() < measure_bias / 2:
            return groups[-1][rng.randrange(len(groups[-1]))]
    group = groups[sorted(groups)[rng.randrange(len(groups))]]
    return group[rng.randrange(len(group))]


#: The decisions beyond place_tile and political, round-tripped when they come up (one of each per game).
RARE_PHASES = ("move_to", "pay", "gain", "target", "exchange")


def run_checked_game(
    config: RulesConfig,
    seed: int,
    *,
    samples: int = 1,
    sample_limit: int = 12,
    clone_checks: int = 1,
    productions: int = 1,
    round_trips: int = 1,
    twin_window: int = 60,
    rare_round_trip: float = 0.5,
    replay: bool = False,
    policy: Callable[[Game, list[int], random.Random], int] | None = None,
) -> Stats:
    """Play one seeded random game, checking every invariant; expensive checks at a few random points.

    Every step: :meth:`Tracker.process` (the event ledgers and every history check), :meth:`Tracker.check`
    (the state against the ledgers: the Board and Influence after a tile placement, everything after a
    Political Action; nothing may change in a step that logs nothing), :func:`check_legal` with the
    recomputed legal set, and at each tile placement the predicted Hotspot resolutions. At random points:
    with ``round_trips``
    a JSON round trip whose twin then plays in lockstep for ``twin_window`` decisions (same legal actions,
    then the same state: draws included), with probability ``rare_round_trip`` a second round trip at a
    random move_to / pay / gain / target / exchange decision and always at the first target, exchange and
    Measure-pipeline payment decision of the game (where all their options are also applied on clones),
    ``samples`` points where up to ``sample_limit`` legal actions are applied on clones (plus action
    strings, an illegal action, derived indexes), ``clone_checks`` clone-independence checks and
    ``productions`` recomputed Round Settlements (plus the final one and every one a Measure modifies).
    With ``replay`` the whole game is replayed from its seed and must end identically (determinism).

    The play is driven by ``random.Random(seed)`` (with Measures, every third game prefers PlayMeasure
    strongly and another third mildly; ``policy(game, legal, rng)`` replaces that player); the choice
    of check points by a second seeded generator, so the game played does not depend on which checks run.
    A failure is re-raised with the preset, the seed, the step and the last actions.
    """
    play = random.Random(seed)
    pick = random.Random(seed + 1_000_003)
    stats = Stats(games=1)
    g = Game.new(config, seed)
    bias = (0.0, 0.3, 0.7)[seed % 3] if g.measures else 0.0
    history: list[int] = []
    step = 0
    try:
        tracker = Tracker(g)
        n_tiles = len(g.catalogue)
        bound = 8 * n_tiles  # a turn draws >= 1 tile and asks <= 1 + 1 + 4 + 1 decisions
        if g.measures:
            bound *= 2  # v1.3: PlayMeasure, its target and payment, then the additional action
        expected_len = 3 * n_tiles
        rt_step = pick.randrange(expected_len) if round_trips else -1
        sample_steps = {pick.randrange(expected_len) for _ in range(samples)}
        clone_steps = {pick.randrange(expected_len) for _ in range(clone_checks)}
        # A second round trip at the first rare decision from this step (-1: none).
        rare_rt = pick.randrange(expected_len) if pick.random() < rare_round_trip and round_trips else -1
        # The rare decisions of the expansions (a Measure's target, the Investment Program exchange, a payment
        # of the Measure pipeline): the first of each kind in a game is round-tripped and all its options applied.
        firsts = {"target", "exchange", "measure-pay"} if round_trips else set()
        twin_until = -1
        twin_done = False
        settlements_to_check = {pick.randrange(max(1, n_tiles // g.num_players)) for _ in range(productions)}
        settlements = 0
        twin: Game | None = None
        legal = check_legal(g, tracker)
        while not g.is_terminal():
            if step > bound:
                _fail(f"the game did not end within {bound} decisions")
            phase = g.phase_name
            rare = rare_rt >= 0 and step >= rare_rt and phase in RARE_PHASES
            if rare:
                rare_rt = -1
            first = phase
            if phase == "pay" and g.decision.effect not in ("formalize", "convert"):
                first = "measure-pay"
            if first in firsts:
                firsts.remove(first)
                rare = True
                stats.sample_phases[first] += 1
                stats.sampled_actions += check_all_legal_apply(g, legal, pick, sample_limit)
            if step == rt_step or rare:
                stats.round_trip_phases[first] += 1
                if twin is None and not twin_done:
                    twin = round_trip(g)
                    twin_until = step + twin_window
                else:
                    round_trip(g)
            if step in sample_steps:
                stats.sample_phases[phase] += 1
                check_action_strings(g, legal)
                stats.sampled_actions += check_all_legal_apply(g, legal, pick, sample_limit)
                check_illegal_rejected(g, legal, pick)
                check_state(g)
                check_derived(g)
                check_influence_on_tiles(g)
                tracker.check_board_from_events()
            if step in clone_steps:
                check_clone_independent(g, pick, pick.randrange(1, 40))
            a = choose(g, legal, play, bias) if policy is None else policy(g, legal, play)
            history.append(a)
            predicted = tracker.predict_hotspots(a) if phase == "place_tile" else None
            g.apply(a)
            step += 1
            new = tracker.process()
            if not new:
                tracker.check_unchanged()
            else:
                tracker.check("all" if tracker.acted or g.is_terminal() else "board")
            if predicted is not None:
                got = [
                    (e["type"], e["cell"], e.get("player", -1))
                    if e["type"] != "measure-applied"
                    else ("blocked", e["cell"], -1)
                    for e in new
                    if e["type"] in HOTSPOT_EVENTS or (e["type"] == "measure-applied" and e.get("kind") == "hotspot")
                ]
                if got != predicted:
                    _fail(f"Hotspot resolution after placing on {g.topo.label(a)}: {got}, expected {predicted}")
                stats.hotspot_predictions += len(predicted)
            if tracker.settled_at is not None:
                modified = tracker.modifies_production()
                if settlements in settlements_to_check or g.is_terminal() or modified:
                    stats.productions_checked += tracker.check_production(new)
                    stats.modified_productions += modified
                settlements += 1
                tracker.settled_at = None
            legal = check_legal(g, tracker)
            if twin is not None:
                twin.apply(a)
                if twin.is_terminal() != g.is_terminal() or twin.legal_actions() != legal:
                    _fail("the JSON round-trip twin no longer offers the same legal actions")
                if step >= twin_until or g.is_terminal():
                    if twin.to_dict() != g.to_dict():
                        _fail("the JSON round-trip twin reached a different state (draws or results differ)")
                    twin = None
                    twin_done = True
        check_terminal(g)
        check_state(g)
        check_derived(g)
        check_influence_on_tiles(g)
        tracker.check_board_from_events()
        if round_trips and not twin_done:
            round_trip(g)  # the game ended before the chosen point: round-trip the final state
            stats.round_trip_phases["over"] += 1
        if replay:
            check_replay(g, seed, history)
            stats.replays += 1
    except InvariantError as exc:
        raise InvariantError(
            f"preset={config.name} seed={seed} step={step} phase={g.phase_name}: {exc}\n"
            f"  last actions: {[g.action_to_string(a) for a in history[-8:]]}\n"
            f"  reproduce: run_checked_game(config, {seed}) with config {config.name!r}"
        ) from exc
    except Exception as exc:
        raise InvariantError(
            f"preset={config.name} seed={seed} step={step} phase={g.phase_name}: engine raised "
            f"{type(exc).__name__}: {exc}\n  last actions: {[g.action_to_string(a) for a in history[-8:]]}"
        ) from exc
    stats.decisions = step
    stats.events = tracker.types
    stats.rules = tracker.rules
    stats.cards_played = tracker.cards_played
    stats.legal_recomputed = tracker.recomputed
    stats.cap_reached = int(tracker.max_total == expected_cap(config))
    stats.shared_wins = int(len(g.winners()) > 1)
    return stats
