"""The whole game state as plain JSON (schema ``balance-control-state``, version 1).

The schema is documented in ``docs/state-schema.md``. ``game_from_dict`` validates everything it
reads and raises :class:`StateError` naming the bad field; it never returns a game that breaks the
conservation rules (CORE-01-00-01, -06) or the caps.
"""

from __future__ import annotations

import math
from typing import Any

from . import effects
from .components import HOTSPOT, START
from .config import RulesConfig
from .decisions import FRAME_TYPES, PHASE_NAMES, PLACE_TILE, POLITICAL, Frame, MoveTo, Resolution, Settlement
from .effects import PLACE_TILE as PLACE_TILE_EFFECT
from .effects import ActiveEffect
from .errors import BalanceControlError, ConfigError, StateError
from .expansions.exp01 import exchange_options, supplement_options
from .expansions.measure_system import Target, play_targets, zones
from .expansions.measures import HAND_LIMIT, MAX_PLAYS, NO_TARGET, PLAYER_TARGETS, T_RESORT_TYPE, TARGET_RESORT_BLOCK
from .game import Game
from .jsonread import get as _get
from .jsonread import get_bool as _bool
from .jsonread import get_int as _int
from .jsonread import get_list as _list
from .jsonread import is_text as _is_text
from .jsonread import keys as _keys
from .rng import Rng

SCHEMA = "balance-control-state"
VERSION = 1


def game_to_dict(g: Game) -> dict[str, Any]:
    topo, resorts = g.topo, g.config.resorts
    np_ = g.num_players
    board = []
    for c in g.board:
        entry: dict[str, Any] = {
            "cell": topo.label(c),
            "tile": g.tile_at[c],
            "influence": g.infl[c * np_ : c * np_ + np_],
        }
        if g.kind_at[c] == HOTSPOT:
            entry["resolved"] = g.resolved[c]
        board.append(entry)
    players = []
    for p in range(np_):
        players.append(
            {
                "supply": g.supply[p],
                "starting": g.starting[p],
                "created": g.created[p],
                "deployed": g.deployed[p],
                "resources": dict(zip(resorts, g.resources_of(p))),
                "start_committee_used": g.start_used[p],
            }
        )
    top = g.decision
    # an expansion's decision (no schema v1 phase) is written as a frame of the ``stack``, with no pending record
    pending = _pending_to_json(g, top) if top is None or top.kind in PHASE_NAMES else None
    # The frames below the pending decision (and the decision itself if schema v1 has no phase for it): written
    # only when there are any, so a state of the core game or EXP-01 is exactly schema v1.
    stack = g.stack
    below = stack[:-1] if stack and stack[-1].kind in PHASE_NAMES else stack
    # CORE-01-00-03/04: Influence lives in supplies and on the Board; Resources in supplies, Bank and Noise.
    out = {
        "schema": SCHEMA,
        "version": VERSION,
        "config": g.config.to_dict(),
        "rng": g.rng.to_json(),
        "round": g.round,
        "turns_in_round": g.turns_in_round,
        "turn": g.turn,
        "start_player": g.start_player,
        "active": g.active,
        "phase": g.phase_name,
        "drawn_tile": g.drawn if g.drawn >= 0 else None,
        "draw_pile": list(g.draw_pile),
        "discard": list(g.discard),
        "board": board,
        "players": players,
        "bank": dict(zip(resorts, g.bank)),
        "noise": dict(zip(resorts, g.noise)),
        "pending": pending,
        "active_effects": [a.to_dict() for a in g.active_effects],
        "events": [dict(e) for e in g.events],
    }
    if g.config.equal_turns:  # design option, docs/rulings.md BC-67: the tiles set aside at Setup (face down)
        out["set_aside"] = list(g.set_aside)
    if below:
        out["stack"] = [frame.to_json(g) for frame in below]
    for state in g.ext.values():  # each expansion's own state (e.g. ``measures``: the Measure zones, R19/R20)
        if state.key:
            out[state.key] = state.to_json(g)
    return out


