"""Replays: a game is its rules configuration, its seed and its action list.

File format (JSON, ``docs/replays.md``)::

    {"format": "balance-control-replay", "version": 1,
     "config": {...RulesConfig...}, "seed": 7, "actions": ["place-tile 7,6", "place 7,6", ...],
     "result": {"winners": [1], "returns": [-1.0, 1.0]},          # optional, checked when present
     "digest": "3f2a..."}                                         # optional, checked when present

Actions are stored as strings (readable, and stable across layouts of equal meaning); integers are
accepted too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .config import RulesConfig
from .errors import BalanceControlError, IllegalActionError, StateError
from .game import Game
from .jsonread import strict_loads

FORMAT = "balance-control-replay"
VERSION = 1


def record(game: Game, seed: int, actions: list[int]) -> dict[str, Any]:
    """A replay document for a game started with ``seed`` that took ``actions``."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "config": game.config.to_dict(),
        "seed": seed,
        "actions": [game.action_to_string(a) for a in actions],
    }
    if game.is_terminal():
        doc["result"] = {"winners": game.winners(), "returns": game.returns()}
    doc["digest"] = position_digest(game)
    return doc


def position_digest(game: Game) -> str:
    """The first 16 hex digits of the sha256 of the state without its event log (sorted-key compact JSON): a
    replay records it so that an edited action list cannot load silently as another game."""
    state = game.to_dict()
    state.pop("events")
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def replay(config: RulesConfig | str, seed: int, actions: list[int | str]) -> Game:
    """Reproduce a game exactly from its config, seed and actions (action strings or integers, not bools)."""
    game = Game.new(config, seed)
    for i, action in enumerate(actions):
        if isinstance(action, bool) or not isinstance(action, int | str):
            raise IllegalActionError(
                f"replay action #{i} ({action!r}): an action is a string or an integer, not {type(action).__name__}"
            )
        try:
            game.apply(game.string_to_action(action) if isinstance(action, str) else action)
        except (IllegalActionError, ValueError) as exc:  # ValueError: a parser message of the older kind
            raise IllegalActionError(f"replay action #{i} ({action!r}): {exc}") from None
    return game


def read_json_file(path: str | Path, what: str = "file") -> Any:
    """The JSON document in ``path``, read strictly (``jsonread.strict_loads``: UTF-8, finite numbers, Unicode
    strings, no key twice); any problem raises ``StateError`` naming the file and the field (``OSError`` for a file
    that cannot be read)."""
    data = Path(path).read_bytes()
    try:
        return strict_loads(data, what)
    except StateError as exc:
        raise StateError(f"{what} {path}: {str(exc).removeprefix(what + ': ')}") from None


def load_replay(source: str | Path | dict[str, Any]) -> Game:
    """Replay a document (or a file holding one); checks the recorded result when present.

    Every problem with the document raises a ``BalanceControlError`` naming it: ``StateError`` for the file and
    the document's fields, ``ConfigError`` for its rules configuration, ``IllegalActionError`` for its actions.
    """
    if isinstance(source, dict):
        return _load_document(source)
    doc = read_json_file(source, "replay")
    try:
        return _load_document(doc)
    except BalanceControlError as exc:  # name the file too
        raise type(exc)(f"replay {source}: {exc}") from None


def _load_document(doc: Any) -> Game:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StateError(f"not a replay: 'format' must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        raise StateError(f"unsupported replay version {doc.get('version')!r}; this engine reads {VERSION}")
    for key in ("config", "seed", "actions"):
        if key not in doc:
            raise StateError(f"replay.{key} is missing")
    if not isinstance(doc["actions"], list):
        raise StateError("replay.actions must be a list")
    seed = doc["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise StateError(f"replay.seed must be an integer, got {seed!r}")
    if not isinstance(doc["config"], dict):
        raise StateError(f"replay.config must be an object (a rules configuration), got {type(doc['config']).__name__}")
    result = doc.get("result")
    if result is not None and not isinstance(result, dict):
        raise StateError(f"replay.result must be an object with winners and returns, got {result!r}")
    if result is not None:
        for key in ("winners", "returns"):
            if key in result and not isinstance(result[key], list):
                raise StateError(f"replay.result.{key} must be a list, got {type(result[key]).__name__}")
    digest = doc.get("digest")
    if digest is not None and not isinstance(digest, str):
        raise StateError(f"replay.digest must be a string, got {type(digest).__name__}")
    game = replay(RulesConfig.from_dict(doc["config"]), seed, doc["actions"])
    if digest is not None and digest != position_digest(game):
        raise StateError(
            f"replay digest mismatch: the actions lead to position {position_digest(game)}, the file recorded {digest}"
        )
    if result is not None:
        got = {"winners": game.winners(), "returns": game.returns()}
        for key in ("winners", "returns"):
            if key in result and result[key] != got[key]:
                raise StateError(f"replay result mismatch: recorded {key} {result[key]}, replay gives {got[key]}")
    return game


def save_replay(path: str | Path, game: Game, seed: int, actions: list[int]) -> None:
    Path(path).write_text(json.dumps(record(game, seed, actions), indent=1) + "\n", encoding="utf-8")
