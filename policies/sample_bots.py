"""Small, valid bot files for checking the policy loader: an MLP and a spatial network with random weights.

Used by the tests and by ``tools/fuzz_bot_files.py`` (corrupted copies of these must raise ``PolicyFileError``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bc_env.encoding import Encoder, encoder_version
from bc_env.rules import Game, RulesConfig

from .neural import CELL_BLOCKS, save_arrays, save_policy


def _manifest(name: str, rules: RulesConfig, num_actions: int) -> dict:
    return {
        "name": name,
        "rules": rules.to_dict(),
        "rules_preset": rules.name,
        "encoder_version": encoder_version(rules),
        "action_layout": {"version": 1, "num_actions": num_actions},
        "training": {"note": "random weights for loader checks"},
    }


def write_mlp_bot(path: str | Path, config: RulesConfig | str = "core-2p", hidden: int = 8, seed: int = 0) -> Path:
    """An MLP bot ``obs -> hidden -> logits`` with random weights, at ``path`` (``.npz`` + ``.json``)."""
    rules = RulesConfig.resolve(config)
    rng = np.random.default_rng(seed)
    obs, n = Encoder(rules).size_total, Game.new(rules, 0).num_actions
    layers = [
        (rng.normal(0, 0.1, (hidden, obs)), rng.normal(0, 0.1, hidden)),
        (rng.normal(0, 0.1, (n, hidden)), rng.normal(0, 0.1, n)),
    ]
    manifest = _manifest(Path(path).name, rules, n)
    manifest["network"] = {"activation": "tanh", "hidden": [hidden]}
    return save_policy(path, layers, manifest)


def write_spatial_bot(
    path: str | Path, config: RulesConfig | str = "core-2p", channels: int = 4, seed: int = 0
) -> Path:
    """A spatial bot (two convolution layers of ``channels``) with random weights."""
    rules = RulesConfig.resolve(config)
    rng = np.random.default_rng(seed)
    enc = Encoder(rules)
    n = Game.new(rules, 0).num_actions
    c, s, f, g = enc.num_channels, enc.size, channels, 8
    v, e = enc.size_total - c * s * s, n - CELL_BLOCKS * s * s
    shapes = {
        "conv_in.w": (f, c, 3, 3), "conv_in.b": (f,), "vec_in.w": (f, v), "vec_in.b": (f,),
        "conv0.w": (f, f, 3, 3), "conv0.b": (f,), "glob.w": (g, v + f), "glob.b": (g,), "mix.w": (f, g),
        "mix.b": (f,), "cell.w": (CELL_BLOCKS, f, 1, 1), "cell.b": (CELL_BLOCKS,), "extra.w": (e, g), "extra.b": (e,),
    }  # fmt: skip
    arrays = {k: rng.normal(0, 0.1, shape) for k, shape in shapes.items()}
    manifest = _manifest(Path(path).name, rules, n)
    manifest["network"] = {
        "type": "spatial", "activation": "relu", "planes": c, "size": s, "vector": v, "channels": f,
        "layers": 2, "global": g, "extra": e,
    }  # fmt: skip
    return save_arrays(path, arrays, manifest)
