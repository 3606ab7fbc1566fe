"""The BALANCE // CONTROL rules engine (Python + NumPy; compiled to C extensions by mypyc where the install could).

Public API::

    from bc_env.rules import RulesConfig, Game
    game = Game.new(RulesConfig.preset("core-4p"), seed=7)
    while not game.is_terminal():
        game.apply(game.legal_actions()[0])
"""

from .actions import ActionLayout
from .config import GrassrootsText, RulesConfig, preset_names
from .decisions import PHASE_NAMES
from .errors import BalanceControlError, ConfigError, IllegalActionError, NotImplementedRuleError, StateError
from .game import Game
from .replay import load_replay, record, replay, save_replay

#: Whether the engine runs as the mypyc-compiled build (C extensions, made by ``pip install`` where a C compiler is
#: present) or as pure Python (``BC_PURE_PYTHON=1``, or no compiled build). Both behave identically.
COMPILED: bool = not __file__.endswith(".py")  # this module is compiled with all the others, or none is

__all__ = [
    "COMPILED",
    "ActionLayout",
    "BalanceControlError",
    "ConfigError",
    "Game",
    "GrassrootsText",
    "IllegalActionError",
    "NotImplementedRuleError",
    "PHASE_NAMES",
    "RulesConfig",
    "StateError",
    "load_replay",
    "preset_names",
    "record",
    "replay",
    "save_replay",
]
