"""Replays: a game is its rules configuration, its seed and its action list.

File format (JSON, ``docs/replays.md``)::

    {"format": "balance-control-replay", "version": 1,
     "config": {...RulesConfig...}, "seed": 7, "actions": ["place-tile 7,6", "place 7,6", ...],
     "result": {"winners": [1], "returns": [-1.0, 1.0]}}          # optional, checked when present

Actions are stored as strings (readable, and stable across layouts of equal meaning); integers are
accepted too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .config import RulesConfig
from .errors import IllegalActionError, StateError
from .game import Game

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
    return doc


def replay(config: RulesConfig | str, seed: int, actions: list[int | str]) -> Game:
    """Reproduce a game exactly from its config, seed and actions."""
    game = Game.new(config, seed)
    for i, action in enumerate(actions):
        try:
            game.apply(game.string_to_action(action) if isinstance(action, str) else action)
        except IllegalActionError as exc:
            raise IllegalActionError(f"replay action #{i} ({action!r}): {exc}") from None
    return game


def load_replay(source: str | Path | dict[str, Any]) -> Game:
    """Replay a document (or a file holding one); checks the recorded result when present."""
    doc = json.loads(Path(source).read_text(encoding="utf-8")) if not isinstance(source, dict) else source
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
    result = doc.get("result")
    if result is not None and not isinstance(result, dict):
        raise StateError(f"replay.result must be an object with winners and returns, got {result!r}")
    game = replay(RulesConfig.from_dict(doc["config"]), seed, doc["actions"])
    if result is not None:
        got = {"winners": game.winners(), "returns": game.returns()}
        for key in ("winners", "returns"):
            if key in result and result[key] != got[key]:
                raise StateError(f"replay result mismatch: recorded {key} {result[key]}, replay gives {got[key]}")
    return game


def save_replay(path: str | Path, game: Game, seed: int, actions: list[int]) -> None:
    Path(path).write_text(json.dumps(record(game, seed, actions), indent=1) + "\n", encoding="utf-8")