def _pending_to_json(g: Game, top: Frame | None) -> dict[str, Any] | None:
    """The pending decision's effect record in the state's ``pending`` object (null where the decision has none:
    ``place_tile``, ``political``, game over)."""
    topo, resorts = g.topo, g.config.resorts
    if isinstance(top, MoveTo):
        return {"kind": "move", "from": topo.label(top.src)}
    if isinstance(top, Target):
        return {"kind": "play", "card": g.measures[top.card].key}
    if not isinstance(top, Resolution):
        return None
    kind = top.effect
    pending: dict[str, Any]
    if kind in ("formalize", "convert"):
        pending = {"kind": kind, "tile": topo.label(top.tile), "paid": [resorts[r] for r in top.paid]}
        if top.kind == "exchange":
            pending["gain"] = resorts[top.gain]
        elif top.supplements is not None:  # Supplemental Budget's additional Resource (EXP-01-06-M10-04, BC-30)
            pending["gain"] = resorts[top.gain]
            pending["exchange"] = resorts[top.exchange]
        if top.transfer is not None:  # a cost component another player paid (EXP-03-08-M13, RULINGS R52)
            pending["transfer"] = list(top.transfer)
        return pending
    # an expansion's pipeline: Place / Move with a cost, TakeMeasure, PlayMeasure
    pending = {"kind": kind}
    if kind == "move":
        pending["from"] = topo.label(top.src)
    if top.card >= 0:
        pending["card"] = g.measures[top.card].key
    pending["tile"] = topo.label(top.tile) if top.tile >= 0 else None
    if kind == "play":
        pending["target"] = top.target if top.target >= 0 else None
    pending["paid"] = [resorts[r] for r in top.paid]
    if top.transfer is not None:  # a cost component another player paid (EXP-03-08-M13, RULINGS R52)
        pending["transfer"] = list(top.transfer)
    return pending


# ---------------------------------------------------------------------------- reading


#: The keys of a state object and of its parts (``measures`` only with an expansion). A key that is not listed is
#: refused: a misspelled key would otherwise load silently as a different game.
TOP_KEYS = frozenset(("schema", "version", "config", "rng", "round", "turns_in_round", "turn", "start_player", "active",
                      "phase", "drawn_tile", "draw_pile", "discard", "board", "players", "bank", "noise", "pending",
                      "active_effects", "events"))  # fmt: skip
PLAYER_KEYS = frozenset(("supply", "starting", "created", "deployed", "resources", "start_committee_used"))
BOARD_KEYS = frozenset(("cell", "tile", "influence"))
EFFECT_KEYS = frozenset(("id", "owner", "until", "from_round", "data"))
#: Bounds on what a state may hold beyond what the components allow: events in the log, nesting inside an
#: event, characters of the RNG state.
MAX_EVENTS = 100_000
MAX_EVENT_DEPTH = 4
MAX_RNG_CHARS = 64


def _plain(value: Any, where: str, depth: int = 0) -> None:
    """An event's value: JSON scalars (finite numbers, Unicode strings), lists and objects nested at most
    MAX_EVENT_DEPTH deep."""
    problem = _plain_problem(value, depth)
    if problem is not None:
        raise StateError(where + problem)


def _plain_problem(value: Any, depth: int) -> str | None:
    """What makes ``value`` not plain JSON data, as the rest of a message after the field's path (the path is
    built only for a refusal: the event log is most of a state)."""
    if depth > MAX_EVENT_DEPTH:
        return f" is nested deeper than {MAX_EVENT_DEPTH} levels"
    if value is None or isinstance(value, (bool, int)):
        return None
    if isinstance(value, str):
        return None if value.isascii() or _is_text(value) else f": the string {ascii(value[:64])} is not Unicode text"
    if isinstance(value, float):
        return None if math.isfinite(value) else f": {value!r} is not a JSON number; numbers must be finite"
    if isinstance(value, list):
        for i, v in enumerate(value):
            problem = _plain_problem(v, depth + 1)
            if problem is not None:
                return f"[{i}]{problem}"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f" has a non-string key {k!r}"
            if not (k.isascii() or _is_text(k)):
                return f": the key {ascii(k[:64])} is not Unicode text"
            problem = _plain_problem(v, depth + 1)
            if problem is not None:
                return f".{k}{problem}"
        return None
    return f" must be JSON data, got {type(value).__name__}"


def _resort_map(d: dict[str, Any], key: str, where: str, resorts: tuple[str, ...], allow_negative: bool) -> list[int]:
    m = _get(d, key, where)
    if not isinstance(m, dict) or sorted(m) != sorted(resorts):
        raise StateError(f"{where}.{key} must map exactly the resorts {', '.join(resorts)}, got {m!r}")
    out = []
    for r in resorts:
        v = m[r]
        if isinstance(v, bool) or not isinstance(v, int) or (v < 0 and not allow_negative):
            raise StateError(f"{where}.{key}.{r} must be a non-negative integer, got {v!r}")
        out.append(v)
    return out


