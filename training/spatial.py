"""The spatial policy network (``network = "spatial"``): convolutions over the board planes, one logit per cell.

The action layout puts six per-cell blocks first (docs/actions.md: place-tile, place, move-from, move-to,
formalize, convert; action ``kind * N + cell``), so their logits come from a 1x1 convolution over a feature map
of the board, with the same weights for every cell: what the network learns about one cell (a tile here would
surround a Hotspot, CORE-01-06-01) holds for every cell. The remaining actions (pass, pay, gain and, with an
expansion, the Measure decisions) come from a global feature vector. The forward pass, which the NumPy bot
(``policies.neural``) repeats exactly::

    h = act(conv3x3(planes) + Wv @ vector)            # the non-board vector is broadcast to every cell
    h = act(conv3x3(h))                               # conv_layers - 1 more times
    g = act(Wg @ [vector, mean over cells of h])      # global features
    h = act(h + Wm @ g)                               # the global context back on every cell
    logits = [conv1x1(h) (6 x N, block-major), We @ g]

sb3 sees :class:`BoardFeatures` as the features extractor (its output is ``[h flattened, g]``), an empty policy
MLP and :class:`SpatialHead` as the action net; the value network is an MLP (``net_arch``) on the same features.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

#: Per-cell action blocks at the start of every layout (docs/actions.md).
CELL_BLOCKS = 6
#: Size of the global feature vector.
GLOBAL_DIM = 64


def _activation(name: str) -> nn.Module:
    return nn.Tanh() if name == "tanh" else nn.ReLU()


class BoardFeatures(BaseFeaturesExtractor):
    """Convolutional trunk: ``obs -> [h (channels x N) flattened, g (GLOBAL_DIM)]``."""

    def __init__(
        self,
        observation_space: Any,
        planes: int,
        size: int,
        vector: int,
        channels: int = 32,
        layers: int = 3,
        activation: str = "relu",
    ) -> None:
        super().__init__(observation_space, channels * size * size + GLOBAL_DIM)
        self.planes, self.size, self.vector, self.channels = planes, size, vector, channels
        self.conv_in = nn.Conv2d(planes, channels, 3, padding=1)
        self.vec_in = nn.Linear(vector, channels)
        self.convs = nn.ModuleList(nn.Conv2d(channels, channels, 3, padding=1) for _ in range(layers - 1))
        self.glob = nn.Linear(vector + channels, GLOBAL_DIM)
        self.mix = nn.Linear(GLOBAL_DIM, channels)
        self.act = _activation(activation)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b, s = obs.shape[0], self.size
        board = self.planes * s * s
        planes = obs[:, :board].reshape(b, self.planes, s, s)
        vec = obs[:, board:]
        h = self.act(self.conv_in(planes) + self.vec_in(vec)[:, :, None, None])
        for conv in self.convs:
            h = self.act(conv(h))
        g = self.act(self.glob(torch.cat([vec, h.mean(dim=(2, 3))], dim=1)))
        h = self.act(h + self.mix(g)[:, :, None, None])
        return torch.cat([h.flatten(1), g], dim=1)


class SpatialHead(nn.Module):
    """Action logits from the trunk's output: a 1x1 convolution per cell block, a linear layer for the rest."""

    def __init__(self, channels: int, size: int, extra: int) -> None:
        super().__init__()
        self.channels, self.size = channels, size
        self.cell = nn.Conv2d(channels, CELL_BLOCKS, 1)
        self.extra = nn.Linear(GLOBAL_DIM, extra)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b, s = latent.shape[0], self.size
        n = self.channels * s * s
        h = latent[:, :n].reshape(b, self.channels, s, s)
        return torch.cat([self.cell(h).flatten(1), self.extra(latent[:, n:])], dim=1)


class SpatialPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose action net is a :class:`SpatialHead` over :class:`BoardFeatures`."""

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor
        assert isinstance(fx, BoardFeatures)
        extra = int(self.action_space.n) - CELL_BLOCKS * fx.size * fx.size  # type: ignore[attr-defined]
        self.action_net = SpatialHead(fx.channels, fx.size, extra)
        for module in self.action_net.modules():  # small initial logits, as sb3 does for its action net
            if isinstance(module, nn.Linear | nn.Conv2d):
                nn.init.orthogonal_(module.weight, gain=0.01)
                nn.init.zeros_(module.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def policy_kwargs(encoder: Any, channels: int, layers: int, value_arch: list[int], activation: str) -> dict[str, Any]:
    """sb3 ``policy_kwargs`` of a spatial policy for the observations of ``encoder``."""
    return {
        "features_extractor_class": BoardFeatures,
        "features_extractor_kwargs": {
            "planes": encoder.num_channels,
            "size": encoder.size,
            "vector": encoder.vector_size,
            "channels": channels,
            "layers": layers,
            "activation": activation,
        },
        "net_arch": {"pi": [], "vf": list(value_arch)},
        "activation_fn": type(_activation(activation)),
    }


def spatial_parameters(policy: Any) -> dict[str, torch.Tensor]:
    """The parameters of the policy path of a :class:`SpatialPolicy` by the array names ``policies.neural`` reads."""
    fx, head = policy.features_extractor, policy.action_net
    out = {
        "conv_in.w": fx.conv_in.weight,
        "conv_in.b": fx.conv_in.bias,
        "vec_in.w": fx.vec_in.weight,
        "vec_in.b": fx.vec_in.bias,
        "glob.w": fx.glob.weight,
        "glob.b": fx.glob.bias,
        "mix.w": fx.mix.weight,
        "mix.b": fx.mix.bias,
        "cell.w": head.cell.weight,
        "cell.b": head.cell.bias,
        "extra.w": head.extra.weight,
        "extra.b": head.extra.bias,
    }
    for i, conv in enumerate(fx.convs):
        out[f"conv{i}.w"] = conv.weight
        out[f"conv{i}.b"] = conv.bias
    return out


def spatial_arrays(policy: Any) -> dict[str, np.ndarray]:
    """The weights of the policy path of a :class:`SpatialPolicy` by the names ``policies.neural`` reads."""
    return {k: np.asarray(t.detach().cpu().numpy(), dtype=np.float32) for k, t in spatial_parameters(policy).items()}
