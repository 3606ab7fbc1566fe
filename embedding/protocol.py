"""The bot protocol, version 1: one JSON object per message, handled without any I/O.

:class:`Session` holds one game and one bot and answers requests (``handle_line`` for a raw line,
``handle`` for a parsed message); ``embedding.stdio`` feeds it lines from stdin and ``embedding.http`` builds a
fresh one per request (the state travels in the request). docs/protocol.md documents the messages;
``protocol.schema.json`` beside this file is their JSON Schema and the validator of every request.

Every request gets exactly one reply. A request that cannot be read, breaks the schema, comes out of order or
fails in the engine gets ``{"ok": false, "error": {"code", "message"}}`` and leaves the session as it was: each
command builds its new game (or bot) aside and installs it only once everything has succeeded.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from bc_env.rules import Game, RulesConfig, preset_names
from bc_env.rules.errors import BalanceControlError, StateError
from bc_env.rules.jsonread import problem, strict_loads

from . import wirejson

PROTOCOL_VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "protocol.schema.json"
#: The largest message read, in bytes of UTF-8 (a full state is about 20-60 kB).
MAX_MESSAGE_BYTES = 1 << 20
COMMANDS = ("hello", "new", "position", "legal", "apply", "bot", "go", "state", "render", "quit")
#: Commands that need a game.
GAME_COMMANDS = ("legal", "apply", "go", "state", "render")
#: The share of ``movetime_ms`` a searching bot searches for; the rest is for its final choice and the reply.
SEARCH_SHARE = 0.8
#: Where a hard stop is on (worker processes of the HTTP service): how far past ``movetime_ms`` the alarm
#: interrupts a bot that has not decided.
HARD_STOP_GRACE_S = 0.05


class ProtocolError(BalanceControlError):
    """A request the protocol refuses; ``code`` is the error code of the reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@cache
def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return data


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    root = schema()
    return Draft202012Validator({"$defs": root["$defs"], "$ref": f"#/$defs/{name}"})


