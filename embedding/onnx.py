"""A trained bot run from its ONNX export with onnxruntime: no torch, the same ``act(game)`` as the NumPy bot.

``training.export.export_policy_onnx(name_or_path, out)`` writes ``out.onnx`` (the logits network,
``obs[batch, obs_size] -> logits[batch, num_actions]``, any batch size) and ``out.json`` (the policy's manifest
plus an ``onnx`` entry).
:class:`OnnxPolicy` reads both, encodes the position with the policy's encoder (``bc_env.encoding``), runs the
graph and masks illegal actions, exactly as ``policies.neural.NeuralPolicy`` does with its NumPy forward pass;
``tests/test_embedding_onnx.py`` checks that the two choose the same actions. Needs the ``onnx`` extra (only
onnxruntime and NumPy at run time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bc_env.encoding import layout_encoder
from bc_env.rules import Game, RulesConfig, StateError
from bc_env.rules.jsonread import strict_loads
from policies.neural import FORMAT, VERSION, PolicyFileError, manifest_encoder


class OnnxPolicy:
    """A trained policy from ``<path>.onnx`` + ``<path>.json``; ``act(game)`` returns the most likely legal action."""

    def __init__(self, path: str | Path, *, threads: int = 1) -> None:
        import onnxruntime as ort

        path = Path(path).with_suffix("")
        model, man = path.with_suffix(".onnx"), path.with_suffix(".json")
        if not model.is_file() or not man.is_file():
            raise PolicyFileError(f"an ONNX policy needs both {model} and {man}")
        try:
            data = strict_loads(man.read_bytes(), "manifest")
        except StateError as exc:
            raise PolicyFileError(f"{man}: {str(exc).removeprefix('manifest: ')}") from None
        if not isinstance(data, dict):
            raise PolicyFileError(f"{man}: a manifest is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT or data.get("version") != VERSION or not isinstance(data.get("onnx"), dict):
            raise PolicyFileError(f"{man}: not a {FORMAT} v{VERSION} manifest with an 'onnx' entry")
        self.name = str(data.get("name", path.name))
        self.rules = RulesConfig.from_dict(data["rules"])
        self._layout, encoder = manifest_encoder(data, self.rules, man)
        self.num_actions = int(data["action_layout"]["num_actions"])
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self._encoders: dict[RulesConfig, Any] = {self.rules: encoder}

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation."""
        out = self.session.run(None, {self.input: obs.astype(np.float32, copy=False).reshape(1, -1)})
        return np.asarray(out[0][0], dtype=np.float32)

    def act(self, game: Game) -> int:
        player = game.current_player
        if player is None:
            raise ValueError("the game is over: no decision to take")
        if game.num_actions != self.num_actions:
            raise PolicyFileError(f"policy {self.name} has {self.num_actions} actions, the game has {game.num_actions}")
        enc = self._encoders.get(game.config)
        if enc is None:
            enc = self._encoders[game.config] = layout_encoder(game.config, self._layout)
        logits = self.logits(enc.encode(game, player))
        return int(np.argmax(np.where(game.legal_action_mask(), logits, -np.inf)))
