"""The one policy protocol every bot speaks: ``act(game) -> action``.

A policy is asked only when ``game.current_player`` is the seat it plays (the owner of the pending
decision, RULINGS R23) and must return one of ``game.legal_actions()``. Policies never mutate the game.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from bc_env.rules import Game


@runtime_checkable
class Policy(Protocol):
    name: str

    def act(self, game: Game) -> int:
        """A legal action for the pending decision of ``game``."""
        ...


class RandomPolicy:
    """Uniformly random legal action; seeded, so a game with random bots is reproducible."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return legal[self.rng.randrange(len(legal))]
