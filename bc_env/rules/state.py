"""The whole game state as plain JSON (schema ``balance-control-state``, version 1).

The schema is documented in ``docs/state-schema.md``. ``game_from_dict`` validates everything it
reads and raises :class:`StateError` naming the bad field; it never returns a game that breaks the
conservation rules (CORE-01-00-01, -06) or the caps.
"""

from __future__ import annotations

from typing import Any

from . import effects
from .components import HOTSPOT, START
from .config import RulesConfig
from .effects import ActiveEffect
from .errors import BalanceControlError, ConfigError, StateError
from .game import PH_GAIN, PH_MOVE_TO, PH_OVER, PH_PAY, PH_PLACE_TILE, PHASE_NAMES, Game
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
    pending: dict[str, Any] | None = None
    if g.pending is not None:
        pend = g.pending
        if pend["kind"] == "move":
            pending = {"kind": "move", "from": topo.label(pend["from"])}
        else:
            pending = {
                "kind": pend["kind"],
                "tile": topo.label(pend["tile"]),
                "paid": [resorts[r] for r in pend["paid"]],
            }
    # CORE-01-00-03/04: Influence lives in supplies and on the Board; Resources in supplies, Bank and Noise.
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "config": g.config.to_dict(),
        "rng": g.rng.to_json(),
        "round": g.round,
        "turns_in_round": g.turns_in_round,
        "turn": g.turn,
        "start_player": g.start_player,
        "active": g.active,
        "phase": PHASE_NAMES[g.phase],
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


# ---------------------------------------------------------------------------- reading


def _get(d: dict[str, Any], key: str, where: str) -> Any:
    if not isinstance(d, dict):
        raise StateError(f"{where} must be an object, got {type(d).__name__}")
    if key not in d:
        raise StateError(f"{where}.{key} is missing")
    return d[key]