def _cell(topo: Any, text: Any, where: str) -> int:
    if not isinstance(text, str):
        raise StateError(f"{where} must be a cell string 'x,y', got {text!r}")
    try:
        return int(topo.parse(text))
    except ValueError as exc:
        raise StateError(f"{where}: {exc}") from None


def game_from_dict(data: Any) -> Game:
    """Read and validate a state (docs/state-schema.md): every key, type, range and count; the counters against
    each other and the Board; conservation of every object (CORE-01-00-01). Raises StateError naming the first
    problem; never returns a game that breaks a rule's invariant."""
    if not isinstance(data, dict):
        raise StateError(f"a game state must be a JSON object, got {type(data).__name__}")
    if data.get("schema") != SCHEMA:
        raise StateError(f"schema must be {SCHEMA!r}, got {data.get('schema')!r}")
    if data.get("version") != VERSION:
        raise StateError(f"unsupported state version {data.get('version')!r}; this engine reads version {VERSION}")
    try:
        config = RulesConfig.from_dict(_get(data, "config", "state"))
    except ConfigError as exc:
        raise StateError(f"state.config: {exc}") from None
    except TypeError as exc:
        raise StateError(f"state.config: {exc}") from None
    try:
        g = Game._blank(config)
    except BalanceControlError as exc:
        raise StateError(f"state.config: {exc}") from None
    topo, resorts, cat = g.topo, config.resorts, g.catalogue
    np_, nr = g.num_players, g.num_resorts
    states = [state for state in g.ext.values() if state.key]
    for key in ("measures",):
        if key in data and all(state.key != key for state in states):
            raise StateError(f"state.{key} exists only when an expansion is active")
    _keys(data, "state", TOP_KEYS | frozenset(state.key for state in states), frozenset(("stack", "set_aside")))

    rng_text = _get(data, "rng", "state")
    try:
        if not isinstance(rng_text, str) or len(rng_text) > MAX_RNG_CHARS:
            raise ValueError(rng_text)
        g.rng = Rng.from_json(rng_text)
    except (TypeError, ValueError):
        raise StateError(f"state.rng must be a hex string like '0x1234', got {rng_text!r}") from None

    # Counters: each turn draws and places one tile (CORE-01-04-04/05), so the turn count is bounded by the
    # tiles; a round is one turn per player (CORE-01-07-01) from the start player on (RULINGS R6).
    n_tiles = len(cat)
    max_round = (n_tiles - 1) // np_ + 2
    g.round = _int(data, "round", "state", 1, max_round)
    # CORE-01-07-01/02: all players have taken their turn while the round's Round Settlement runs (a settlement
    # paused for a decision is part of the state).
    g.turns_in_round = _int(data, "turns_in_round", "state", 0, np_)
    g.turn = _int(data, "turn", "state", 0, n_tiles - 1)
    g.start_player = _int(data, "start_player", "state", 0, np_ - 1)
    g.active = _int(data, "active", "state", 0, np_ - 1)
    phase = _get(data, "phase", "state")
    if phase not in PHASE_NAMES and ("stack" not in data or not isinstance(phase, str)):
        raise StateError(f"state.phase must be one of {', '.join(PHASE_NAMES)}, got {phase!r}")
    if g.turn != (g.round - 1) * np_ + g.turns_in_round:
        raise StateError(
            f"state.turn = {g.turn} does not match round {g.round} and turns_in_round {g.turns_in_round} "
            f"with {np_} players (CORE-01-07-01)"
        )
    if g.active != (g.start_player + min(g.turns_in_round, np_ - 1)) % np_:
        raise StateError(
            f"state.active = {g.active} is not the player whose turn it is after {g.turns_in_round} turn(s) of this "
            f"round from start player {g.start_player} (RULINGS R6)"
        )

    # Tiles: every tile in exactly one zone (CORE-01-00-01, -05, -06).
    seen: dict[int, str] = {}

    def claim(t: Any, zone: str) -> int:
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < n_tiles:
            raise StateError(f"{zone}: tile id must be an integer in 0..{n_tiles - 1}, got {t!r}")
        if t in seen:
            raise StateError(f"tile {t} ({cat[t].name}) is in two zones: {seen[t]} and {zone}")
        seen[t] = zone
        return t

    g.draw_pile = [claim(t, "state.draw_pile") for t in _list(data, "draw_pile", "state")]
    g.discard = [claim(t, "state.discard") for t in _list(data, "discard", "state")]
    if g.config.equal_turns:  # docs/rulings.md BC-67
        g.set_aside = [claim(t, "state.set_aside") for t in _list(data, "set_aside", "state")]
    elif "set_aside" in data:
        raise StateError("state.set_aside: only a configuration with equal_turns sets tiles aside (BC-67)")
    drawn = _get(data, "drawn_tile", "state")
    g.drawn = -1 if drawn is None else claim(drawn, "state.drawn_tile")
    pend = data.get("pending")
    placing = phase == "place_tile" or (isinstance(pend, dict) and pend.get("kind") == PLACE_TILE_EFFECT)
    raw_stack = data.get("stack")
    if not placing and phase not in PHASE_NAMES and isinstance(raw_stack, list) and raw_stack:
        # an expansion's decision about the drawn tile's placement cost (e.g. a transfer, RULINGS R52)
        top = raw_stack[-1]
        placing = isinstance(top, dict) and top.get("effect") == PLACE_TILE_EFFECT
    if (g.drawn >= 0) != placing:
        raise StateError("state.drawn_tile must be set exactly while the drawn tile is being placed (phase "
                         "'place_tile', or a 'pay' decision of its placement cost)")  # fmt: skip

    for i, entry in enumerate(_list(data, "board", "state")):
        where = f"state.board[{i}]"
        hotspot = isinstance(entry, dict) and type(entry.get("tile")) is int and 0 <= entry["tile"] < n_tiles
        hotspot = hotspot and cat[entry["tile"]].kind == HOTSPOT
        _keys(entry, where, BOARD_KEYS | ({"resolved"} if hotspot else frozenset()))
        c = _cell(topo, _get(entry, "cell", where), f"{where}.cell")
        if g.tile_at[c] >= 0:
            raise StateError(f"{where}: cell {topo.label(c)} holds two tiles")
        t = claim(_get(entry, "tile", where), f"{where}.tile")
        g.tile_at[c] = t
        infl = _list(entry, "influence", where)
        if len(infl) != np_ or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in infl):
            raise StateError(f"{where}.influence must be {np_} non-negative integers, got {infl!r}")
        if cat[t].kind == START and any(infl):
            raise StateError(f"{where}: no Influence may be on the Start Committee (CORE-01-08-04)")
        g.infl[c * np_ : c * np_ + np_] = infl
        if cat[t].kind == HOTSPOT:
            g.resolved[c] = _bool(entry, "resolved", where)
    missing = sorted(set(range(n_tiles)) - set(seen))
    if missing:
        raise StateError(f"tile(s) {missing} are in no zone (CORE-01-00-01)")
    if g.tile_at[topo.centre] != 0:
        raise StateError(f"the Start Committee (tile 0) must be at the centre {topo.label(topo.centre)}")
    g._rebuild_board_indexes()
    _check_board(g, _queued_hotspots(data))

    players = _list(data, "players", "state")
    if len(players) != np_:
        raise StateError(f"state.players must list {np_} players, got {len(players)}")
    for p, pd in enumerate(players):
        where = f"state.players[{p}]"
        _keys(pd, where, PLAYER_KEYS)
        g.supply[p] = _int(pd, "supply", where, 0, g.cap)
        g.starting[p] = _int(pd, "starting", where, 0, g.cap)
        g.created[p] = _int(pd, "created", where, 0, g.cap)
        g.deployed[p] = _int(pd, "deployed", where, 0, g.cap)
        g.res[p * nr : p * nr + nr] = _resort_map(pd, "resources", where, resorts, False)
        g.start_used[p] = _bool(pd, "start_committee_used", where)
        g.on_board[p] = sum(g.infl[c * np_ + p] for c in g.board)
        if g.supply[p] + g.on_board[p] != g.starting[p] + g.created[p]:
            raise StateError(
                f"{where}: supply {g.supply[p]} + board {g.on_board[p]} must equal starting "
                f"{g.starting[p]} + created {g.created[p]} (CORE-01-00-01)"
            )
        if g.supply[p] + g.on_board[p] > g.cap:
            raise StateError(f"{where}: {g.supply[p] + g.on_board[p]} Influence exceeds the cap {g.cap} (R12)")
        if g.starting[p] > config.starting_influence:
            raise StateError(
                f"{where}.starting = {g.starting[p]} exceeds the Starting Influence {config.starting_influence} "
                "(CORE-01-03-04..06, ADD56-01-02)"
            )
    finite = config.bank_stock is not None
    g.bank = _resort_map(data, "bank", "state", resorts, not finite)
    g.noise = _resort_map(data, "noise", "state", resorts, False)
    for r, name in enumerate(resorts):
        total = sum(g.res[p * nr + r] for p in range(np_)) + g.bank[r] + g.noise[r]
        if total != (config.bank_stock or 0):
            raise StateError(
                f"Resources of {name} are not conserved: supplies + bank + noise = {total}, expected "
                f"{config.bank_stock or 0} (CORE-01-00-01; with an unlimited Bank, bank is the net balance)"
            )

    for state in states:
        state.read_json(g, _get(data, state.key, "state"), f"state.{state.key}")
    g.active_effects = _read_effects(g, _list(data, "active_effects", "state"))

    events = _list(data, "events", "state")
    if len(events) > MAX_EVENTS:
        raise StateError(f"state.events holds {len(events)} events, more than {MAX_EVENTS}")
    for i, e in enumerate(events):
        if not isinstance(e, dict) or not isinstance(e.get("type"), str) or not isinstance(e.get("rule"), str):
            raise StateError(f"state.events[{i}] must be an object with a string 'type' and 'rule'")
        _plain(e, f"state.events[{i}]")
    g.events = [dict(e) for e in events]

    if phase in PHASE_NAMES:
        _read_pending(g, phase, data.get("pending"))
    elif data.get("pending") is not None:
        raise StateError(f"state.pending must be null in the expansion decision {phase!r} (its frame is in the stack)")
    if "stack" in data:
        _read_stack(g, phase, data["stack"])
    if g.turns_in_round == np_ and not any(isinstance(frame, Settlement) for frame in g.stack):
        raise StateError(f"state.turns_in_round = {np_} exists only during the Round Settlement (CORE-01-07-01/02)")
    for state in g.ext.values():  # each expansion's conservation and caps, now that the decision is known
        problems = state.check(g)
        if problems:
            raise StateError(problems[0])
    if phase == "over":
        g.over = True
        g._winners = None
    elif not g._compute_legal():
        raise StateError("the state has no legal action although the game is not over")
    return g


