"""The opponent pool: baseline bots plus frozen snapshots of the learner.

Sampling rule (documented in docs/training.md), drawn independently for every opponent seat of every episode:

* with probability ``p_random`` the uniformly random bot,
* with probability ``p_heuristic`` the heuristic bot,
* otherwise a snapshot: the latest with probability ``p_latest``, else one of the older snapshots uniformly.
  While there is no snapshot yet, the remaining probability goes to the heuristic bot.

Snapshots are exported NumPy policies (``policies.neural``), so the environment processes need no torch.
"""

from __future__ import annotations

import random
from typing import Any

from policies import load as load_policy
from policies.base import Policy
from policies.neural import NeuralPolicy

from .config import PoolConfig


def pool_composition(config: PoolConfig, snapshots: int) -> dict[str, float]:
    """Probability of each opponent kind under the sampling rule with ``snapshots`` snapshots (for logging)."""
    c = config
    rest = 1.0 - c.p_random - c.p_heuristic
    if not snapshots:
        return {"random": c.p_random, "heuristic": c.p_heuristic + rest, "snapshots": 0.0}
    return {"random": c.p_random, "heuristic": c.p_heuristic, "snapshots": rest}


class PoolSampler:
    """The environment-side sampler: one per environment process, with its own seeded RNG."""

    def __init__(self, config: PoolConfig, seed: int) -> None:
        self.config = config
        self.rng = random.Random(seed)
        self.snapshots: list[dict[str, Any]] = []
        self._cache: dict[str, Policy] = {}
        self._random = load_policy("random", seed=seed)
        self._heuristic = load_policy("heuristic", seed=seed)

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        self.snapshots = [dict(s) for s in snapshots]
        keep = {s["path"] for s in self.snapshots}
        self._cache = {k: v for k, v in self._cache.items() if k in keep}

    def _snapshot(self, entry: dict[str, Any]) -> Policy:
        policy = self._cache.get(entry["path"])
        if policy is None:
            policy = self._cache[entry["path"]] = NeuralPolicy(entry["path"])
        return policy

    def sample(self) -> Policy:
        c = self.config
        x = self.rng.random()
        if x < c.p_random:
            return self._random
        if x < c.p_random + c.p_heuristic or not self.snapshots:
            return self._heuristic
        if len(self.snapshots) == 1 or self.rng.random() < c.p_latest:
            return self._snapshot(self.snapshots[-1])
        return self._snapshot(self.snapshots[self.rng.randrange(len(self.snapshots) - 1)])
