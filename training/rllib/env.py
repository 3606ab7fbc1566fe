"""The environment of the RLlib backend's env runners: one batched env of ``n_envs`` games per env runner.

RLlib's single-agent env runner takes a Gymnasium vector env as it is when the config says
``gym_env_vectorize_mode = "vector_entry_point"``: it calls the env creator once with ``num_envs`` in its config and
steps what the creator returns, instead of building ``num_envs`` copies of a one-game env. The creator here is
:class:`PoolVectorEnv`, a :class:`bc_env.vector.LearnerVectorEnv` (N games stepped in one call over
``bc_env.vector.SelfPlayVectorEnv``) with:

* one learner seat per game, rotating (slot ``i``'s ``k``-th game plays seat ``(i + k) % players``);
* the other seats of every new game drawn from the opponent pool exactly as the sb3 backend draws them
  (``training/pool.py``: the random bot, the heuristic bot or a frozen snapshot, exported NumPy policies), played
  inside ``step``, so RLlib only ever sees the learner's decisions;
* the observation RLlib's module reads: the dict ``{"observation": float32[obs], "action_mask": int8[actions]}``
  (the AEC env's observation space), fresh arrays every step (RLlib keeps the rows it is given);
* Gymnasium's ``NEXT_STEP`` autoreset, which RLlib's env runner expects: the step that ends a game returns the
  learner's final observation (mask all zero) and reward, the next step starts that row's next game.

Seeds: RLlib resets each env runner's env once with ``seed + worker_index`` (``.debugging(seed=...)``), which
seeds its games, its random opponents and its pool draws.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from bc_env.rules import RulesConfig
from bc_env.vector import LearnerVectorEnv
from policies.base import Policy

from ..config import PoolConfig
from ..pool import PoolSampler


class PoolVectorEnv(LearnerVectorEnv):
    """``config`` (RLlib's env config plus ``num_envs``): ``rules`` (a ``RulesConfig.to_dict()``), ``reward``
    (scheme), ``pool`` (a ``PoolConfig`` as a dict), ``seed`` and ``num_envs`` (games)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        rules = RulesConfig.from_dict(config["rules"]) if "rules" in config else RulesConfig.resolve("core-2p")
        pool = PoolConfig(**config["pool"]) if "pool" in config else PoolConfig()
        seed = int(config.get("seed", 0))
        self.sampler = PoolSampler(pool, seed)
        super().__init__(
            rules,
            int(config.get("num_envs", 1)),
            opponents=self._pool_opponents,
            seed=seed,
            reward_scheme=config.get("reward", "zero_sum"),
            autoreset_mode=AutoresetMode.NEXT_STEP,
        )
        mask_space = spaces.Box(0, 1, shape=(self.core.num_actions,), dtype=np.int8)
        self.single_observation_space = spaces.Dict(  # type: ignore[assignment]
            {"observation": self.single_observation_space, "action_mask": mask_space}
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    def _pool_opponents(self) -> list[Policy]:
        return [self.sampler.sample() for _ in range(self.core.num_players - 1)]

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        """The pool's snapshots changed (from the trainer, through ``foreach_env_runner``)."""
        self.sampler.set_snapshots(snapshots)

    def _dict(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": obs.copy(), "action_mask": self.action_masks().astype(np.int8)}

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None:
            self.sampler.rng = random.Random(seed * 7919 + 17)  # another stream than the games'
        obs, _ = super().reset(seed=seed)
        return self._dict(obs), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:  # type: ignore[override]
        obs, reward, terminated, truncated, _ = super().step(actions)
        return self._dict(obs), reward.copy(), terminated.copy(), truncated, {}