def _read_stack(g: Game, phase: str, raw: Any) -> None:
    """The frames below the pending decision (resolutions paused for it), bottom first; the pending decision
    itself comes last when schema v1 has no phase for it (an expansion's decision)."""
    if not isinstance(raw, list) or not raw or len(raw) > 16:
        raise StateError("state.stack must be a list of 1..16 frames (omitted when there are none)")
    frames: list[Frame] = []
    for i, entry in enumerate(raw):
        where = f"state.stack[{i}]"
        name = entry.get("frame") if isinstance(entry, dict) else None
        cls = FRAME_TYPES.get(name) if isinstance(name, str) else None
        if cls is None:
            raise StateError(f"{where}.frame must be one of {', '.join(sorted(FRAME_TYPES))}, got {name!r}")
        frame = cls.from_json(g, entry, where)
        if frame.to_json(g) != entry:
            raise StateError(f"{where} has unknown or non-canonical fields: {entry!r}")
        frames.append(frame)
    if phase in ("place_tile", "over") or (phase not in PHASE_NAMES) != (frames[-1].kind == phase):
        raise StateError(f"state.stack does not end with the pending decision {phase!r}")
    g.stack = frames + g.stack


def _queued_hotspots(data: dict[str, Any]) -> frozenset[str]:
    """The cells (as written) of the Hotspots a paused placement still has to resolve: ``cells[next:]`` of a
    ``hotspots`` frame in the state's ``stack`` (RULINGS R5: closed by one placement, resolved in turn; one of them
    paused for a decision). They are fully surrounded and not resolved yet."""
    out: set[str] = set()
    raw = data.get("stack")
    for f in raw if isinstance(raw, list) else ():
        if isinstance(f, dict) and f.get("frame") == "hotspots":
            cells, nxt = f.get("cells"), f.get("next")
            if isinstance(cells, list) and isinstance(nxt, int) and not isinstance(nxt, bool):
                out.update(c for c in cells[max(nxt, 0) :] if isinstance(c, str))
    return frozenset(out)


