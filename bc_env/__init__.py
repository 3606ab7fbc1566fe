"""balance-control: rules engine (``bc_env.rules``) and RL environment for BALANCE // CONTROL.

``bc_env.env(config, render_mode=None, **options)`` and ``bc_env.raw_env(...)`` create the PettingZoo
AEC environment. They are loaded lazily, so ``import bc_env.rules`` never imports PettingZoo or
Gymnasium.
"""

from typing import Any

from . import _build

_build.select()  # the compiled or the pure-Python engine (bc_env/_build.py), before anything imports it

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "env":
        import importlib

        return importlib.import_module("bc_env.env")  # a callable module: bc_env.env(...) makes an env
    if name == "raw_env":
        from .env import raw_env

        return raw_env
    raise AttributeError(f"module 'bc_env' has no attribute {name!r}")
