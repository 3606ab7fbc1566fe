"""Trained policies on NumPy alone: a safe file format and a bot with the ``act(game)`` protocol.

A trained bot is two files side by side:

* ``<name>.npz`` — the weights, loaded with ``np.load(allow_pickle=False)`` (no pickle, ever);
* ``<name>.json`` — the manifest: format and version, rules configuration, encoder version, action layout
  (``num_actions``), network shape and activation, and the training provenance.

The network is the policy half of sb3's ``MlpPolicy``: ``obs -> [Linear -> act] * k -> Linear -> logits``.
Illegal actions are masked out, so the bot always chooses a legal action (the most likely one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.rules import Game, RulesConfig

FORMAT = "balance-control-policy"
VERSION = 1


class PolicyFileError(ValueError):
    """A policy file or its manifest is missing, malformed or does not fit the game."""


@dataclass(frozen=True)
class Manifest:
    data: dict[str, Any]

    @property
    def rules(self) -> RulesConfig:
        return RulesConfig.from_dict(self.data["rules"])

    @property
    def activation(self) -> str:
        return str(self.data["network"]["activation"])


def _act_fn(name: str):  # type: ignore[no-untyped-def]
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    raise PolicyFileError(f"unknown activation {name!r} in manifest (allowed: tanh, relu)")


def save_policy(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], manifest: dict[str, Any]) -> Path:
    """Write ``<path>.npz`` and ``<path>.json``; ``layers`` are (weight[out, in], bias[out]) pairs, the last
    one producing the action logits."""
    path = Path(path).with_suffix("")
    arrays = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    data = dict(manifest)
    data["format"] = FORMAT
    data["version"] = VERSION
    data["network"] = {
        **data.get("network", {}),
        "layers": [[int(w.shape[1]), int(w.shape[0])] for w, _ in layers],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path.with_suffix(".npz"))
    tmp_json = path.with_name(path.name + ".tmp.json")
    tmp_json.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp_json.replace(path.with_suffix(".json"))
    return path


class NeuralPolicy:
    """A trained policy (NumPy inference). ``act(game)`` returns the most likely legal action."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path).with_suffix("")
        npz, man = path.with_suffix(".npz"), path.with_suffix(".json")
        if not npz.is_file() or not man.is_file():
            raise PolicyFileError(f"a policy needs both {npz} and {man}")
        try:
            data = json.loads(man.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise PolicyFileError(f"{man}: not valid JSON: {exc}") from None
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise PolicyFileError(f"{man}: not a {FORMAT} v{VERSION} manifest")
        self.manifest = Manifest(data)
        self.name = str(data.get("name", path.name))
        with np.load(npz, allow_pickle=False) as arrays:
            n = len(data["network"]["layers"])
            try:
                self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(n)]
            except KeyError as exc:
                raise PolicyFileError(f"{npz}: missing array {exc}") from None
            except ValueError as exc:  # e.g. an object array, which would need pickle
                raise PolicyFileError(f"{npz}: refused ({exc}); policy files never use pickle") from None
        for i, (w, b) in enumerate(self.layers):
            if w.dtype != np.float32 or b.dtype != np.float32 or w.ndim != 2 or b.shape != (w.shape[0],):
                raise PolicyFileError(f"{npz}: layer {i} must be float32 weight[out, in] and bias[out]")
        self._act = _act_fn(self.manifest.activation)
        from bc_env.encoding import ENCODER_VERSION

        if data.get("encoder_version") != ENCODER_VERSION:
            raise PolicyFileError(
                f"{man}: trained with encoder version {data.get('encoder_version')}, "
                f"this code has version {ENCODER_VERSION}"
            )
        self.rules = self.manifest.rules
        self._encoders: dict[RulesConfig, Any] = {}

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = obs.astype(np.float32, copy=False)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w.T + b
            if i < last:
                x = self._act(x)
        return x

    def _encoder(self, game: Game) -> Any:
        enc = self._encoders.get(game.config)
        if enc is None:
            from bc_env.encoding import Encoder

            enc = self._encoders[game.config] = Encoder(game.config)
        return enc

    def act(self, game: Game) -> int:
        player = game.current_player
        if player is None:
            raise ValueError("the game is over: no decision to take")
        if game.num_actions != self.layers[-1][0].shape[0]:
            raise PolicyFileError(
                f"policy {self.name} has {self.layers[-1][0].shape[0]} actions, the game has {game.num_actions}"
            )
        obs = self._encoder(game).encode(game, player)
        logits = self.logits(obs)
        mask = game.legal_action_mask()
        return int(np.argmax(np.where(mask, logits, -np.inf)))
