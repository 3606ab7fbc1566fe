"""Engine benchmark: uniformly random legal play, one core, per preset.

Each decision is ``legal_actions()`` followed by ``apply()`` of a uniformly random legal action,
which is what a random rollout or a search bot does. Run::

    balance-control bench --seconds 10 --presets core-2p core-4p core-6p
"""

from __future__ import annotations

import platform
import random
import time
from dataclasses import dataclass

from ..rules import COMPILED, Game, RulesConfig


@dataclass
class BenchResult:
    preset: str
    games: int
    decisions: int
    #: CPU seconds of this process (robust on a shared machine); wall seconds beside it.
    seconds: float
    wall_seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds

    def row(self) -> str:
        return (
            f"| {self.preset} | {self.games} | {self.decisions / max(self.games, 1):.0f} | "
            f"{self.games_per_s:,.1f} | {self.decisions_per_s:,.0f} | {self.decisions / self.wall_seconds:,.0f} |"
        )


def bench_preset(preset: str, seconds: float, seed: int = 0) -> BenchResult:
    config = RulesConfig.resolve(preset)
    rng = random.Random(seed)
    games = decisions = 0
    start, wall = time.process_time(), time.perf_counter()
    deadline = start + seconds
    while time.process_time() < deadline:
        game = Game.new(config, seed + games)
        while not game.is_terminal():
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return BenchResult(preset, games, decisions, time.process_time() - start, time.perf_counter() - wall)


def build_name() -> str:
    return "compiled (mypyc)" if COMPILED else "pure Python"


def run(presets: list[str], seconds: float) -> list[BenchResult]:
    print(f"engine benchmark: random legal play, one core, {seconds:g} s of CPU time per preset")
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")
    print(f"engine build: {build_name()} (bc_env.rules.COMPILED = {COMPILED})")
    print("| preset | games | decisions/game | games/s (CPU) | decisions/s (CPU) | decisions/s (wall) |")
    print("|---|---|---|---|---|---|")
    results = []
    for preset in presets:
        result = bench_preset(preset, seconds)
        print(result.row(), flush=True)
        results.append(result)
    return results
