"""``LearnerVectorEnv`` as a stable-baselines3 ``VecEnv`` (SB3 speaks its own vector API, not Gymnasium's): the N
games of one batched env are SB3's N environments, in one process. sb3-contrib's ``MaskablePPO`` finds the masks
through ``env_method("action_masks")``. Needs stable-baselines3 (the ``train`` extra); importing this module
imports it.

    from sb3_contrib import MaskablePPO
    from bc_env.vector import LearnerVectorEnv
    from bc_env.vector.sb3 import SB3VecEnv

    env = SB3VecEnv(LearnerVectorEnv("core-2p", 16, opponents=policies.load("random", seed=0), seed=0))
    MaskablePPO("MlpPolicy", env, n_steps=64).learn(4096)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .gym import LearnerVectorEnv


class SB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` over a :class:`LearnerVectorEnv` (``terminal_observation`` is the learner's last observation
    of the finished game: a game ends by termination only, so SB3 never bootstraps from it)."""

    def __init__(self, env: LearnerVectorEnv) -> None:
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self._last_obs = np.zeros_like(env.core.obs)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._reset_seeds()
        obs, _ = self.env.reset(seed=seed)
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        np.copyto(self._last_obs, self.env.core.obs)
        obs, reward, terminated, _truncated, _ = self.env.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(terminated).tolist():
            infos[i]["terminal_observation"] = self._last_obs[i].copy()
        return obs.copy(), reward.copy(), terminated.copy(), infos

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks().copy()

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        rows = self._get_indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i].copy() for i in rows]
        raise AttributeError(f"SB3VecEnv has no per-environment method {method_name!r}")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.env, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        self.env.close()

    def _get_indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
