"""The benchmarking package's error: a tournament log or request that cannot be used, and why."""

from __future__ import annotations

from bc_env.rules.errors import BalanceControlError


class TournamentLogError(BalanceControlError):
    """A tournament log is malformed, belongs to another tournament, or a request does not fit it.

    The message names the file, the line and what was wrong."""


class TournamentError(BalanceControlError):
    """A tournament cannot be set up as asked (unknown bot, too few bots, bad numbers)."""


__all__ = ["TournamentError", "TournamentLogError"]