def _int(d: dict[str, Any], key: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    v = _get(d, key, where)
    if isinstance(v, bool) or not isinstance(v, int):
        raise StateError(f"{where}.{key} must be an integer, got {v!r}")
    if v < lo or (hi is not None and v > hi):
        raise StateError(f"{where}.{key} = {v} is out of range {lo}..{hi if hi is not None else ''}")
    return v


def _bool(d: dict[str, Any], key: str, where: str) -> bool:
    v = _get(d, key, where)
    if not isinstance(v, bool):
        raise StateError(f"{where}.{key} must be true or false, got {v!r}")
    return v


def _list(d: dict[str, Any], key: str, where: str) -> list[Any]:
    v = _get(d, key, where)
    if not isinstance(v, list):
        raise StateError(f"{where}.{key} must be a list, got {type(v).__name__}")
    return v


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

    rng_text = _get(data, "rng", "state")
    try:
        g.rng = Rng.from_json(rng_text)
    except (TypeError, ValueError):
        raise StateError(f"state.rng must be a hex string like '0x1234', got {rng_text!r}") from None

    g.round = _int(data, "round", "state", 1)
    g.turns_in_round = _int(data, "turns_in_round", "state", 0, np_ - 1)
    g.turn = _int(data, "turn", "state", 0)
    g.start_player = _int(data, "start_player", "state", 0, np_ - 1)
    g.active = _int(data, "active", "state", 0, np_ - 1)
    phase = _get(data, "phase", "state")
    if phase not in PHASE_NAMES:
        raise StateError(f"state.phase must be one of {', '.join(PHASE_NAMES)}, got {phase!r}")
    g.phase = PHASE_NAMES.index(phase)

    # Tiles: every tile in exactly one zone (CORE-01-00-01, -05, -06).
    n_tiles = len(cat)
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
    drawn = _get(data, "drawn_tile", "state")
    g.drawn = -1 if drawn is None else claim(drawn, "state.drawn_tile")
    if (g.drawn >= 0) != (g.phase == PH_PLACE_TILE):
        raise StateError("state.drawn_tile must be set exactly when the phase is 'place_tile'")

    for i, entry in enumerate(_list(data, "board", "state")):
        where = f"state.board[{i}]"
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
    if g.board and any(c != topo.centre and not any(g.tile_at[nb] >= 0 for nb in topo.neighbors[c]) for c in g.board):
        raise StateError("state.board: every tile must be adjacent to another Board tile (CORE-01-04-05)")

    players = _list(data, "players", "state")
    if len(players) != np_:
        raise StateError(f"state.players must list {np_} players, got {len(players)}")
    for p, pd in enumerate(players):
        where = f"state.players[{p}]"
        g.supply[p] = _int(pd, "supply", where)
        g.starting[p] = _int(pd, "starting", where)
        g.created[p] = _int(pd, "created", where)
        g.deployed[p] = _int(pd, "deployed", where)
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

    effects_raw = _list(data, "active_effects", "state")
    try:
        g.active_effects = [ActiveEffect.from_dict(e) for e in effects_raw]
    except (KeyError, TypeError, AttributeError) as exc:
        raise StateError(f"state.active_effects: malformed entry ({exc})") from None
    for i, a in enumerate(g.active_effects):
        if a.until not in effects.TIMINGS:
            raise StateError(f"state.active_effects[{i}].until must be one of {', '.join(effects.TIMINGS)}")

    events = _list(data, "events", "state")
    if not all(isinstance(e, dict) for e in events):
        raise StateError("state.events must be a list of objects")
    g.events = [dict(e) for e in events]

    _read_pending(g, data.get("pending"))
    if g.phase == PH_OVER:
        g._winners = None
    elif not g._compute_legal():
        raise StateError("the state has no legal action although the game is not over")
    return g


def _read_pending(g: Game, pend: Any) -> None:
    topo, resorts = g.topo, g.config.resorts
    needs = g.phase in (PH_MOVE_TO, PH_PAY, PH_GAIN)
    if (pend is not None) != needs:
        raise StateError(f"state.pending must be {'an object' if needs else 'null'} in phase {PHASE_NAMES[g.phase]!r}")
    if pend is None:
        g.pending = None
        return
    kind = _get(pend, "kind", "state.pending")
    if g.phase == PH_MOVE_TO:
        if kind != "move":
            raise StateError(f"state.pending.kind must be 'move' in phase 'move_to', got {kind!r}")
        src = _cell(topo, _get(pend, "from", "state.pending"), "state.pending.from")
        if g.infl[src * g.num_players + g.active] <= 0:
            raise StateError("state.pending.from must hold an Influence of the active player")
        g.pending = {"kind": "move", "from": src}
        return
    if kind not in ("formalize", "convert"):
        raise StateError(f"state.pending.kind must be 'formalize' or 'convert', got {kind!r}")
    cell = _cell(topo, _get(pend, "tile", "state.pending"), "state.pending.tile")
    paid_names = _list(pend, "paid", "state.pending")
    if any(r not in resorts for r in paid_names):
        raise StateError(f"state.pending.paid must list resorts of {', '.join(resorts)}, got {paid_names!r}")
    paid = [resorts.index(r) for r in paid_names]
    wanted = "committee" if kind == "formalize" else "grassroots"
    cells = g.committees if kind == "formalize" else g.grassroots
    if cell not in cells:
        raise StateError(f"state.pending.tile must be a {wanted} tile on the Board")
    options = g.payment_choices(g.effect_for(kind, cell, g.active))
    g.pending = {"kind": kind, "tile": cell, "paid": paid, "options": options}
    if g.phase == PH_PAY:
        left = effects.consistent(options, paid)
        if len({pay[len(paid)] for pay in left if len(pay) > len(paid)}) < 2:
            # BC-05: a pay decision is open only where the remaining payments differ in their next Resource.
            raise StateError("state.pending.paid does not leave a choice of the next Resource open (BC-05)")
    else:
        if tuple(paid) not in options:
            raise StateError("state.pending.paid is not a complete payment of the pending effect")
        gains = g._gain_options(g.effect_for(kind, cell, g.active), tuple(paid))
        if len(gains) < 2:
            raise StateError("state.pending leaves no choice of resort to gain")
        g.pending["gains"] = gains
