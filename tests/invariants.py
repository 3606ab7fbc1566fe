"""Reusable invariant checks for the CORE-01 engine (OpenSpiel ``random_sim_test`` style).

Every check recomputes what it needs from the raw zones (``tile_at``, ``infl``, ``supply``, ``res``,
``bank``, ``noise``, the tile piles) or from the event log; none trusts the engine's own counters
(``on_board``, ``frontier``, ``created``, ``deployed``...) except to compare them with a recomputation.

* :func:`check_state` -- stateless checks of one position: tile zones, Influence and Resource
  conservation, caps, nothing negative, nothing on the Start Committee.
* :func:`check_derived` -- the engine's derived indexes (``kind_at``, ``board``, ``frontier``...) recomputed.
* :func:`check_legal` -- ``legal_actions()`` against ``legal_action_mask()`` and, for the core rules,
  against an independent recomputation of the legal set (RULINGS R3, R7, R10, R11, R12).
* :class:`Tracker` -- follows one game step by step and checks what needs history: Influence only
  created by FormalizeInfluence, a ledger of every Influence and Resource rebuilt from the events,
  Noise never decreasing, the Start Committee used at most once per player, Hotspots resolving once and
  exactly when fully surrounded, Round Settlement production.
* :func:`check_all_legal_apply`, :func:`check_action_strings`, :func:`check_clone_independent`,
  :func:`round_trip`, :func:`check_terminal` -- the expensive checks, run at a few random points.
* :func:`run_checked_game` -- plays one seeded random game with all of the above.

Every failure raises :class:`InvariantError` (an ``AssertionError``) whose message names the check.
"""

from __future__ import annotations

import json
import random
from bisect import insort
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from bc_env.rules import Game, IllegalActionError, RulesConfig
from bc_env.rules.actions import CONVERT, FORMALIZE, MOVE_FROM, MOVE_TO, PLACE
from bc_env.rules.components import COMMITTEE, GRASSROOTS, HOTSPOT, LOBBYIST, RESORT, START
from bc_env.rules.config import GrassrootsText

PRESETS = ("core-2p", "core-3p", "core-4p", "core-5p", "core-6p", "core-4p-variants", "core-4p-hex")

#: Events after which a turn is over (CORE-01-04-09, RULINGS R7).
TURN_ENDING = frozenset({"place-influence", "move-influence", "formalize", "convert", "pass"})


class InvariantError(AssertionError):
    """An invariant of the rules or of the engine API does not hold."""


def _fail(msg: str) -> NoReturn:
    raise InvariantError(msg)


# ---------------------------------------------------------------------------- the catalogue


