"""The RLModule of the RLlib backend: an MLP over the flat observation with legal-action masking.

The observation is the env's dict ``{"observation": float32[obs], "action_mask": int8[num_actions]}``. The policy
network is ``obs -> [Linear -> act] * k -> Linear -> logits`` (exactly the MLP of ``policies.neural``, so the
export is a copy of the weights); illegal actions get the lowest float logit, so they are never sampled and have
probability 0 in the PPO loss. The value network is a separate MLP of the same hidden sizes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

#: The logit of an illegal action (float32's lowest value, as RLlib's own masking examples use).
MASKED_LOGIT = float(torch.finfo(torch.float32).min)


def mlp(inputs: int, hidden: list[int], outputs: int, activation: str, out_gain: float) -> nn.Sequential:
    """``[Linear -> act] * len(hidden) -> Linear``, orthogonally initialised as stable-baselines3 does (gain
    sqrt(2) for hidden layers, ``out_gain`` for the output layer, zero biases)."""
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    sizes = [inputs, *hidden]
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act()]
    layers.append(nn.Linear(sizes[-1], outputs))
    for m in layers:
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=out_gain if m is layers[-1] else float(np.sqrt(2)))
            nn.init.zeros_(m.bias)
    return nn.Sequential(*layers)


def linear_layers(net: nn.Sequential) -> list[nn.Linear]:
    return [m for m in net if isinstance(m, nn.Linear)]


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """PPO-ready module; ``model_config``: ``hidden`` (list of ints), ``activation`` ("tanh" or "relu") and
    optionally ``init_policy`` (the path of an exported MLP policy whose weights the policy network starts from)."""

    def setup(self) -> None:
        space = self.observation_space["observation"]  # type: ignore[index]
        obs_dim = int(np.prod(space.shape))
        n = int(self.action_space.n)  # type: ignore[union-attr]
        hidden = [int(h) for h in self.model_config["hidden"]]
        activation = str(self.model_config["activation"])
        self.pi = mlp(obs_dim, hidden, n, activation, out_gain=0.01)
        # Also in inference-only copies (the env runners): the weights synced from the learner then match key
        # for key, and the value net costs nothing at sampling time (it is not called there).
        self.vf = mlp(obs_dim, hidden, 1, activation, out_gain=1.0)
        init = self.model_config.get("init_policy")
        if init:
            load_policy_into(self.pi, init)

    def _logits(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.pi(obs["observation"].float())
        return logits.masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch[Columns.OBS])}

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        with torch.no_grad():
            return self._forward(batch)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        with torch.no_grad():
            return self._forward(batch)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS]["observation"].float()).squeeze(-1)


def load_policy_into(pi: nn.Sequential, path: str) -> None:
    """Copy an exported MLP policy's weights (``policies.neural``) into ``pi``; shapes must match."""
    from policies.neural import NeuralPolicy

    policy = NeuralPolicy(path)
    modules = linear_layers(pi)
    if policy.kind != "mlp" or len(policy.layers) != len(modules):
        raise ValueError(f"init_policy {path}: not an MLP policy with {len(modules)} layers")
    for i, (m, (w, _b)) in enumerate(zip(modules, policy.layers, strict=True)):
        if tuple(m.weight.shape) != w.shape:
            raise ValueError(f"init_policy {path}: layer {i} has shape {w.shape}, this network {tuple(m.weight.shape)}")
    with torch.no_grad():
        for m, (w, b) in zip(modules, policy.layers, strict=True):
            m.weight.copy_(torch.as_tensor(w))
            m.bias.copy_(torch.as_tensor(b))
