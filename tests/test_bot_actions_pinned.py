"""The rule-based bots' decisions, pinned (issue 19: their evaluation may be made faster, never different).

Seeded games with the heuristic and the expert bot in every seat (core-2p, core-4p, exp01-4p): every action they
choose goes into a SHA-256 digest. A speed-up of policies/heuristic.py (or of the engine or the encoder the bots
read) must leave these digests unchanged; a deliberate change of the bots' play updates them (and says so).
"""

from __future__ import annotations

import hashlib

import pytest

import policies
from bc_env.rules import Game

#: (bot, preset, seed) -> digest of the actions of the whole game, and its length.
PINNED: dict[tuple[str, str, int], tuple[str, int]] = {
    ("heuristic", "core-2p", 7): ("95c9fc4d0e81c49b62b0925c00c8393807266d9c506f041da818ae7085016d6f", 202),
    ("heuristic", "core-4p", 8): ("d602a17f358f091ffbad0ec24e56a1d1c594b869ff23870ccd729e894943139d", 201),
    ("heuristic", "exp01-4p", 9): ("edaa865af1b94b7ea10439524a94f4d25e77968b4305b436845353d8c030f0d5", 218),
    ("expert", "core-2p", 10): ("2c5f93847d3bbfa1b31f659101f78da5dc74175629cbe9dbb940ab9b3c32d50c", 215),
    ("expert", "core-4p", 11): ("f4b36eea2d46237d3617f98e9c2f41fc300f92be543af36a6c447f200682b8a8", 212),
}


def bot_game_digest(bot: str, preset: str, seed: int) -> tuple[str, int]:
    game = Game.new(preset, seed)
    seats = [policies.load(bot, seed=seed * 10 + q) for q in range(game.num_players)]
    h = hashlib.sha256()
    n = 0
    while not game.is_terminal():
        action = seats[game.current_player].act(game)
        h.update(action.to_bytes(4, "little"))
        game.apply(action)
        n += 1
    h.update(repr(game.winners()).encode())
    return h.hexdigest(), n


@pytest.mark.parametrize("key", sorted(PINNED))
def test_the_bots_play_the_pinned_games(key):
    assert bot_game_digest(*key) == PINNED[key]
