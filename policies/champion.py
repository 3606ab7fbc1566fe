"""``policies.load("champion")``: the strongest shipped bot for the game's player count (issue 27 item 4).

The champion is the endgame search (:mod:`policies.endgame`) on top of the strongest bot without search for the
game's rules: the shipped trained bot of the configuration where one exists and its manifest fits the rules
(``ppo-core-2p`` in core-2p, ``ppo-core-4p`` in core-4p; docs/benchmarking.md ranks both above the expert), else
the expert (every other configuration, the expansions included). It picks per game (by the rules of the game it is
asked about), so one ``champion`` plays any configuration. Deterministic for its seed (the endgame search counts
positions, not time); the budget (``EndgameConfig`` defaults: width 3, 300 positions per decision, from 6 turns
before the end with two players and 9 with more) keeps decisions under 1 s of one core (docs/policies.md).
"""

from __future__ import annotations

import random
from typing import Any

from bc_env.rules import Game, IllegalActionError

from .endgame import EndgameConfig, EndgamePolicy
from .neural import PolicyFileError


def base_for(game: Game) -> str:
    """The bot the champion plays outside the endgame window for ``game``'s rules."""
    from . import load, shipped_bots

    name = f"ppo-{game.config.name}"
    if name in shipped_bots():
        try:
            load(name, config=game.config)
        except PolicyFileError:  # trained for other rules (PolicyConfigError) or unreadable: the expert
            return "expert"
        return name
    return "expert"


class ChampionPolicy:
    """The endgame search over the strongest base bot of the game's rules (module docstring)."""

    name = "champion"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = random.Random(seed).getrandbits(32)
        self._bots: dict[str, Any] = {}

    def bot_for(self, game: Game) -> EndgamePolicy:
        key = game.config.name
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = EndgamePolicy(seed=self.seed, config=EndgameConfig(base=base_for(game)))
        return bot

    def act(self, game: Game) -> int:
        if game.current_player is None:
            raise IllegalActionError("the game is over: no decision to take")
        return self.bot_for(game).act(game)


__all__ = ["ChampionPolicy", "base_for"]