def _check_board(g: Game, queued: frozenset[str] = frozenset()) -> None:
    """The Board grew one connected tile at a time from the Start Committee (CORE-01-03-01, CORE-01-04-05); a fully
    surrounded Hotspot has resolved (RULINGS R5, docs/rulings.md BC-06). Facts that only a history explains (how
    many tiles per turn, a Hotspot marked resolved while still open, deployed vs. the Influence on the Board) are
    not tied to the counters, so that hand-built positions need no invented history."""
    topo = g.topo
    reached = {topo.centre}
    todo = [topo.centre]
    while todo:
        c = todo.pop()
        for nb in topo.neighbors[c]:
            if g.tile_at[nb] >= 0 and nb not in reached:
                reached.add(nb)
                todo.append(nb)
    if len(reached) != len(g.board):
        island = sorted(set(g.board) - reached)
        raise StateError(
            f"state.board: tile(s) at {', '.join(topo.label(c) for c in island[:5])} are not connected to the Start "
            "Committee (CORE-01-04-05)"
        )
    for c in g.board:
        if (
            g.kind_at[c] == HOTSPOT
            and not g.resolved[c]
            and all(g.tile_at[nb] >= 0 for nb in topo.neighbors[c])
            and topo.label(c) not in queued
        ):
            raise StateError(
                f"state.board: the Hotspot at {topo.label(c)} is fully surrounded but not resolved (it resolves the "
                "first time it is fully surrounded, RULINGS R5)"
            )