def validate(message: Any, name: str) -> None:
    """Raise ``ProtocolError('bad_message')`` naming the first problem of ``message`` against ``$defs/name``."""
    from jsonschema.exceptions import best_match

    if isinstance(message, dict) and isinstance(message.get("state"), dict):
        # The schema asks only for an object there (Game.from_dict reads the state whole); without it jsonschema's
        # messages for the position's oneOf would hold the repr of the whole state: most of a request's time.
        message = {**message, "state": {}}
    try:  # the message's text, as the key of the messages already found valid
        key: str | None = name + json.dumps(message, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        key = None
    if key is not None and key in _VALID:
        return
    error = best_match(_validator(name).iter_errors(message))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "message"
        raise ProtocolError("bad_message", f"{where}: {error.message}"[:500])
    if key is not None and len(key) <= _VALID_KEY_CHARS:
        if len(_VALID) >= _VALID_SIZE:
            _VALID.clear()
        _VALID.add(key)


#: Messages found valid (``validate``): a service sees the same few messages again and again (``go`` with
#: ``apply``, ``bot`` with a name, ``position`` with a state), and jsonschema takes ~0.3 ms for each.
_VALID: set[str] = set()
_VALID_SIZE = 4096
_VALID_KEY_CHARS = 2048


def engine_version() -> str:
    try:
        return metadata.version("balance-control")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree without install
        return "0+unknown"


@cache
def _bot_names() -> tuple[str, ...]:
    from policies import available

    return tuple(available())


def bot_names() -> list[str]:
    """The bots a message may name (listed once: the shipped bots do not change while a service runs)."""
    return list(_bot_names())


def resolve_config(spec: str | dict[str, Any]) -> RulesConfig:
    """A preset name or a configuration object (never a path: a request must not read files)."""
    try:
        if isinstance(spec, str):
            if spec not in preset_names():
                raise ProtocolError("bad_config", f"unknown preset {spec!r}; presets: {', '.join(preset_names())}")
            return RulesConfig.preset(spec)
        return RulesConfig.from_dict(spec)
    except ProtocolError:
        raise
    except BalanceControlError as exc:
        raise ProtocolError("bad_config", f"config: {exc}") from None


def summary(game: Game) -> dict[str, Any]:
    """The ``game`` object of a reply."""
    over = game.is_terminal()
    return {
        "player": game.current_player,
        "phase": game.phase_name,
        "round": game.round,
        "terminal": over,
        "winners": game.winners() if over else None,
        "returns": [float(r) for r in game.returns()] if over else None,
        "legal_count": 0 if over else len(game.legal_actions()),
        "num_players": game.num_players,
        "config": game.config.name,
    }


def node_cost(bot: Any, game: Game) -> int:
    """The positions a bot that does not search evaluates to decide in ``game``: one forward pass for a trained bot
    and one draw for the random bot; the heuristic and expert bots score every legal action (one position each).
    A searching bot (:func:`search_config`) counts its simulations instead."""
    name = getattr(bot, "name", "")
    if name in ("heuristic", "expert"):
        return len(game.legal_actions())
    return 1


def search_config(bot: Any) -> Any:
    """The search settings of a searching bot (``policies.mcts.MCTSConfig``), or None for a bot that does not
    search."""
    config = getattr(bot, "config", None)
    if config is None:
        return None
    from policies.mcts import MCTSConfig

    return config if isinstance(config, MCTSConfig) else None


def check_bot_fits(bot: Any, game: Game) -> None:
    """A trained bot plays only the layout and player count it was trained on."""
    rules = getattr(bot, "rules", None)
    if not isinstance(rules, RulesConfig):
        return
    n = getattr(bot, "num_actions", game.num_actions)
    if rules.players != game.num_players or n != game.num_actions or rules.table_size != game.config.table_size:
        raise ProtocolError(
            "bot_mismatch",
            f"bot {bot.name} was trained on {rules.name} ({rules.players} players, {n} actions); this game is "
            f"{game.config.name} ({game.num_players} players, {game.num_actions} actions)",
        )


class BudgetInterrupt(BaseException):  # noqa: N818 - not an error: the alarm of a hard stop
    """Raised by the alarm of a hard stop inside a bot that is past its time (a BaseException, so that no
    ``except Exception`` in a bot swallows it)."""


_hard_stop = False
_armed = False


def enable_hard_stop() -> None:
    """Interrupt a bot that is still deciding ``HARD_STOP_GRACE_S`` after its ``movetime_ms`` (SIGALRM; only in the
    main thread of a process that serves one request at a time: the HTTP service's worker processes, where the bot
    is built for the request and thrown away after it)."""
    global _hard_stop
    signal.signal(signal.SIGALRM, _on_alarm)
    _hard_stop = True


def _on_alarm(signum: int, frame: Any) -> None:
    if _armed:
        raise BudgetInterrupt


@contextmanager
def _hard_limit(seconds: float | None) -> Iterator[None]:
    global _armed
    if not _hard_stop or seconds is None:
        yield
        return
    _armed = True
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextmanager
def _search_budget(bot: Any, movetime_ms: int | None, nodes: int | None) -> Iterator[None]:
    """A searching bot's own budget for one decision: at most ``nodes`` simulations and ``SEARCH_SHARE`` of
    ``movetime_ms`` (the search checks its clock between simulations); its settings are restored after."""
    config = search_config(bot)
    if config is None:
        yield
        return
    sims = config.sims if nodes is None else min(config.sims, nodes)
    ms = config.ms
    if movetime_ms is not None:
        share = movetime_ms * SEARCH_SHARE
        ms = share if ms <= 0 else min(ms, share)
    bot.config = replace(config, sims=sims, ms=ms)
    try:
        yield
    finally:
        bot.config = config


def decide(bot: Any, game: Game, movetime_ms: int | None = None, nodes: int | None = None) -> tuple[int, int, float]:
    """The bot's action in ``game`` as ``(action, nodes, elapsed_ms)`` within the budget.

    ``nodes``: a searching bot (``mcts``) runs at most that many simulations and reports the number it ran; a bot
    that does not search is checked against :func:`node_cost` before it runs. ``movetime_ms``: a searching bot
    searches for ``SEARCH_SHARE`` of it; any bot that takes longer than ``movetime_ms`` in all is refused
    (``time_budget_exceeded``), and where the hard stop is on (:func:`enable_hard_stop`) it is interrupted
    ``HARD_STOP_GRACE_S`` past it. The bot runs on a copy of the game: a refusal leaves the game as it was. Only a
    searching bot given ``movetime_ms`` depends on the clock."""
    if game.is_terminal():
        raise ProtocolError("game_over", "the game is over: no decision to take")
    check_bot_fits(bot, game)
    searching = search_config(bot) is not None
    cost = 0 if searching else node_cost(bot, game)
    if nodes is not None and cost > nodes:
        raise ProtocolError(
            "node_budget_exceeded", f"bot {bot.name} evaluates {cost} positions here; the budget is {nodes} nodes"
        )
    copy = game.clone()
    limit = None if movetime_ms is None else movetime_ms / 1000 + HARD_STOP_GRACE_S
    start = time.perf_counter()
    try:
        with _search_budget(bot, movetime_ms, nodes), _hard_limit(limit):
            action = bot.act(copy)
    except BudgetInterrupt:
        raise ProtocolError(
            "time_budget_exceeded", f"bot {bot.name} did not decide within {movetime_ms} ms (stopped)"
        ) from None
    except ProtocolError:
        raise
    except Exception as exc:  # a bot is third-party code as far as the protocol goes
        raise ProtocolError("bot_error", f"bot {bot.name} failed: {type(exc).__name__}: {exc}") from None
    elapsed = (time.perf_counter() - start) * 1000
    if movetime_ms is not None and elapsed > movetime_ms:
        raise ProtocolError(
            "time_budget_exceeded", f"bot {bot.name} did not decide within {movetime_ms} ms ({elapsed:.0f} ms)"
        )
    if searching:
        cost = max(1, int(getattr(bot, "last_simulations", 1)))  # the simulations it ran (0 for a forced move)
    if action not in game.legal_actions():
        raise ProtocolError("bot_error", f"bot {bot.name} chose {action!r}, which is not legal")
    return int(action), cost, elapsed


class Session:
    """One protocol session: the handshake, a game and a bot.

    ``allow_paths`` lets ``bot`` load an exported policy from a path (stdio, where the client runs the
    process itself); the HTTP service allows only the names ``hello`` lists.
    """

    def __init__(self, *, allow_paths: bool = True, require_hello: bool = True, share_bots: bool = False) -> None:
        self.allow_paths = allow_paths
        self.share_bots = share_bots
        self.greeted = not require_hello
        self.game: Game | None = None
        self.bot: Any = None
        self.closed = False

    # --- entry points -------------------------------------------------------------------------------------

    def handle_line(self, line: str | bytes) -> dict[str, Any]:
        """The reply to one raw message (a line without its newline)."""
        size = len(line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line)
        if size > MAX_MESSAGE_BYTES:
            return error_reply(None, None, "too_large", f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
        try:
            message = wirejson.loads(line, "message") if isinstance(line, bytes) else strict_loads(line, "message")
        except StateError as exc:
            return error_reply(None, None, "bad_json", f"not a JSON message: {str(exc)[:300]}")
        return self.handle(message)

    def handle(self, message: Any) -> dict[str, Any]:
        """The reply to one parsed message."""
        ident = request_id(message)
        if not isinstance(message, dict):
            return error_reply(None, None, "bad_message", f"a message is a JSON object, not {type(message).__name__}")
        cmd = message.get("cmd")
        if not isinstance(cmd, str):
            return error_reply(ident, None, "bad_message", "message: 'cmd' (a string) is required")
        if cmd not in COMMANDS:
            return error_reply(
                ident, None, "unknown_command", f"unknown command {cmd[:64]!r}; commands: {', '.join(COMMANDS)}"
            )
        try:
            validate(message, f"request_{cmd}")
            if not self.greeted and cmd != "hello":
                raise ProtocolError("out_of_order", f"'{cmd}' before the handshake: send hello first")
            if self.closed:
                raise ProtocolError("out_of_order", "the session has ended (quit)")
            if cmd in GAME_COMMANDS and self.game is None:
                raise ProtocolError("out_of_order", f"'{cmd}' without a game: send new or position first")
            body = getattr(self, f"cmd_{cmd}")(message)
        except ProtocolError as exc:
            return error_reply(ident, cmd, exc.code, str(exc))
        except RecursionError:
            return error_reply(ident, cmd, "bad_message", "message nested too deeply")
        except Exception as exc:  # the session survives anything; the reply says what happened
            return error_reply(ident, cmd, "internal", f"{type(exc).__name__}: {str(exc)[:300]}")
        return {"ok": True, "id": ident, "cmd": cmd, **body}

    # --- commands (each returns the reply's body; raise ProtocolError to refuse) -----------------------------

    def cmd_hello(self, message: dict[str, Any]) -> dict[str, Any]:
        wanted = message.get("protocol", PROTOCOL_VERSION)
        if wanted != PROTOCOL_VERSION:
            raise ProtocolError(
                "unsupported_protocol", f"protocol {wanted} is not spoken here; this engine speaks {PROTOCOL_VERSION}"
            )
        self.greeted = True
        return {
            "protocol": PROTOCOL_VERSION,
            "engine": "balance-control",
            "engine_version": engine_version(),
            "state_schema": 1,
            "bots": bot_names(),
            "presets": preset_names(),
            "limits": {"max_message_bytes": MAX_MESSAGE_BYTES, "max_actions": 10000, "max_movetime_ms": 600000},
        }

    def cmd_new(self, message: dict[str, Any]) -> dict[str, Any]:
        config = resolve_config(message["config"])
        game = self._new_game(config, int(message.get("seed", 0)))
        self.game = game
        return {"game": summary(game)}

    def cmd_position(self, message: dict[str, Any]) -> dict[str, Any]:
        if "state" in message:
            try:
                game = Game.from_dict(message["state"])
            except BalanceControlError as exc:
                raise ProtocolError("bad_state", f"state: {exc}") from None
            except (KeyError, TypeError, AttributeError, IndexError) as exc:
                raise ProtocolError("bad_state", f"state: malformed ({type(exc).__name__}: {exc})") from None
        else:
            game = self._new_game(resolve_config(message["config"]), int(message["seed"]))
            for i, action in enumerate(message.get("actions", [])):
                if game.is_terminal():
                    raise ProtocolError("game_over", f"actions[{i}] {action!r}: the game is already over")
                try:
                    game.apply(game.string_to_action(action) if isinstance(action, str) else action)
                except BalanceControlError as exc:
                    raise ProtocolError("illegal_action", f"actions[{i}] {action!r}: {exc}") from None
        self.game = game
        return {"game": summary(game)}

    def cmd_legal(self, message: dict[str, Any]) -> dict[str, Any]:
        game = self._game()
        legal = [] if game.is_terminal() else game.legal_actions()
        return {
            "player": game.current_player,
            "phase": game.phase_name,
            "actions": [{"id": a, "string": game.action_to_string(a)} for a in legal],
        }

    def cmd_apply(self, message: dict[str, Any]) -> dict[str, Any]:
        game = self._game()
        if game.is_terminal():
            raise ProtocolError("game_over", "the game is over: no action can be taken")
        action = self._action(game, message["action"])
        after = game.clone()
        after.apply(action)
        self.game = after
        return {"action": {"id": action, "string": game.action_to_string(action)}, "game": summary(after)}

    def cmd_bot(self, message: dict[str, Any]) -> dict[str, Any]:
        seed = message.get("seed")
        name = message["name"]
        if self.share_bots and name in shared_bot_names():
            self.bot = shared_bot(name)
        else:
            self.bot = load_bot(name, None if seed is None else int(seed), allow_paths=self.allow_paths)
        return {"bot": str(getattr(self.bot, "name", message["name"]))}

    def cmd_go(self, message: dict[str, Any]) -> dict[str, Any]:
        game = self._game()
        if self.bot is None:
            raise ProtocolError("out_of_order", "'go' without a bot: send bot first")
        action, nodes, elapsed = decide(self.bot, game, message.get("movetime_ms"), message.get("nodes"))
        body: dict[str, Any] = {
            "action": {"id": action, "string": game.action_to_string(action)},
            "bot": str(self.bot.name),
            "nodes": nodes,
            "elapsed_ms": round(elapsed, 3),
            "applied": bool(message.get("apply", False)),
        }
        if body["applied"]:
            after = game.clone()
            after.apply(action)
            self.game = after
            body["game"] = summary(after)
        return body

    def cmd_state(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"state": self._game().to_dict()}

    def cmd_render(self, message: dict[str, Any]) -> dict[str, Any]:
        game = self._game()
        if message.get("format", "text") == "svg":
            from bc_env.env.svg import render_svg

            return {"svg": render_svg(game)}
        return {"text": game.render()}

    def cmd_quit(self, message: dict[str, Any]) -> dict[str, Any]:
        self.closed = True
        return {"bye": True}

    # --- helpers ---------------------------------------------------------------------------------------------

    def _game(self) -> Game:
        assert self.game is not None
        return self.game

    @staticmethod
    def _new_game(config: RulesConfig, seed: int) -> Game:
        try:
            return Game.new(config, seed)
        except BalanceControlError as exc:
            raise ProtocolError("bad_config", f"config: {exc}") from None

    @staticmethod
    def _action(game: Game, spec: str | int) -> int:
        try:
            action = game.string_to_action(spec) if isinstance(spec, str) else int(spec)
        except BalanceControlError as exc:
            raise ProtocolError("illegal_action", f"action {spec!r}: {exc}") from None
        if action not in game.legal_actions():
            text = game.action_to_string(action) if 0 <= action < game.num_actions else str(action)
            raise ProtocolError(
                "illegal_action", f"action {spec!r} ({text}) is not legal in decision {game.phase_name!r}"
            )
        return action


def load_bot(name: str, seed: int | None, *, allow_paths: bool) -> Any:
    """``policies.load`` behind the protocol's rules: names from :func:`bot_names`, paths only if allowed."""
    import policies

    if name not in bot_names():
        if not allow_paths:
            raise ProtocolError("unknown_bot", f"unknown bot {name!r}; bots: {', '.join(bot_names())}")
        path = Path(name)
        if not (path.with_suffix(".npz").is_file() or (path.suffix == ".npz" and path.is_file())):
            raise ProtocolError(
                "unknown_bot",
                f"unknown bot {name!r}: neither one of {', '.join(bot_names())} nor an exported policy (.npz + .json)",
            )
    try:
        return policies.load(name, seed=seed)
    except (ValueError, OSError) as exc:  # PolicyFileError is a ValueError
        raise ProtocolError("unknown_bot", f"bot {name!r}: {exc}") from None


def request_id(message: Any) -> str | int | None:
    """The ``id`` a reply echoes: the request's, if it is a string (up to 256 characters) or an integer."""
    ident = message.get("id") if isinstance(message, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)) or (isinstance(ident, str) and len(ident) > 256):
        return None
    if isinstance(ident, str) and problem(ident, "id") is not None:
        return None  # a lone surrogate cannot be echoed (the schema refuses the message)
    return ident


@cache
def shared_bot_names() -> tuple[str, ...]:
    """The shipped trained bots: deterministic and seedless, so one loaded copy can serve every request (read once:
    listing the bots' folder on every request cost more than a decision of the random bot)."""
    from policies import shipped_bots

    return tuple(shipped_bots())


class SharedBot:
    """One loaded trained bot shared by the requests of a stateless service (loading one reads its weights and
    builds its encoder, several milliseconds). Its encoder keeps per-game caches, so decisions take turns."""

    def __init__(self, bot: Any) -> None:
        self._bot = bot
        self._lock = threading.Lock()
        self.name = bot.name
        self.rules = getattr(bot, "rules", None)
        self.num_actions = getattr(bot, "num_actions", None)

    def act(self, game: Game) -> int:
        with self._lock:
            return int(self._bot.act(game))


_SHARED: dict[str, SharedBot] = {}
_SHARED_LOCK = threading.Lock()


def shared_bot(name: str) -> SharedBot:
    with _SHARED_LOCK:
        bot = _SHARED.get(name)
        if bot is None:
            bot = _SHARED[name] = SharedBot(load_bot(name, None, allow_paths=False))
        return bot


def error_reply(ident: Any, cmd: str | None, code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "id": ident, "cmd": cmd, "error": {"code": code, "message": message}}


def encode(reply: dict[str, Any]) -> str:
    """One reply as one line of JSON (no newline inside)."""
    return json.dumps(reply, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
