"""Trained policies on NumPy alone: a safe file format and a bot with the ``act(game)`` protocol.

A trained bot is two files side by side:

* ``<name>.npz`` — the weights, loaded with ``np.load(allow_pickle=False)`` (no pickle, ever);
* ``<name>.json`` — the manifest: format and version, rules configuration, encoder version, action layout
  (``num_actions``), network shape and activation, and the training provenance.

The network (manifest ``network.type``) is the policy half of the trained sb3 policy, either

* ``"mlp"`` (the default): ``obs -> [Linear -> act] * k -> Linear -> logits`` (arrays ``w<i>``, ``b<i>``), or
* ``"spatial"``: convolutions over the board planes with one logit per cell for the per-cell action blocks
  (``training/spatial.py`` documents the forward pass; arrays ``conv_in.w`` ... ``extra.b``).

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
    """Write an MLP policy: ``<path>.npz`` and ``<path>.json``; ``layers`` are (weight[out, in], bias[out])
    pairs, the last one producing the action logits."""
    arrays = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    data = dict(manifest)
    data["network"] = {
        **data.get("network", {}),
        "type": "mlp",
        "layers": [[int(w.shape[1]), int(w.shape[0])] for w, _ in layers],
    }
    return save_arrays(path, arrays, data)


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray], manifest: dict[str, Any]) -> Path:
    """Write ``<path>.npz`` (float32 arrays, no pickle) and ``<path>.json`` atomically."""
    path = Path(path).with_suffix("")
    arrays = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
    data = dict(manifest)
    data["format"] = FORMAT
    data["version"] = VERSION
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path.with_suffix(".npz"))
    tmp_json = path.with_name(path.name + ".tmp.json")
    tmp_json.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp_json.replace(path.with_suffix(".json"))
    return path


#: Per-cell action blocks at the start of every layout (docs/actions.md); the spatial network has one logit
#: per cell for each.
CELL_BLOCKS = 6


def _load_arrays(npz: Path, names: list[str]) -> dict[str, np.ndarray]:
    """The named float32 arrays of ``npz``, loaded without pickle."""
    out = {}
    with np.load(npz, allow_pickle=False) as arrays:
        for name in names:
            try:
                arr = arrays[name]
            except KeyError:
                raise PolicyFileError(f"{npz}: missing array {name!r}") from None
            except ValueError as exc:  # e.g. an object array, which would need pickle
                raise PolicyFileError(f"{npz}: refused ({exc}); policy files never use pickle") from None
            if arr.dtype != np.float32:
                raise PolicyFileError(f"{npz}: array {name!r} must be float32, not {arr.dtype}")
            out[name] = arr
    return out


def _spatial_shapes(net: dict[str, Any], man: Path) -> dict[str, tuple[int, ...]]:
    """The array names and shapes of a spatial network with the manifest's dimensions."""
    try:
        keys = ("planes", "size", "vector", "channels", "layers", "global", "extra")
        c, s, v, f, k, g, e = (int(net[x]) for x in keys)
    except (KeyError, TypeError, ValueError):
        raise PolicyFileError(
            f"{man}: a spatial network needs integer planes, size, vector, channels, layers, global and extra"
        ) from None
    shapes: dict[str, tuple[int, ...]] = {
        "conv_in.w": (f, c, 3, 3), "conv_in.b": (f,), "vec_in.w": (f, v), "vec_in.b": (f,),
        "glob.w": (g, v + f), "glob.b": (g,), "mix.w": (f, g), "mix.b": (f,),
        "cell.w": (CELL_BLOCKS, f, 1, 1), "cell.b": (CELL_BLOCKS,), "extra.w": (e, g), "extra.b": (e,),
    }  # fmt: skip
    for i in range(k - 1):
        shapes[f"conv{i}.w"] = (f, f, 3, 3)
        shapes[f"conv{i}.b"] = (f,)
    return shapes


