#!/usr/bin/env python
"""Play N seeded random games of a preset: the workload for instruction counts of the engine.

    PYTHONHASHSEED=0 valgrind --tool=callgrind python tools/engine_games.py core-4p 30
    PYTHONHASHSEED=0 valgrind --tool=callgrind python tools/engine_games.py core-4p 0    # start-up only

The difference of the two totals is the engine's work for the 30 games (docs/benchmarks.md, issue #12).
"""

from __future__ import annotations

import random
import sys

from bc_env.rules import Game


def main() -> int:
    preset, n = sys.argv[1], int(sys.argv[2])
    Game.new(preset, 0)  # the per-configuration caches (layout, catalogue)
    decisions = 0
    for seed in range(n):
        rng = random.Random(seed)
        game = Game.new(preset, seed)
        while not game.is_terminal():
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            decisions += 1
    print(preset, n, decisions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
