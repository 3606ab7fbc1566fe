"""An RLlib-trained policy to the torch-free format of ``policies.neural`` (the MLP arrays ``w<i>``/``b<i>``).

The masked module's policy network (:mod:`.module`) is exactly the MLP that :class:`policies.neural.NeuralPolicy`
runs, so the export copies its Linear layers in order; the value network is not exported. The result plays through
``policies.load(path)``, ``balance-control match --bots <path>,...``, the tournament runner and the embedding
protocol like a bot of the sb3 trainer.
"""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bc_env.encoding import encoder_version
from bc_env.rules import RulesConfig
from policies.neural import save_policy

from ..rundir import git_commit


def policy_layers(state: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight[out, in], bias[out]) pairs of the policy network in a module's state dict (``pi.<k>.weight``)."""
    index = sorted(int(k.split(".")[1]) for k in state if k.startswith("pi.") and k.endswith(".weight"))
    if not index:
        raise ValueError("not a masked MLP module's state: no pi.<k>.weight entries")
    return [(_array(state[f"pi.{i}.weight"]), _array(state[f"pi.{i}.bias"])) for i in index]


def _array(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=np.float32)


def export_module_state(
    state: dict[str, Any],
    path: str | Path,
    *,
    name: str,
    rules: RulesConfig,
    activation: str,
    provenance: dict[str, Any],
) -> Path:
    """Write ``<path>.npz`` + ``<path>.json`` from a module state dict (``learner_group.get_weights()[id]``)."""
    import ray

    layers = policy_layers(state)
    manifest = {
        "name": name,
        "rules": rules.to_dict(),
        "rules_preset": rules.name,
        "encoder_version": encoder_version(rules),
        "action_layout": {"version": 1, "num_actions": int(layers[-1][0].shape[0])},
        "network": {"activation": activation, "hidden": [int(w.shape[0]) for w, _ in layers[:-1]]},
        "training": {
            "backend": "rllib",
            **provenance,
            "exported_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
            "python": platform.python_version(),
            "ray": ray.__version__,
            "git_commit": git_commit(),
        },
    }
    return save_policy(path, layers, manifest)