def _conv3x3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3x3 convolution with zero padding 1 (torch's Conv2d: cross-correlation, weight[out, in, 3, 3]), as the
    sum of nine shifted matrix products."""
    cin, s, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((w.shape[0], s * s), dtype=np.float32)
    for i in range(3):
        for j in range(3):
            out += w[:, :, i, j] @ xp[:, i : i + s, j : j + s].reshape(cin, s * s)
    return out.reshape(w.shape[0], s, s) + b[:, None, None]


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
        net = data.get("network")
        if not isinstance(net, dict):
            raise PolicyFileError(f"{man}: no 'network' description")
        self.kind = net.get("type", "mlp")
        if self.kind == "mlp":
            names = [f"{x}{i}" for i in range(len(net.get("layers", []))) for x in "wb"]
            if not names:
                raise PolicyFileError(f"{man}: an mlp network needs at least one layer")
        elif self.kind == "spatial":
            shapes = _spatial_shapes(net, man)
            names = list(shapes)
        else:
            raise PolicyFileError(f"{man}: unknown network type {self.kind!r} (allowed: mlp, spatial)")
        arrays = _load_arrays(npz, names)
        if self.kind == "mlp":
            self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(len(names) // 2)]
            for i, (w, b) in enumerate(self.layers):
                if w.ndim != 2 or b.shape != (w.shape[0],):
                    raise PolicyFileError(f"{npz}: layer {i} must be float32 weight[out, in] and bias[out]")
            self.num_actions = int(self.layers[-1][0].shape[0])
        else:
            for name, shape in shapes.items():
                if arrays[name].shape != shape:
                    raise PolicyFileError(f"{npz}: array {name} has shape {arrays[name].shape}, expected {shape}")
            self.arrays = arrays
            self.net = net
            self.num_actions = CELL_BLOCKS * int(net["size"]) ** 2 + int(net["extra"])
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
        """Unmasked action logits of one observation (or of a batch, one per row)."""
        if self.kind == "spatial":
            if obs.ndim == 2:
                return np.stack([self._spatial_logits(o) for o in obs])
            return self._spatial_logits(obs)
        x = obs.astype(np.float32, copy=False)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w.T + b
            if i < last:
                x = self._act(x)
        return x

    def _spatial_logits(self, obs: np.ndarray) -> np.ndarray:
        """The forward pass of ``training/spatial.py`` (same order of operations) for one observation."""
        a, net, act = self.arrays, self.net, self._act
        c, s, f = int(net["planes"]), int(net["size"]), int(net["channels"])
        x = obs.astype(np.float32, copy=False)
        vec = x[c * s * s :]
        h = act(_conv3x3(x[: c * s * s].reshape(c, s, s), a["conv_in.w"], a["conv_in.b"])
                + (a["vec_in.w"] @ vec + a["vec_in.b"])[:, None, None])  # fmt: skip
        for i in range(int(net["layers"]) - 1):
            h = act(_conv3x3(h, a[f"conv{i}.w"], a[f"conv{i}.b"]))
        g = act(a["glob.w"] @ np.concatenate([vec, h.reshape(f, s * s).mean(axis=1)]) + a["glob.b"])
        h = act(h + (a["mix.w"] @ g + a["mix.b"])[:, None, None])
        cells = a["cell.w"].reshape(CELL_BLOCKS, f) @ h.reshape(f, s * s) + a["cell.b"][:, None]
        return np.concatenate([cells.reshape(-1), a["extra.w"] @ g + a["extra.b"]]).astype(np.float32, copy=False)

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
        if game.num_actions != self.num_actions:
            raise PolicyFileError(f"policy {self.name} has {self.num_actions} actions, the game has {game.num_actions}")
        obs = self._encoder(game).encode(game, player)
        logits = self.logits(obs)
        mask = game.legal_action_mask()
        return int(np.argmax(np.where(mask, logits, -np.inf)))