def _read_effects(g: Game, raw: list[Any]) -> list[ActiveEffect]:
    """The durations in force: known ids with their handler's data keys, owners and players in range, cells on
    the Board, and never more copies of a Measure's effect than the card has been played (EXP-01-06-11)."""
    np_ = g.num_players
    out = []
    per_card: dict[str, int] = {}
    card_index = {m.key: k for k, m in enumerate(g.measures)}
    for i, e in enumerate(raw):
        where = f"state.active_effects[{i}]"
        _keys(e, where, EFFECT_KEYS)
        key = e["id"]
        if not isinstance(key, str) or key not in effects.MODIFIERS:
            raise StateError(f"{where}.id {key!r} names no known effect")
        if e["until"] not in effects.ALL_TIMINGS:
            raise StateError(f"{where}.until must be one of {', '.join(effects.ALL_TIMINGS)}, got {e['until']!r}")
        owner = _int(e, "owner", where, 0, np_ - 1)
        from_round = _int(e, "from_round", where, 0, g.round + 1)
        data = e["data"]
        handler = effects.MODIFIERS[key]
        _keys(data, f"{where}.data", frozenset(), handler.data_keys)
        for name, value in data.items():
            dw = f"{where}.data.{name}"
            if name == "cell":
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < g.topo.num_cells:
                    raise StateError(f"{dw} must be a cell number, got {value!r}")
                if g.tile_at[value] < 0:
                    raise StateError(f"{dw} = {value} is not a Board tile")
            elif name in ("target", "player"):
                _int(data, name, f"{where}.data", 0, np_ - 1)
            elif name == "turn":
                _int(data, name, f"{where}.data", 0, g.turn)
            elif name == "used":
                _bool(data, name, f"{where}.data")
            elif name == "resort":  # e.g. EXP-03-08-M02-03 Carbon Levy's target resort
                _int(data, name, f"{where}.data", 0, g.num_resorts - 1)
            elif name == "round":  # the round an END_OF_NEXT_ROUND effect was created in (RULINGS R39)
                _int(data, name, f"{where}.data", 1, g.round)
        if key in card_index:
            per_card[key] = per_card.get(key, 0) + 1
            if per_card[key] > MAX_PLAYS:
                raise StateError(
                    f"{where}: {per_card[key]} effects of {key} in force, but a Measure resolves at most {MAX_PLAYS} "
                    "times per game (EXP-01-06-15)"
                )
        out.append(ActiveEffect(key, owner, e["until"], from_round, tuple(sorted(data.items()))))
    return out


