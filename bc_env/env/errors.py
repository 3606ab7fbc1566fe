"""Errors of the environments (subclasses of the project's ``BalanceControlError``)."""

from __future__ import annotations

from bc_env.rules import BalanceControlError


class EnvOptionError(BalanceControlError):
    """An environment option (``illegal_reward``, ``learner_seat``, ``cell_px``, ``opponents``, ...) is not
    valid; the message names the option."""
