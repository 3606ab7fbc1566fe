"""Errors raised by the engine. Each names what was wrong; none leaves a game half-changed."""


class BalanceControlError(ValueError):
    """Base class of every error the engine raises on bad input."""


class ConfigError(BalanceControlError):
    """A rules configuration (or preset file) is malformed; the message names the field."""


class IllegalActionError(BalanceControlError):
    """An action is malformed or not legal in the current decision. The game is unchanged."""


class StateError(BalanceControlError):
    """A serialized state (``Game.from_dict``) is malformed; the message names the field."""


class NotImplementedRuleError(BalanceControlError, NotImplementedError):
    """A rules option whose implementation has not landed yet (e.g. an expansion)."""