def _read_pending(g: Game, phase: str, pend: Any) -> None:
    """Rebuild the decision stack from ``phase`` and the pending effect record (validated)."""
    topo, resorts = g.topo, g.config.resorts
    needs = phase in ("move_to", "pay", "gain", "target", "exchange")
    if (pend is not None) != needs:
        raise StateError(f"state.pending must be {'an object' if needs else 'null'} in phase {phase!r}")
    if pend is None:
        if phase == "place_tile":
            g.stack = [PLACE_TILE[g.active]]
        elif phase == "political":
            g.stack = [POLITICAL[g.active]]
        return
    kind = _get(pend, "kind", "state.pending")
    allowed = {"kind"}
    if phase == "move_to":
        allowed.add("from")
    elif phase == "target":
        allowed.add("card")
    else:
        allowed |= {"tile", "paid"}
        if kind == "move":
            allowed.add("from")
        if kind in ("take", "play"):
            allowed.add("card")
        if kind == "play":
            allowed.add("target")
        if kind in ("formalize", "convert") and phase == "exchange":
            allowed.add("gain")
        if kind in ("formalize", "convert") and phase == "pay" and "exchange" in pend:
            allowed |= {"gain", "exchange"}
    # "transfer": a cost component another player paid (EXP-03-08-M13, RULINGS R52)
    _keys(pend, "state.pending", frozenset(allowed), frozenset(("transfer",)) if phase == "pay" else frozenset())
    if phase == "move_to":
        if kind != "move":
            raise StateError(f"state.pending.kind must be 'move' in phase 'move_to', got {kind!r}")
        src = _cell(topo, _get(pend, "from", "state.pending"), "state.pending.from")
        if g.infl[src * g.num_players + g.active] <= 0:
            raise StateError("state.pending.from must hold an Influence of the active player")
        g.stack = [MoveTo(g.active, src)]
        return
    kinds = ("formalize", "convert") + (("place", "move", "take", "play") if g.measures else ())
    if phase == "pay":
        kinds += (PLACE_TILE_EFFECT,)  # a placement cost (e.g. EXP-03-08-M12, RULINGS R54)
    if kind not in kinds:
        raise StateError(f"state.pending.kind must be one of {', '.join(map(repr, kinds))}, got {kind!r}")
    p = g.active
    card = target = src = -1
    if kind in ("take", "play"):
        key = _get(pend, "card", "state.pending")
        card = next((k for k, m in enumerate(g.measures) if m.key == key), -1)
        if card < 0:
            raise StateError(f"state.pending.card must be a Measure card key, got {key!r}")
        z = zones(g)
        if kind == "take" and (card not in z.open[g.deck_of[card]] or len(z.hands[p]) >= HAND_LIMIT):
            raise StateError("state.pending.card must be an open Measure the active player may take (EXP-01-06-02/03)")
        if kind == "play" and card not in z.hands[p]:
            raise StateError("state.pending.card must be a Measure in the active player's hand (EXP-01-06-07)")
    if phase == "target":
        if kind != "play" or g.measures[card].target == NO_TARGET:
            raise StateError("state.pending must be a PlayMeasure of a targeting Measure in phase 'target'")
        targets = play_targets(g, card, p)
        if len(targets) < 2:
            raise StateError("state.pending leaves no choice of target")
        g.stack = [Target(p, card, targets)]
        return
    if phase == "exchange" and kind != "convert":
        raise StateError("state.pending.kind must be 'convert' in phase 'exchange'")
    if phase == "gain" and kind != "convert":
        raise StateError("state.pending.kind must be 'convert' in phase 'gain'")
    raw_tile = _get(pend, "tile", "state.pending")
    cell = -1 if raw_tile is None and kind in ("take", "play") else _cell(topo, raw_tile, "state.pending.tile")
    paid_names = _list(pend, "paid", "state.pending")
    if any(r not in resorts for r in paid_names):
        raise StateError(f"state.pending.paid must list resorts of {', '.join(resorts)}, got {paid_names!r}")
    paid = [resorts.index(r) for r in paid_names]
    if kind in ("formalize", "convert"):
        wanted = "committee" if kind == "formalize" else "grassroots"
        cells = g.committees if kind == "formalize" else g.grassroots
        if cell not in cells:
            raise StateError(f"state.pending.tile must be a {wanted} tile on the Board")
    elif kind == "place":
        if cell not in g.nonstart or g.supply[p] <= 0:
            raise StateError("state.pending.tile must be a non-Start Board tile and the player must have supply")
    elif kind == "move":
        src = _cell(topo, _get(pend, "from", "state.pending"), "state.pending.from")
        if g.infl[src * g.num_players + p] <= 0 or cell not in g.nonstart or cell == src:
            raise StateError("state.pending: a Move needs an own Influence at 'from' and another tile at 'tile'")
    elif kind == PLACE_TILE_EFFECT:
        if cell not in g.frontier:
            raise StateError("state.pending.tile must be an empty cell next to the Board (RULINGS R3)")
    elif kind == "take":
        if cell != -1:
            raise StateError("state.pending.tile must be null for a TakeMeasure")
    else:
        spec = g.measures[card]
        raw_target = _get(pend, "target", "state.pending")
        if raw_target is not None and (isinstance(raw_target, bool) or not isinstance(raw_target, int)):
            raise StateError(f"state.pending.target must be a player number or null, got {raw_target!r}")
        target = -1 if raw_target is None else raw_target
        wanted_players = spec.target in PLAYER_TARGETS
        action = g.layout.target_player + target if wanted_players else g.layout.target + cell
        if spec.target == NO_TARGET:
            if cell != -1 or target != -1:
                raise StateError(f"state.pending: {spec.key} has no target")
        elif spec.target == T_RESORT_TYPE:  # a resort as the target (e.g. EXP-03-08-M02-03)
            if cell != -1 or g.layout.offset(TARGET_RESORT_BLOCK) + target not in play_targets(g, card, p):
                raise StateError(f"state.pending: not a legal target of {spec.key}")
        elif (cell != -1) == wanted_players or action not in play_targets(g, card, p):
            raise StateError(f"state.pending: not a legal target of {spec.key}")
    res = Resolution(p, kind, cell, src, card, target)
    res.paid = paid
    res.options = options = g.payment_choices(g.effect_for(kind, cell, p, card, target))
    if isinstance(pend, dict) and "transfer" in pend:  # e.g. EXP-03-08-M13 (RULINGS R52)
        raw = pend["transfer"]
        if not (isinstance(raw, list) and len(raw) == 3 and all(type(v) is int for v in raw)):
            raise StateError("state.pending.transfer must be [player, resort, slot]")
        res.transfer = (raw[0], raw[1], raw[2])
        found = None
        for ex in g.expansions:
            found = ex.transfer_payments(g, res)
            if found is not None:
                break
        if not found:
            raise StateError("state.pending.transfer is not a transfer the pending effect allows")
        res.options = options = found
    res.kind = phase
    g.stack = [res]
    supplement = phase == "pay" and kind == "convert" and isinstance(pend, dict) and "exchange" in pend
    if phase == "pay" and not supplement:
        if len(effects.next_choices(options, paid)) < 2:
            # BC-05: a pay decision is open only where the remaining payments differ in their next Resource.
            raise StateError("state.pending.paid does not leave a choice of the next Resource open (BC-05)")
    else:
        if tuple(paid) not in options:
            raise StateError("state.pending.paid is not a complete payment of the pending effect")
        gains = g._gain_options(g.effect_for(kind, cell, p), tuple(paid))
        if phase == "gain" and len(gains) < 2:
            raise StateError("state.pending leaves no choice of resort to gain")
        res.gains = gains
        if phase == "exchange" or supplement:
            gain = _get(pend, "gain", "state.pending")
            if gain not in resorts or resorts.index(gain) not in gains:
                raise StateError(f"state.pending.gain must be a resort the conversion may gain, got {gain!r}")
            res.gain = resorts.index(gain)
            effect = g.effect_for(kind, cell, p)
            exchanges, supplemented = exchange_options(g, effect, tuple(paid), res.gain)
            if not exchanges:
                raise StateError("state.pending offers no Investment Program exchange (EXP-01-05-03)")
            res.exchanges = exchanges
            res.supplemented = supplemented
            if supplement:
                # EXP-01-06-M10-04, docs/rulings.md BC-30: the exchange chosen needs the additional Resource.
                exchange = _get(pend, "exchange", "state.pending")
                if exchange not in resorts or resorts.index(exchange) not in supplemented:
                    raise StateError(
                        "state.pending.exchange must be an Investment Program exchange that needs Supplemental "
                        f"Budget's additional Resource (EXP-01-06-M10-04), got {exchange!r}"
                    )
                supplements = supplement_options(g, effect, tuple(paid), res.gain)
                if len(supplements) < 2:
                    raise StateError("state.pending leaves no choice of the additional Resource (BC-05, BC-30)")
                res.exchange = resorts.index(exchange)
                res.supplements = supplements
