"""Trained policies on NumPy alone: a safe file format and a bot with the ``act(game)`` protocol.

A trained bot is two files side by side:

* ``<name>.npz`` — the weights, loaded with ``np.load(allow_pickle=False)`` (no pickle, ever);
* ``<name>.json`` — the manifest: format and version, rules configuration, observation layout
  (``observation_layout``: ``core`` when absent, ``compact-v1`` or ``compact-v2``, docs/observation.md) and its encoder
  version, action layout (``num_actions``), network shape and activation, and the training provenance.

The network (manifest ``network.type``) is the policy half of the trained sb3 policy, either

* ``"mlp"`` (the default): ``obs -> [Linear -> act] * k -> Linear -> logits`` (arrays ``w<i>``, ``b<i>``), or
  With the optional ``network.value_layers`` (arrays ``vw<i>``, ``vb<i>``) the file also has a value head,
  ``obs -> [Linear -> act] * k -> Linear -> tanh``: the observer's expected return (``NeuralPolicy.value``;
  the expert-iteration networks have one, ``policies.mcts`` can search with it);
* ``"spatial"``: convolutions over the board planes with one logit per cell for the per-cell action blocks
  (``training/spatial.py`` documents the forward pass; arrays ``conv_in.w`` ... ``extra.b``).

Illegal actions are masked out, so the bot always chooses a legal action (the most likely one).

Loading checks everything before the bot plays: the manifest's every field (format, version, rules, encoder
version, action layout, network type, activation and shape), the arrays (names, float32, shapes that fit the
manifest and the game's observation and action sizes, finite values) and, given ``config``, that the bot was
trained for those rules. Any problem raises :class:`PolicyFileError` naming the file and the field; a bot asked
to act in a game of other rules raises :class:`PolicyConfigError` naming both configurations.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.rules import BalanceControlError, Game, IllegalActionError, RulesConfig, StateError
from bc_env.rules.jsonread import strict_loads

FORMAT = "balance-control-policy"
VERSION = 1

#: Bounds of the network dimensions a manifest may declare (far above every trained bot; they keep a corrupted
#: manifest from describing absurd shapes).
MAX_LAYERS = 64
MAX_WIDTH = 1 << 16


class PolicyFileError(BalanceControlError):
    """A policy file or its manifest is missing, malformed or does not fit the game."""


class PolicyConfigError(PolicyFileError):
    """A trained bot used with rules other than those in its manifest (the message names both)."""


def rules_key(config: RulesConfig) -> dict[str, Any]:
    """What must agree between a bot's manifest and a game: the rules, whatever the configuration is called."""
    data = config.to_dict()
    data.pop("name", None)
    return data


def check_rules(policy_name: str, trained: RulesConfig, config: RulesConfig) -> None:
    """Raise :class:`PolicyConfigError` unless ``config`` has the rules ``policy_name`` was trained for."""
    if rules_key(trained) != rules_key(config):
        a, b = rules_key(trained), rules_key(config)
        diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        raise PolicyConfigError(
            f"bot {policy_name} was trained for rules {trained.name} ({trained.players} players), "
            f"this game is {config.name} ({config.players} players); they differ in {', '.join(diff)}"
        )


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


