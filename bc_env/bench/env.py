"""AEC environment benchmark: env steps per second with the observation and the mask fetched every
step, uniformly random legal play, one core, side by side with PettingZoo's ``connect_four_v3`` and
``chess_v6`` running the very same loop (each through its ``env()`` factory, i.e. with the
wrappers a user gets). Run::

    python -m bc_env.bench.env --seconds 10 --config core-4p

Times are CPU seconds of the process (``time.process_time``), which other load on a shared machine
disturbs less than wall-clock time; the last column gives the wall-clock rate too. The loop per step
is ``agent_iter`` -> ``last()`` (observation + mask) -> a random action among the mask's ones ->
``step``. Only live steps count (the final dead steps of each game do not). The
engine row is ``legal_actions()`` + ``apply()`` alone, for reference. The comparisons need the ``bench`` extra
(``pip install -e '.[bench]'``: ``chess`` and ``pygame-ce``); without it they are skipped with a note.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class EnvBenchResult:
    name: str
    games: int
    steps: int
    #: CPU seconds of this process (robust on a shared machine) and wall-clock seconds.
    seconds: float
    wall: float
    #: CPU seconds of ``seconds`` the loop spent choosing its random actions (measured by the batched loop only).
    choosing: float = 0.0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    def row(self) -> str:
        per_game = self.steps / max(self.games, 1)
        return (
            f"| {self.name} | {self.games} | {per_game:.0f} | {self.steps_per_s:,.0f} | "
            f"{1e6 / max(self.steps_per_s, 1e-9):.1f} | {self.steps / self.wall:,.0f} |"
        )


def bench_aec(name: str, make: Callable[[], Any], seconds: float, seed: int = 0) -> EnvBenchResult:
    """Random legal play through the AEC API for about ``seconds`` (whole games)."""
    env = make()
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    games = steps = 0
    wall, start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
    env.close()
    return EnvBenchResult(name, games, steps, time.process_time() - start, time.perf_counter() - wall)


def bench_engine(config: str, seconds: float, seed: int = 0) -> EnvBenchResult:
    """The engine alone, with the same loop as ``balance-control bench`` (``bc_env.bench.engine``)."""
    from .engine import bench_preset

    r = bench_preset(config, seconds, seed)
    name = f"engine only ({config}: legal_actions + apply)"
    return EnvBenchResult(name, r.games, r.decisions, r.seconds, r.wall_seconds)


def connect_four() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's import banner would break the table
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def _chess() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import chess_v6  # imports python-chess and pygame

    return chess_v6.env()


def run(config: str = "core-4p", seconds: float = 10.0, compare: bool = True) -> list[EnvBenchResult]:
    import bc_env

    print(f"AEC env benchmark: random legal play, observation + mask every step, one core, ~{seconds:g} s per env")
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")
    print()
    print("| env | games | steps/game | steps/s (CPU) | µs/step (CPU) | steps/s (wall) |")
    print("|---|---|---|---|---|---|")
    results = []
    candidates: list[tuple[str, Callable[[], Any]]] = [
        (f"balance_control_v0 ({config}, flat obs)", lambda: bc_env.env(config)),
    ]
    if compare:
        candidates += [("connect_four_v3", connect_four), ("chess_v6", _chess)]
    notes = []
    for name, make in candidates:
        try:
            result = bench_aec(name, make, seconds)
        except ImportError as exc:
            notes.append(f"{name}: skipped ({exc}; install the bench extra: pip install -e '.[bench]')")
            continue
        print(result.row(), flush=True)
        results.append(result)
    engine = bench_engine(config, min(seconds, 5.0))
    print(engine.row(), flush=True)
    results.append(engine)
    for note in notes:
        print(f"\n{note}")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bc_env.bench.env", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="core-4p", help="preset name or path (default core-4p)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per env (default 10)")
    parser.add_argument("--no-compare", action="store_true", help="skip the PettingZoo comparison envs")
    args = parser.parse_args(argv)
    run(args.config, args.seconds, compare=not args.no_compare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