def expected_tile_counts(config: RulesConfig) -> Counter[tuple[str, int, str, int]]:
    """(kind name, resort index, name, value) -> count, straight from the rule text.

    CORE-01-02-01 (one Start Committee), CORE-01-02-10..17, ADD56-01-01-02..15.
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
    return counts


def expected_starting(config: RulesConfig, start_player: int) -> list[int]:
    """CORE-01-03-04..06, ADD56-01-02-01/02, VAR-01-02-02/03."""
    base = {2: 4, 3: 3, 4: 2, 5: 2, 6: 2}[config.players]
    return [base - (1 if config.first_player_handicap and p == start_player else 0) for p in range(config.players)]


def expected_cap(config: RulesConfig) -> int:
    """CORE-01-08-01 (7), ADD56-01-03-00-01 (8 with 5-6 players), RULINGS R12."""
    return 8 if config.players >= 5 else 7


def is_core_default(config: RulesConfig) -> bool:
    """True when the independent legal-set recomputation below applies (the rulings' defaults)."""
    return (
        config.bank_stock is None
        and not config.action_tiles_require_control
        and config.grassroots_texts == (GrassrootsText(),)
        and len(config.resorts) == 3
    )


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
    """CORE-01-05-03A, -04, BC-11: physical Influence plus +1 per adjacent owned Lobbyist."""
    n = g.num_players
    tot = g.infl[cell * n : cell * n + n]
    tiles = g.tile_at if tile_at is None else tile_at
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
    zones = g.draw_pile + g.discard + board + drawn
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
    """CORE-01-00-04, RULINGS R17: supplies + Bank + Noise = initial per resort; nothing negative."""
    nr = g.num_resorts
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
    on_board = check_influence(g)
    check_resources(g)
    return on_board


# ---------------------------------------------------------------------------- legal actions


def check_legal(g: Game, tracker: Tracker | None = None) -> list[int]:
    """``legal_actions()`` vs ``legal_action_mask()``: agree, sorted, unique, non-empty before the end.

    With a :class:`Tracker` (which knows the history) and the default core rules, the legal set is
    also compared with an independent recomputation (:func:`expected_legal`).
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
    if legal != sorted(set(legal)):
        _fail(f"legal_actions() not sorted and unique: {legal}")
    if g.current_player != g.active:
        _fail(f"current_player {g.current_player} != active {g.active} (no out-of-turn decisions in CORE-01)")
    if tracker is not None and tracker.core_default:
        want = expected_legal(g, tracker)
        if want is not None and want != legal:
            extra = [g.action_to_string(a) for a in legal if a not in want]
            missing = [g.action_to_string(a) for a in want if a not in legal]
            _fail(f"legal set in phase {g.phase_name}: engine offers extra {extra}, misses {missing}")
    return legal


def expected_legal(g: Game, tracker: Tracker) -> list[int] | None:
    """The legal set recomputed from the rule text for the default core rules (None: not recomputed).

    Uses the tracker's history: the Board as the place-tile events built it, the Influence each player
    moved from supply to Board (R11) and the Start Committee formalizations (CORE-01-08-07).
    """
    lay = g.layout
    n = lay.n
    phase = g.phase_name
    if phase == "place_tile":
        tile_at, nbs = g.tile_at, g.topo.neighbors  # RULINGS R3: empty table cells next to a Board tile
        return sorted({nb for c, _ in tracker.board for nb in nbs[c] if tile_at[nb] < 0})
    kinds = tracker.board
    nonstart = [c for c, k in kinds if k != START]
    if phase == "move_to":
        src = g.pending["from"]
        return [MOVE_TO * n + c for c in nonstart if c != src]  # RULINGS R10, BC-13
    if phase == "pay":
        if not all(lay.pay <= a < lay.gain for a in g.legal_actions()):
            _fail(f"a pay decision offers non-pay actions {g.legal_actions()}")
        return None  # each choice is checked by applying it (check_all_legal_apply)
    if phase == "gain":
        paid = g.pending["paid"]
        return [lay.gain + r for r in range(g.num_resorts) if r not in paid]  # R16: a different resort
    if phase != "political":
        return None
    p, np_ = g.active, g.num_players
    infl = g.infl
    out: list[int] = []
    if g.supply[p] > 0:  # CORE-01-04-11, CORE-01-08-04
        out += [PLACE * n + c for c in nonstart]
    own = [c for c in nonstart if infl[c * np_ + p] > 0]
    if own and len(nonstart) >= 2:  # CORE-01-04-12, BC-13
        out += [MOVE_FROM * n + c for c in own]
    total = g.supply[p] + sum(infl[p::np_])
    gate = all(d >= s for d, s in zip(tracker.deployed, tracker.starting))  # CORE-01-08-02, R11
    res = g.res[p * 3 : p * 3 + 3]
    if gate and total < expected_cap(g.config):  # R12
        for c, k in kinds:
            if k == START:
                # CORE-01-08-07/08: once per game; 3 different resorts plus 1 of any resort.
                if not tracker.start_formalized[p] and min(res) >= 1 and sum(res) >= 4:
                    out.append(FORMALIZE * n + c)
            elif k == COMMITTEE and sum(1 for v in res if v >= 1) >= 2:  # CORE-01-04-15
                out.append(FORMALIZE * n + c)
    if max(res) >= 2:  # R16: 2 of one resort -> 1 of another (always available with an unlimited Bank)
        out += [CONVERT * n + c for c, k in kinds if k == GRASSROOTS]
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


def check_terminal(g: Game) -> None:
    """CORE-01-09-03/04, RULINGS R8, R9: the end, the winners and the zero-sum returns."""
    if not g.is_terminal() or g.phase_name != "over":
        _fail(f"check_terminal on a running game (phase {g.phase_name})")
    check_legal(g)
    n = g.num_players
    on_board = [sum(g.infl[p::n]) for p in range(n)]
    best = max(on_board)
    winners = [p for p in range(n) if on_board[p] == best]
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
    types = [e["type"] for e in g.events]
    last_turn = max((i for i, t in enumerate(types) if t in TURN_ENDING), default=-1)
    last_settle = max((i for i, t in enumerate(types) if t == "settlement"), default=-1)
    if last_turn > last_settle:
        _fail("RULINGS R8: turns were taken after the last Round Settlement")
    turns = sum(1 for t in types if t in TURN_ENDING)
    settlements = types.count("settlement")
    if settlements != -(-turns // n):
        _fail(f"CORE-01-07-02 / R8: {turns} turns of {n} players need {-(-turns // n)} settlements, got {settlements}")
    if types.count("place-tile") != turns:
        _fail(f"CORE-01-04-01: {types.count('place-tile')} tile placements for {turns} turns")


# ---------------------------------------------------------------------------- history: the tracker


class Tracker:
    """Follows one game from its start and checks what needs its history.

    Its ledgers are rebuilt from the event log alone (``pay``, ``convert``, ``produce``, ``formalize``,
    ``place-influence``, ``move-influence``, ``hotspot-*``) and compared with the state after every step.
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
        self.start_formalized = [0] * n
        self.deployed = [0] * n
        self.res = [0] * (n * nr)
        self.bank = [g.config.bank_stock or 0] * nr
        self.noise = [0] * nr
        self.prev_noise = [0] * nr
        self.resolved: set[int] = set()
        self.hotspots: list[int] = []  # cells of the Hotspots on the Board, from the place-tile events
        self.board: list[tuple[int, int]] = [(g.topo.centre, START)]  # (cell, kind), from the events
        self.core_default = is_core_default(g.config)
        self.last_pay: dict[str, Any] | None = None
        self.settled_at: int | None = None
        self.types: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.max_total = 0
        self.process()
        self.check()

    # ------------------------------------------------------------------ events
    def process(self) -> list[dict[str, Any]]:
        g = self.g
        new = g.events[self.seen :]
        self.seen = len(g.events)
        centre = g.topo.centre
        n, nr = g.num_players, g.num_resorts
        for i, e in enumerate(new):
            t = e.get("type")
            if not isinstance(t, str) or not isinstance(e.get("rule"), str) or not e["rule"]:
                _fail(f"event without a type and rule: {e}")
            self.types[t] += 1
            self.rules[e["rule"]] += 1
            if t == "start-player":
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
            elif t == "pay":
                p = e["player"]
                for r in e["resorts"]:
                    self.res[p * nr + r] -= 1
                    self.bank[r] += 1
                self.last_pay = e
            elif t == "formalize":
                p, c = e["player"], e["cell"]
                paid = self._take_pay(p)
                if c == centre:
                    # CORE-01-08-07/08: at most once; 3 different resorts plus 1 more.
                    self.start_formalized[p] += 1
                    if self.start_formalized[p] > 1:
                        _fail(f"CORE-01-08-07: player {p} formalized via the Start Committee twice")
                    if len(paid) != 4 or len(set(paid)) != 3:
                        _fail(f"CORE-01-08-08: Start Committee payment {paid}")
                else:
                    if g.catalogue[g.tile_at[c]].kind != COMMITTEE:
                        _fail(f"CORE-01-04-14: formalize via a non-Committee at {g.topo.label(c)}")
                    if len(paid) != 2 or len(set(paid)) != 2:
                        _fail(f"CORE-01-04-15: Standard Committee payment {paid}")
                self.formalized[p] += 1
                self.supply[p] += 1
            elif t == "convert":
                p, gain, amount = e["player"], e["gain"], e["amount"]
                paid = self._take_pay(p)
                if g.catalogue[g.tile_at[e["cell"]]].kind != GRASSROOTS:
                    _fail(f"CORE-01-04-21: convert via a non-Grassroots at {g.topo.label(e['cell'])}")
                if is_core_default(g.config) and (len(paid) != 2 or paid[0] != paid[1] or gain in paid or amount != 1):
                    _fail(f"RULINGS R16: ConvertResources paid {paid} and gained {amount} of {gain}")
                self.res[p * nr + gain] += amount
                self.bank[gain] -= amount
            elif t == "place-tile":
                insort(self.board, (e["cell"], g.catalogue[e["tile"]].kind))
                if g.catalogue[e["tile"]].kind == HOTSPOT:
                    self.hotspots.append(e["cell"])
            elif t == "settlement":
                self.settled_at = self.seen - len(new) + i
            elif t == "produce":
                r, share, rest = e["resort"], e["share"], e["noise"]
                if share < 0 or rest < 0 or not e["players"]:
                    _fail(f"CORE-01-06-12..15: malformed production {e}")
                for p in e["players"]:
                    self.res[p * nr + r] += share
                self.bank[r] -= share * len(e["players"]) + rest
                self.noise[r] += rest
            if t.startswith("hotspot-"):
                c = e["cell"]
                if c in self.resolved:
                    _fail(f"RULINGS R5 / BC-06: Hotspot {g.topo.label(c)} resolved twice")
                self.resolved.add(c)
        return new

    def _take_pay(self, p: int) -> list[int]:
        pay = self.last_pay
        if pay is None or pay["player"] != p:
            _fail(f"an effect of player {p} resolved without its payment event")
        self.last_pay = None
        return list(pay["resorts"])

    # ------------------------------------------------------------------ comparisons
    def check(self) -> list[int]:
        """Every step: tile zones, Resources, and every Influence count against the event ledger."""
        g = self.g
        check_tile_zones(g, [c for c, _ in self.board])
        check_resources(g)
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
            # Influence is created only by FormalizeInfluence (CORE-01-04-17, CORE-01-08-10).
            if total != self.starting[p] + self.formalized[p]:
                _fail(
                    f"player {p} holds {total} Influence, but started with {self.starting[p]} and "
                    f"formalized {self.formalized[p]} times"
                )
            if total > self.max_total:
                self.max_total = total
                if total > cap:
                    _fail(f"CORE-01-08-01 / ADD56-01-03-00-01 / R12: player {p} holds {total} Influence > cap {cap}")
        if g.created != self.formalized:
            _fail(f"derived created {g.created} != formalize events {self.formalized}")
        if g.deployed != self.deployed:
            _fail(f"derived deployed {g.deployed} != place/hotspot events {self.deployed} (R11)")
        if g.start_used != [k > 0 for k in self.start_formalized]:
            _fail(f"start_used {g.start_used} != Start Committee formalizations {self.start_formalized}")
        if g.res != self.res or g.bank != self.bank:
            _fail(f"resources {g.res} / bank {g.bank} != rebuilt from the events {self.res} / {self.bank}")
        if g.noise != self.noise:
            # Noise only grows: the ledger only ever adds to it (RULINGS R17).
            _fail(f"noise {g.noise} != rebuilt from the events {self.noise}")
        if any(a < b for a, b in zip(g.noise, self.prev_noise)):
            _fail(f"RULINGS R17: Noise decreased from {self.prev_noise} to {g.noise}")
        self.prev_noise = g.noise[:]
        return on_board

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
        """CORE-01-06-02..07, RULINGS R5, BC-06: what placing the drawn tile on ``cell`` resolves."""
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
        out = []
        for h in closed:
            lead = leaders(g, h, tiles)  # the new tile holds no Influence, so it gives no Lobbyist bonus
            if len(lead) != 1:
                out.append(("hotspot-no-majority", h, -1))  # BC-06
            elif supply[lead[0]] <= 0:
                out.append(("hotspot-no-supply", h, lead[0]))  # CORE-01-06-07
            else:
                supply[lead[0]] -= 1  # CORE-01-06-05/06
                out.append(("hotspot-resolved", h, lead[0]))
        return out

    def check_production(self, new: list[dict[str, Any]]) -> int:
        """CORE-01-06-11..16, BC-01, R14: the produce events of a settlement in ``new``, recomputed."""
        g = self.g
        idx = [i for i, e in enumerate(new) if e["type"] == "settlement"]
        if not idx:
            return 0
        got = []
        for e in new[idx[-1] + 1 :]:
            if e["type"] != "produce":
                break
            got.append((e["cell"], e["resort"], e["players"], e["share"], e["noise"]))
        want = []
        for c, t in enumerate(g.tile_at):  # ascending cell order (BC-01)
            if t > 0 and g.catalogue[t].kind == RESORT:
                spec = g.catalogue[t]
                lead = leaders(g, c)
                if lead:
                    share, rest = divmod(spec.value, len(lead))
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
    sampled_actions: int = 0
    productions_checked: int = 0
    hotspot_predictions: int = 0
    cap_reached: int = 0
    shared_wins: int = 0

    def merge(self, other: Stats) -> None:
        for name in ("games", "decisions", "sampled_actions", "productions_checked", "hotspot_predictions"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cap_reached += other.cap_reached
        self.shared_wins += other.shared_wins
        self.events.update(other.events)
        self.rules.update(other.rules)
        self.round_trip_phases.update(other.round_trip_phases)
        self.sample_phases.update(other.sample_phases)


def choose(g: Game, legal: list[int], rng: random.Random) -> int:
    """A random policy that picks the kind of action first (so rare kinds are played often enough)."""
    if g.phase_name != "political" or len(legal) == 1:
        return legal[rng.randrange(len(legal))]
    n = g.layout.n
    groups: dict[int, list[int]] = {}
    for a in legal:
        groups.setdefault(a // n, []).append(a)
    group = groups[sorted(groups)[rng.randrange(len(groups))]]
    return group[rng.randrange(len(group))]


def run_checked_game(
    config: RulesConfig,
    seed: int,
    *,
    samples: int = 1,
    sample_limit: int = 12,
    clone_checks: int = 1,
    productions: int = 1,
    twin_window: int = 60,
    rare_round_trip: float = 0.5,
) -> Stats:
    """Play one seeded random game, checking every invariant; expensive checks at a few random points.

    Every step: :meth:`Tracker.check` (all stateless checks plus the event ledgers), :func:`check_legal`,
    and at each tile placement the predicted Hotspot resolutions. At random points:
    a JSON round trip whose twin then plays in lockstep for ``twin_window`` decisions (same legal actions,
    then the same state: draws included), with probability ``rare_round_trip`` a second round trip at a
    random move_to / pay / gain decision, ``samples`` points
    where up to ``sample_limit`` legal actions are applied on clones (plus action strings, an illegal
    action, derived indexes), ``clone_checks`` clone-independence checks and ``productions`` recomputed
    Round Settlements (plus the final one).

    The play is driven by ``random.Random(seed)``; the choice of check points by a second seeded
    generator, so the game played does not depend on which checks run. A failure is re-raised with
    the preset, the seed, the step and the last actions.
    """
    play = random.Random(seed)
    pick = random.Random(seed + 1_000_003)
    stats = Stats(games=1)
    g = Game.new(config, seed)
    history: list[int] = []
    step = 0
    try:
        tracker = Tracker(g)
        n_tiles = len(g.catalogue)
        bound = 8 * n_tiles  # a turn draws >= 1 tile and asks <= 1 + 1 + 4 + 1 decisions
        expected_len = 3 * n_tiles
        rt_step = pick.randrange(expected_len)
        sample_steps = {pick.randrange(expected_len) for _ in range(samples)}
        clone_steps = {pick.randrange(expected_len) for _ in range(clone_checks)}
        # A second round trip at the first move_to / pay / gain decision from this step (-1: none).
        rare_rt = pick.randrange(expected_len) if pick.random() < rare_round_trip else -1
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
            rare = rare_rt >= 0 and step >= rare_rt and phase in ("move_to", "pay", "gain")
            if step == rt_step or rare:
                stats.round_trip_phases[phase] += 1
                if twin is None and not twin_done:
                    twin = round_trip(g)
                    twin_until = step + twin_window
                else:
                    round_trip(g)
                if rare:
                    rare_rt = -1
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
            a = choose(g, legal, play)
            history.append(a)
            predicted = tracker.predict_hotspots(a) if phase == "place_tile" else None
            g.apply(a)
            step += 1
            new = tracker.process()
            tracker.check()
            if predicted is not None:
                got = [(e["type"], e["cell"], e.get("player", -1)) for e in new if e["type"].startswith("hotspot-")]
                if got != predicted:
                    _fail(f"Hotspot resolution after placing on {g.topo.label(a)}: {got}, expected {predicted}")
                stats.hotspot_predictions += len(predicted)
            if tracker.settled_at is not None:
                if settlements in settlements_to_check or g.is_terminal():
                    stats.productions_checked += tracker.check_production(new)
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
        if not twin_done:
            round_trip(g)  # the game ended before the chosen point: round-trip the final state
            stats.round_trip_phases["over"] += 1
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
    stats.cap_reached = int(tracker.max_total == expected_cap(config))
    stats.shared_wins = int(len(g.winners()) > 1)
    return stats
