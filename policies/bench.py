"""Bot decision latency: ``python -m policies.bench ppo-core-2p heuristic --games 20``.

Plays seeded games where the measured bot decides for every seat and reports the median and p99 of one
``act()`` call, in CPU time of this process (robust on a shared machine) and wall time.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bc_env.rules import Game

from . import load


def latency(name: str, preset: str, games: int, seed: int = 0) -> dict[str, float]:
    bot = load(name, seed=seed)
    cpu: list[float] = []
    wall: list[float] = []
    for g in range(games):
        game = Game.new(preset, seed + g)
        while not game.is_terminal():
            c, w = time.process_time(), time.perf_counter()
            action = bot.act(game)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
            game.apply(action)

    def q(data: list[float], p: float) -> float:
        data = sorted(data)
        return 1000 * (statistics.median(data) if p == 0.5 else data[min(len(data) - 1, int(p * len(data)))])

    return {"decisions": len(cpu), "cpu_median_ms": q(cpu, 0.5), "cpu_p99_ms": q(cpu, 0.99),
            "wall_median_ms": q(wall, 0.5), "wall_p99_ms": q(wall, 0.99)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bots", nargs="+")
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print("| bot | preset | decisions | median ms (CPU) | p99 ms (CPU) | median ms (wall) | p99 ms (wall) |")
    print("|---|---|---|---|---|---|---|")
    for name in args.bots:
        preset = "core-4p" if name.endswith("4p") else "core-2p"
        r = latency(name, preset, args.games)
        print(
            f"| {name} | {preset} | {r['decisions']:.0f} | {r['cpu_median_ms']:.3f} | {r['cpu_p99_ms']:.3f} | "
            f"{r['wall_median_ms']:.3f} | {r['wall_p99_ms']:.3f} |"
        )


if __name__ == "__main__":
    main()
