"""balance-control: rules engine (``bc_env.rules``) and RL environment for BALANCE // CONTROL.

* ``bc_env.env(config, render_mode=None, **options)`` and ``bc_env.raw_env(...)`` create the PettingZoo AEC
  environment; ``from bc_env import balance_control_v0`` gives the same under PettingZoo's module convention
  (``balance_control_v0.env()``, ``balance_control_v0.raw_env()``, as ``pettingzoo.classic.chess_v6``);
* ``gymnasium.make("balance_control/BalanceControl-v0", config="core-2p")`` makes the single-agent Gymnasium view
  once ``bc_env`` is imported (``bc_env/_registration.py``).

All of it is loaded lazily, so ``import bc_env.rules`` never imports PettingZoo or Gymnasium.
"""

from typing import Any

from . import _build, _registration

_build.select()  # the compiled or the pure-Python engine (bc_env/_build.py), before anything imports it
_registration.install()  # the Gymnasium and PettingZoo ids, registered when those libraries load

__version__ = "0.1.0"
GYMNASIUM_ID = _registration.GYMNASIUM_ID


def __getattr__(name: str) -> Any:
    if name == "env":
        import importlib

        return importlib.import_module("bc_env.env")  # a callable module: bc_env.env(...) makes an env
    if name == "raw_env":
        from .env import raw_env

        return raw_env
    raise AttributeError(f"module 'bc_env' has no attribute {name!r}")