def save_policy(
    path: str | Path,
    layers: list[tuple[np.ndarray, np.ndarray]],
    manifest: dict[str, Any],
    value_layers: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> Path:
    """Write an MLP policy: ``<path>.npz`` and ``<path>.json``; ``layers`` are (weight[out, in], bias[out])
    pairs, the last one producing the action logits; ``value_layers`` (optional) the value head's, the last one
    producing one output (``network.value_layers``)."""
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
    if value_layers:
        for i, (w, b) in enumerate(value_layers):
            arrays[f"vw{i}"] = np.asarray(w, dtype=np.float32)
            arrays[f"vb{i}"] = np.asarray(b, dtype=np.float32)
        data["network"]["value_layers"] = [[int(w.shape[1]), int(w.shape[0])] for w, _ in value_layers]
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
    """The named float32 arrays of ``npz``, loaded without pickle; a file NumPy cannot read raises
    ``PolicyFileError``."""
    try:
        return _read_arrays(npz, names)
    except PolicyFileError:
        raise
    except Exception as exc:  # noqa: BLE001
        # A corrupted .npz fails anywhere in zipfile and NumPy's header parser (BadZipFile, EOFError, zlib.error,
        # NotImplementedError for an odd zip version, SyntaxError or tokenize.TokenError for a mangled header,
        # ValueError, ...): all of them mean the same thing to the caller.
        raise PolicyFileError(f"{npz}: corrupted weights file ({type(exc).__name__}: {exc})") from None


def _read_arrays(npz: Path, names: list[str]) -> dict[str, np.ndarray]:
    out = {}
    with np.load(npz, allow_pickle=False) as arrays:
        if not hasattr(arrays, "files"):  # a bare .npy, not an .npz archive
            raise PolicyFileError(f"{npz}: not an .npz archive of named arrays")
        for name in names:
            try:
                arr = arrays[name]
            except KeyError:
                raise PolicyFileError(f"{npz}: missing array {name!r}") from None
            except ValueError as exc:  # e.g. an object array, which would need pickle
                raise PolicyFileError(f"{npz}: refused ({exc}); policy files never use pickle") from None
            if arr.dtype != np.float32:
                raise PolicyFileError(f"{npz}: array {name!r} must be float32, not {arr.dtype}")
            if not np.isfinite(arr).all():
                raise PolicyFileError(f"{npz}: array {name!r} has values that are not finite (nan or inf)")
            out[name] = arr
        extra = sorted(set(arrays.files) - set(names))
        if extra:
            raise PolicyFileError(f"{npz}: unexpected array(s) {', '.join(extra)} for this network")
    return out


def _int_field(value: Any, where: str, low: int = 1, high: int = MAX_WIDTH) -> int:
    """A manifest integer (not a bool, not a float) within ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PolicyFileError(f"{where} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise PolicyFileError(f"{where} must be in {low}..{high}, got {value}")
    return value


def _spatial_shapes(net: dict[str, Any], man: Path) -> dict[str, tuple[int, ...]]:
    """The array names and shapes of a spatial network with the manifest's dimensions."""
    keys = ("planes", "size", "vector", "channels", "layers", "global", "extra")
    missing = [x for x in keys if x not in net]
    if missing:
        raise PolicyFileError(
            f"{man}: a spatial network needs integer planes, size, vector, channels, layers, global and extra "
            f"(missing: {', '.join(missing)})"
        )
    c, s, v, f, g, e = (_int_field(net[x], f"{man}: network.{x}") for x in ("planes", "size", "vector", "channels",
                                                                         "global", "extra"))  # fmt: skip
    k = _int_field(net["layers"], f"{man}: network.layers", 1, MAX_LAYERS)
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
    xp = np.zeros((cin, s + 2, s + 2), dtype=x.dtype)  # the padded input (np.pad: the same values, a fifth slower
    xp[:, 1:-1, 1:-1] = x  # forward pass)
    out = np.zeros((w.shape[0], s * s), dtype=np.float32)
    for i in range(3):
        for j in range(3):
            out += w[:, :, i, j] @ xp[:, i : i + s, j : j + s].reshape(cin, s * s)
    return out.reshape(w.shape[0], s, s) + b[:, None, None]


def manifest_encoder(data: dict[str, Any], rules: RulesConfig, man: Path) -> tuple[str, Any]:
    """``(layout, encoder)`` of a policy manifest: its observation layout (``observation_layout``, the core layout
    when absent: the core bots survive expansion changes, their versions being per layout) and that layout's
    encoder for ``rules``, once the manifest's ``encoder_version`` is checked against it. ``PolicyFileError``
    naming the file and the field otherwise."""
    from bc_env.encoding import LAYOUTS, layout_encoder

    layout = data.get("observation_layout", "core")
    if layout not in LAYOUTS:
        raise PolicyFileError(f"{man}: observation_layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    try:
        encoder = layout_encoder(rules, layout)
    except ValueError as exc:  # compact-v1 of an expansion
        raise PolicyFileError(f"{man}: {exc}") from None
    version, expected = data.get("encoder_version"), encoder.version
    if type(version) is not type(expected) or version != expected:
        raise PolicyFileError(
            f"{man}: trained with encoder version {version!r}, this code has version {expected!r} for its rules"
        )
    return layout, encoder


class NeuralPolicy:
    """A trained policy (NumPy inference). ``act(game)`` returns the most likely legal action."""

    def __init__(self, path: str | Path, config: RulesConfig | str | None = None) -> None:
        """Load and check the bot at ``path`` (``.npz`` and ``.json``); with ``config``, also check that the bot
        was trained for those rules (else :class:`PolicyConfigError`)."""
        path = Path(path).with_suffix("")
        npz, man = path.with_suffix(".npz"), path.with_suffix(".json")
        if not npz.is_file() or not man.is_file():
            raise PolicyFileError(f"a policy needs both {npz} and {man}")
        try:
            self._load(path, npz, man)
        except PolicyFileError:
            raise
        except BalanceControlError as exc:  # e.g. ConfigError from the manifest's rules
            raise PolicyFileError(f"{man}: {exc}") from None
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, IndexError, TypeError, ValueError,
                AttributeError, RecursionError, OverflowError, MemoryError) as exc:  # fmt: skip
            # A corrupted file that the checks above did not name (e.g. a truncated zip member).
            raise PolicyFileError(f"{npz}: corrupted policy file ({type(exc).__name__}: {exc})") from None
        if config is not None:
            check_rules(self.name, self.rules, RulesConfig.resolve(config))

    def _load(self, path: Path, npz: Path, man: Path) -> None:
        try:
            data = strict_loads(man.read_bytes(), "manifest")  # finite numbers, Unicode strings (a bot's name)
        except StateError as exc:
            raise PolicyFileError(f"{man}: {str(exc).removeprefix('manifest: ')}") from None
        if not isinstance(data, dict):
            raise PolicyFileError(f"{man}: a manifest is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT or type(data.get("version")) is not int or data["version"] != VERSION:
            raise PolicyFileError(f"{man}: not a {FORMAT} v{VERSION} manifest")
        name = data.get("name", path.name)
        if not isinstance(name, str) or not name:
            raise PolicyFileError(f"{man}: name must be a non-empty string, got {name!r}")
        self.name = name
        if "rules" not in data:
            raise PolicyFileError(f"{man}: no 'rules' (the rules configuration the bot was trained for)")
        self.manifest = Manifest(data)
        self.rules = self.manifest.rules  # ConfigError names a bad option
        self.observation_layout, encoder = manifest_encoder(data, self.rules, man)
        if "rules_preset" in data and not isinstance(data["rules_preset"], str):
            raise PolicyFileError(f"{man}: rules_preset must be a string, got {data['rules_preset']!r}")
        if "training" in data and not isinstance(data["training"], dict):
            raise PolicyFileError(f"{man}: training (the provenance) must be an object")
        game_actions = Game.new(self.rules, 0).num_actions
        obs_size = int(encoder.size_total)
        layout = data.get("action_layout")
        if not isinstance(layout, dict) or type(layout.get("version")) is not int or layout["version"] != 1:
            raise PolicyFileError(f"{man}: action_layout must be an object with version 1 and num_actions")
        declared = _int_field(layout.get("num_actions"), f"{man}: action_layout.num_actions")
        if declared != game_actions:
            raise PolicyFileError(
                f"{man}: action_layout.num_actions is {declared}, the rules {self.rules.name} have {game_actions}"
            )
        net = data.get("network")
        if not isinstance(net, dict):
            raise PolicyFileError(f"{man}: no 'network' description")
        activation = net.get("activation")
        if activation not in ("tanh", "relu"):
            raise PolicyFileError(f"{man}: network.activation must be 'tanh' or 'relu', got {activation!r}")
        self.kind = net.get("type", "mlp")
        if self.kind == "mlp":
            layers = net.get("layers")
            if not isinstance(layers, list) or not 1 <= len(layers) <= MAX_LAYERS:
                raise PolicyFileError(
                    f"{man}: an mlp network needs network.layers, a list of 1..{MAX_LAYERS} [in, out]"
                )
            dims = []
            for i, pair in enumerate(layers):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise PolicyFileError(f"{man}: network.layers[{i}] must be [in, out], got {pair!r}")
                dims.append(tuple(_int_field(d, f"{man}: network.layers[{i}]") for d in pair))
            if dims[0][0] != obs_size:
                raise PolicyFileError(
                    f"{man}: the first layer takes {dims[0][0]} inputs, the observation of {self.rules.name} "
                    f"has {obs_size}"
                )
            for i in range(1, len(dims)):
                if dims[i][0] != dims[i - 1][1]:
                    raise PolicyFileError(f"{man}: network.layers[{i}] takes {dims[i][0]}, layer {i - 1} gives "
                                          f"{dims[i - 1][1]}")  # fmt: skip
            if dims[-1][1] != game_actions:
                raise PolicyFileError(f"{man}: the last layer gives {dims[-1][1]} logits, the game has {game_actions}")
            if "hidden" in net and net["hidden"] != [d[1] for d in dims[:-1]]:
                raise PolicyFileError(f"{man}: network.hidden {net['hidden']!r} does not match network.layers")
            vdims = self._value_dims(net.get("value_layers"), man, obs_size)
            names = [f"{x}{i}" for i in range(len(dims)) for x in "wb"]
            names += [f"v{x}{i}" for i in range(len(vdims)) for x in "wb"]
            arrays = _load_arrays(npz, names)
            self.value_layers = [(arrays[f"vw{i}"], arrays[f"vb{i}"]) for i in range(len(vdims))]
            for i, ((w, b), (n_in, n_out)) in enumerate(zip(self.value_layers, vdims, strict=True)):
                if w.shape != (n_out, n_in) or b.shape != (n_out,):
                    raise PolicyFileError(
                        f"{npz}: value layer {i} must be float32 weight[{n_out}, {n_in}] and bias[{n_out}] "
                        f"(network.value_layers), got {w.shape} and {b.shape}"
                    )
            self.layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(len(dims))]
            for i, ((w, b), (n_in, n_out)) in enumerate(zip(self.layers, dims, strict=True)):
                if w.shape != (n_out, n_in) or b.shape != (n_out,):
                    raise PolicyFileError(
                        f"{npz}: layer {i} must be float32 weight[{n_out}, {n_in}] and bias[{n_out}] "
                        f"(network.layers), got {w.shape} and {b.shape}"
                    )
            self.num_actions = dims[-1][1]
        elif self.kind == "spatial":
            if self.observation_layout != "core":
                raise PolicyFileError(f"{man}: a spatial network reads the core observation layout's planes")
            if "value_layers" in net:
                raise PolicyFileError(f"{man}: network.value_layers is only supported for an mlp network")
            self.value_layers = []
            shapes = _spatial_shapes(net, man)
            expected = {
                "planes": encoder.num_channels,
                "size": encoder.size,
                "vector": obs_size - encoder.num_channels * encoder.size**2,
                "extra": game_actions - CELL_BLOCKS * encoder.size**2,
            }
            for key, value in expected.items():
                if net[key] != value:
                    raise PolicyFileError(
                        f"{man}: network.{key} is {net[key]}, the observation and actions of {self.rules.name} "
                        f"need {value}"
                    )
            arrays = _load_arrays(npz, list(shapes))
            for name, shape in shapes.items():
                if arrays[name].shape != shape:
                    raise PolicyFileError(f"{npz}: array {name} has shape {arrays[name].shape}, expected {shape}")
            self.arrays = arrays
            self.net = net
            self.num_actions = CELL_BLOCKS * int(net["size"]) ** 2 + int(net["extra"])
        else:
            raise PolicyFileError(f"{man}: unknown network type {self.kind!r} (allowed: mlp, spatial)")
        self._act = _act_fn(self.manifest.activation)
        self._encoders: dict[RulesConfig, Any] = {self.rules: encoder}

    @staticmethod
    def _value_dims(layers: Any, man: Path, obs_size: int) -> list[tuple[int, int]]:
        """The optional value head (``network.value_layers``: [in, out] per layer, obs -> ... -> 1)."""
        if layers is None:
            return []
        if not isinstance(layers, list) or not 1 <= len(layers) <= MAX_LAYERS:
            raise PolicyFileError(f"{man}: network.value_layers must be a list of 1..{MAX_LAYERS} [in, out]")
        dims = []
        for i, pair in enumerate(layers):
            if not isinstance(pair, list) or len(pair) != 2:
                raise PolicyFileError(f"{man}: network.value_layers[{i}] must be [in, out], got {pair!r}")
            dims.append(tuple(_int_field(d, f"{man}: network.value_layers[{i}]") for d in pair))
        chained = all(dims[i][0] == dims[i - 1][1] for i in range(1, len(dims)))
        if dims[0][0] != obs_size or dims[-1][1] != 1 or not chained:
            raise PolicyFileError(
                f"{man}: network.value_layers must chain from the {obs_size} observation inputs to 1 output"
            )
        return dims

    @property
    def has_value(self) -> bool:
        """Whether the file has a value head (``network.value_layers``, e.g. an expert-iteration network)."""
        return bool(self.value_layers)

    def value(self, obs: np.ndarray) -> float:
        """The value head's estimate of the observer's return, in [-1, 1] (``has_value`` must be True)."""
        if not self.value_layers:
            raise PolicyFileError(f"policy {self.name} has no value head")
        x = obs.astype(np.float32, copy=False)
        last = len(self.value_layers) - 1
        for i, (w, b) in enumerate(self.value_layers):
            x = x @ w.T + b
            if i < last:
                x = self._act(x)
        return float(np.tanh(x[..., 0]))

    def observe(self, game: Game, player: int) -> np.ndarray:
        """The observation of ``player`` in ``game`` as this bot sees it (its encoder; rules checked)."""
        return self._encoder(game).encode(game, player)

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
            from bc_env.encoding import layout_encoder

            check_rules(self.name, self.rules, game.config)
            enc = self._encoders[game.config] = layout_encoder(game.config, self.observation_layout)
        return enc

    def act(self, game: Game) -> int:
        player = game.current_player
        if player is None:
            raise IllegalActionError("the game is over: no decision to take")
        obs = self._encoder(game).encode(game, player)  # PolicyConfigError for a game of other rules
        logits = self.logits(obs)
        mask = game.legal_action_mask()
        return int(np.argmax(np.where(mask, logits, -np.inf)))
