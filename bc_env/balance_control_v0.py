"""``balance_control_v0``: the environment under PettingZoo's and Gymnasium's naming conventions.

PettingZoo's classic games are modules with ``env()`` and ``raw_env()`` (``pettingzoo.classic.chess_v6``); so is
this one::

    from bc_env import balance_control_v0

    env = balance_control_v0.env(config="core-4p", render_mode="ansi")  # the AEC env (docs/environment.md)
    raw = balance_control_v0.raw_env(config="core-4p")

There is no ``parallel_env``: BALANCE // CONTROL is turn-based with a varying number of consecutive decisions by
one player (RULINGS R23), so, as for PettingZoo's classic board games, only the AEC API is offered
(``metadata["is_parallelizable"]`` is False).

:func:`gymnasium_env` is the entry point of the Gymnasium id ``balance_control/BalanceControl-v0``
(``gymnasium.make(GYMNASIUM_ID, config="core-2p")`` after ``import bc_env``): the single-agent view
(:class:`bc_env.env.SingleAgentEnv`), one learner against opponents played inside ``step``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bc_env.rules import RulesConfig

from ._registration import GYMNASIUM_ID, PETTINGZOO_ID
from .env import SingleAgentEnv, env, raw_env


def gymnasium_env(
    config: RulesConfig | str | Path = "core-2p", opponents: Any = None, **options: Any
) -> SingleAgentEnv:
    """The single-agent Gymnasium env, as ``gymnasium.make("balance_control/BalanceControl-v0", ...)`` builds it.

    ``opponents``: ``None`` (default) plays every other seat with uniformly random legal moves drawn from the env's
    own RNG (no bot package needed, reproducible with ``reset(seed=...)``); a policy object with ``act(game)``
    plays every other seat; a list of ``n - 1`` of them plays the seats after the learner. Bots are objects, never
    names (the environment sits below the bots, docs/architecture.md): ``gymnasium.make(GYMNASIUM_ID,
    opponents=policies.load("heuristic"))``. Other keyword arguments are :class:`SingleAgentEnv`'s
    (``learner_seat``, ``reward_scheme``, ``obs_format``, ``render_mode``, ...).
    """
    return SingleAgentEnv(RulesConfig.resolve(config), opponents, **options)


__all__ = ["GYMNASIUM_ID", "PETTINGZOO_ID", "env", "gymnasium_env", "raw_env"]
