"""The BALANCE // CONTROL rules engine (pure Python + NumPy).

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

__all__ = [
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
