"""``policies.load("champion")``: the strongest shipped bot for the game's player count (issue 27 item 4).

The champion starts from the strongest bot without search for the game's rules: the shipped trained bot of the
configuration where one exists and its manifest fits the rules (``ppo-core-2p`` in core-2p, ``ppo-core-4p`` in
core-4p; docs/benchmarking.md ranks both above the expert), else the expert (every other configuration, the
expansions included). With two players and no expansion it adds the endgame search (:mod:`policies.endgame`,
default budget: width 3, 300 positions per decision) with ``exact=1``: the search overrules the base only where
it reached the end of the game on every line (a depth-limited search with the static leaf lost 3 games of 40 that
``ppo-core-2p`` shared, docs/policies.md), and it searches only the player's last turn (``rounds=1``): with 300
positions the search reaches the end of the game there (38 of 46 searched decisions in 10 paired deals), not
earlier (0 of 326 with 2-6 turns left), and a search that does not reach the end cannot change the choice, so
the former window of 6 turns spent 89% of the bot's CPU on searches without effect
(``tools/endgame_exactness.py``, docs/policies.md); with more players or with expansions it
plays the base bot alone: the search measured worse in core-4p (3 paired deals: 2.25 of 12 against 4 of 12 for
``ppo-core-4p`` alone) and over 1 s per decision with the expansions (the expert's look-ahead at every node;
docs/policies.md). It picks per game (by the rules of the game it is asked about), so one ``champion`` plays any
configuration. Deterministic for its seed (the endgame search counts positions, not time).
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from bc_env.rules import Game, IllegalActionError

from .endgame import EndgameConfig, EndgamePolicy
from .neural import PolicyFileError

#: The endgame search of two-player games without expansions (its ``base`` is :func:`base_for`'s bot).
SEARCH = EndgameConfig(rounds=1, exact=1)


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

    def bot_for(self, game: Game) -> Any:
        key = game.config.name
        bot = self._bots.get(key)
        if bot is None:
            base = base_for(game)
            if game.num_players == 2 and not game.expansions:
                bot = EndgamePolicy(seed=self.seed, config=replace(SEARCH, base=base))
            else:
                from . import load

                bot = load(base, seed=self.seed)
            self._bots[key] = bot
        return bot

    def act(self, game: Game) -> int:
        if game.current_player is None:
            raise IllegalActionError("the game is over: no decision to take")
        return self.bot_for(game).act(game)


__all__ = ["SEARCH", "ChampionPolicy", "base_for"]
