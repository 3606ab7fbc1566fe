"""Environments over the engine: the PettingZoo AEC env and the single-agent Gymnasium wrapper.

``bc_env.env`` is this package *and* the PettingZoo factory: the module object is callable, so
``bc_env.env("core-4p")`` works whether or not the package was imported before (importing a
submodule such as ``bc_env.env.single_agent`` binds the package to ``bc_env.env``, which would
otherwise shadow a plain factory function). ``bc_env.env.env(...)`` is the same call.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .aec import ActionOutOfBoundsError, env, raw_env
from .rewards import REWARD_SCHEMES, terminal_rewards
from .single_agent import ModelOpponent, SingleAgentEnv

__all__ = [
    "ActionOutOfBoundsError",
    "ModelOpponent",
    "REWARD_SCHEMES",
    "SingleAgentEnv",
    "env",
    "raw_env",
    "terminal_rewards",
]


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> raw_env:
        return env(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
