"""Export a trained MaskablePPO policy to the torch-free format of ``policies.neural`` (and optionally ONNX)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bc_env.encoding import encoder_version
from bc_env.rules import BalanceControlError, RulesConfig
from policies.neural import NeuralPolicy, save_arrays, save_policy
from training.rundir import git_commit
from training.spatial import CELL_BLOCKS, GLOBAL_DIM, SpatialPolicy, spatial_arrays, spatial_parameters


def _mlp_modules(model: Any) -> list[nn.Linear]:
    """The linear layers of an MLP policy's policy path: mlp_extractor.policy_net then action_net."""
    linear = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    return [*linear, model.policy.action_net]


def policy_layers(model: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of the policy path: mlp_extractor.policy_net then action_net."""
    return [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in _mlp_modules(model)]


def load_policy_weights(model: Any, policy: NeuralPolicy) -> None:
    """Copy an exported policy's weights into ``model``'s policy path (trunk and action head), the inverse of
    :func:`export_policy`; the value head keeps its own weights. The network of ``model`` must have the same
    type and shape, else ``ValueError`` names the first difference and nothing is copied."""
    spatial = isinstance(model.policy, SpatialPolicy)
    if policy.kind != ("spatial" if spatial else "mlp"):
        kind = "spatial" if spatial else "mlp"
        raise ValueError(f"policy {policy.name} has a {policy.kind} network, this run's network is {kind}")
    if spatial:
        pairs = [(name, t, policy.arrays[name]) for name, t in spatial_parameters(model.policy).items()]
    else:
        modules = _mlp_modules(model)
        if len(modules) != len(policy.layers):
            raise ValueError(f"policy {policy.name} has {len(policy.layers)} layers, this run's network {len(modules)}")
        pairs = []
        for i, (m, (w, b)) in enumerate(zip(modules, policy.layers, strict=True)):
            pairs += [(f"layer {i} weight", m.weight, w), (f"layer {i} bias", m.bias, b)]
    for name, t, arr in pairs:
        if tuple(t.shape) != arr.shape:
            raise ValueError(f"policy {policy.name}: {name} has shape {arr.shape}, this run's network {tuple(t.shape)}")
    with torch.no_grad():
        for _, t, arr in pairs:
            t.copy_(torch.as_tensor(arr, device=t.device))


def torch_logits(model: Any, obs: np.ndarray) -> np.ndarray:
    """Unmasked action logits of the torch policy (for checking the NumPy export)."""
    with torch.no_grad():
        t = torch.as_tensor(np.atleast_2d(obs), dtype=torch.float32)
        features = model.policy.extract_features(t, model.policy.pi_features_extractor)
        latent = model.policy.mlp_extractor.forward_actor(features)
        return model.policy.action_net(latent).cpu().numpy()


def export_policy(
    model: Any,
    path: str | Path,
    *,
    name: str,
    rules: RulesConfig,
    activation: str,
    provenance: dict[str, Any],
) -> Path:
    spatial = isinstance(model.policy, SpatialPolicy)
    num_actions = int(model.policy.action_space.n)
    manifest = {
        "name": name,
        "rules": rules.to_dict(),
        "rules_preset": rules.name,
        "encoder_version": encoder_version(rules),
        "action_layout": {"version": 1, "num_actions": num_actions},
        "training": {
            **provenance,
            "exported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "git_commit": git_commit(),
        },
    }
    if spatial:
        fx = model.policy.features_extractor
        manifest["network"] = {
            "type": "spatial",
            "activation": activation,
            "planes": fx.planes,
            "size": fx.size,
            "vector": fx.vector,
            "channels": fx.channels,
            "layers": len(fx.convs) + 1,
            "global": GLOBAL_DIM,
            "extra": num_actions - CELL_BLOCKS * fx.size * fx.size,
        }
        return save_arrays(path, spatial_arrays(model.policy), manifest)
    layers = policy_layers(model)
    manifest["network"] = {"activation": activation, "hidden": [int(w.shape[0]) for w, _ in layers[:-1]]}
    return save_policy(path, layers, manifest)


class ExportError(BalanceControlError):
    """An SB3 model that cannot become a bot for these rules (the message names what does not fit)."""


def export_sb3(
    model: Any, path: str | Path, config: RulesConfig | str, *, name: str | None = None, check: bool = True
) -> NeuralPolicy:
    """One call from a trained SB3 / sb3-contrib model to a bot: ``<path>.npz`` + ``<path>.json``, loadable with
    ``policies.load(path)`` and playable on NumPy alone (no torch).

    ``model`` is a ``MaskablePPO`` (or ``PPO``) trained on ``SingleAgentEnv(config)`` with the flat observation
    (``"MlpPolicy"`` with tanh or ReLU) or this project's spatial network (``training/spatial.py``). The model's
    observation and action spaces must be those of ``config``, else :class:`ExportError` names the difference
    before anything is written. With ``check`` (default) the exported bot's logits are compared with the torch
    policy's on a few positions. Returns the loaded bot.
    """
    from bc_env.encoding import Encoder
    from bc_env.rules import Game

    rules = RulesConfig.resolve(config)
    encoder = Encoder(rules)
    num_actions = Game.new(rules, 0).num_actions
    spatial = isinstance(model.policy, SpatialPolicy)
    space_n = getattr(model.action_space, "n", None)
    if space_n != num_actions:
        raise ExportError(f"the model has {space_n} actions, {rules.name} has {num_actions}")
    shape = getattr(model.observation_space, "shape", None)
    if not spatial and shape != (encoder.size_total,):
        raise ExportError(
            f"the model's observation has shape {shape}, the flat observation of {rules.name} has "
            f"({encoder.size_total},) (train on SingleAgentEnv({rules.name!r}) with obs_format='flat')"
        )
    activations = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    activation_fn = getattr(model.policy, "activation_fn", None)
    if activation_fn not in activations:
        raise ExportError(f"the model's activation {activation_fn!r} is not supported (tanh or ReLU)")
    name = name or Path(path).with_suffix("").name
    provenance = {"exported_with": "training.export.export_sb3", "algorithm": type(model).__name__}
    out = export_policy(
        model, path, name=name, rules=rules, activation=activations[activation_fn], provenance=provenance
    )
    bot = NeuralPolicy(out, config=rules)
    if check:
        game = Game.new(rules, 0)
        for _ in range(3):
            obs = encoder.encode(game, game.current_player)
            if not np.allclose(bot.logits(obs), torch_logits(model, obs)[0], atol=1e-4, rtol=1e-4):
                raise ExportError(f"the exported bot's logits differ from the model's at {path}")
            game.apply(game.legal_actions()[0])
    return bot


def parent_provenance(policy: NeuralPolicy, source: str) -> dict[str, Any]:
    """What a run started from (``init_policy``), for its manifest's ``training.init_from``: the parent's name,
    where it was loaded from, and the parent's own training provenance, which holds its parent in turn, so a
    manifest carries the whole chain of runs behind a policy."""
    return {"name": policy.name, "source": source, "training": policy.manifest.data.get("training", {})}


def export_onnx(model: Any, path: str | Path, obs_size: int) -> Path:
    """ONNX export of the logits network, ``obs[batch, obs_size] -> logits[batch, num_actions]`` with a dynamic
    batch axis, as one self-contained ``<path>.onnx`` file (needs the ``onnx`` extra: torch's exporter writes it with
    onnx and onnxscript). Run it without torch with ``embedding.onnx.OnnxPolicy``; docs/embedding.md."""

    class Logits(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy = model.policy

        def forward(self, obs: torch.Tensor) -> torch.Tensor:
            features = self.policy.extract_features(obs, self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))

    path = Path(path).with_suffix(".onnx")
    path.parent.mkdir(parents=True, exist_ok=True)
    module = Logits().eval()
    with torch.no_grad():
        torch.onnx.export(
            module,
            (torch.zeros(2, obs_size),),  # not 1: the exporter would fix a batch axis of size 1
            str(path),
            input_names=["obs"],
            output_names=["logits"],
            dynamic_shapes=({0: torch.export.Dim("batch")},),  # any number of observations at once
            dynamo=True,
            external_data=False,
            verbose=False,
        )
    return path


def torch_policy(policy: NeuralPolicy) -> Any:
    """An sb3 policy network (spatial or MLP) holding the weights of an exported NumPy policy, wrapped as an object
    with a ``.policy`` attribute like a model, so :func:`export_onnx` and :func:`torch_logits` take it."""
    from types import SimpleNamespace

    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from bc_env.encoding import Encoder
    from training.spatial import policy_kwargs

    encoder = Encoder(policy.rules)
    obs_space = spaces.Box(-np.inf, np.inf, shape=(encoder.size_total,), dtype=np.float32)
    act_space = spaces.Discrete(policy.num_actions)
    activation = policy.manifest.activation
    if policy.kind == "spatial":
        net = policy.net
        kwargs = policy_kwargs(encoder, int(net["channels"]), int(net["layers"]), [64], activation)
        sb3: Any = SpatialPolicy(obs_space, act_space, lambda _: 0.0, **kwargs)
    else:
        hidden = [int(w.shape[0]) for w, _ in policy.layers[:-1]]
        act_fn = nn.Tanh if activation == "tanh" else nn.ReLU
        sb3 = MaskableActorCriticPolicy(
            obs_space, act_space, lambda _: 0.0, net_arch={"pi": hidden, "vf": hidden}, activation_fn=act_fn
        )
    model = SimpleNamespace(policy=sb3)
    load_policy_weights(model, policy)
    sb3.set_training_mode(False)
    return model


def export_policy_onnx(policy: NeuralPolicy | str | Path, path: str | Path) -> Path:
    """Export an exported NumPy policy (``policies.load`` name or path) to ``<path>.onnx`` plus its manifest
    ``<path>.json`` (the policy's manifest with an ``onnx`` entry), for ``embedding.onnx.OnnxPolicy``."""
    import json

    if not isinstance(policy, NeuralPolicy):
        from policies import load

        loaded = load(str(policy))
        if not isinstance(loaded, NeuralPolicy):
            raise ValueError(f"{policy!r} is not a trained policy (only trained policies have a network)")
        policy = loaded
    from bc_env.encoding import layout_encoder

    obs_size = layout_encoder(policy.rules, policy.observation_layout).size_total
    out = export_onnx(torch_policy(policy), path, obs_size)
    manifest = dict(policy.manifest.data)
    manifest["onnx"] = {"file": out.name, "input": "obs", "output": "logits", "obs_size": obs_size, "batch": "dynamic"}
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out
