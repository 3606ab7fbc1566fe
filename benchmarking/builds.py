"""The two builds of the engine side by side (issue 19), with the peers, measured in one run::

    python -m benchmarking.builds --seconds 5 --rounds 2

Per build (each in its own process, the pure-Python one with ``BC_PURE_PYTHON=1``; the builds alternate
``--rounds`` times so that load on a shared machine falls on both alike):

* engine: random legal decisions/s (``legal_actions()`` + ``apply()``, ``bc_env.bench.engine``) on core-4p and
  exp01-4p;
* environment: AEC steps/s on core-4p with the observation and the mask every step (``bc_env.bench.env``);
* ``clone()``: µs per clone of a core-4p game at its opening and after 100 decisions;
* search: ``clone()`` of the core-4p opening + a uniformly random rollout to the end of the game, per second;
* bots: the heuristic bot (``policies/heuristic.py``) in every seat of core-4p games, decisions per second.

The peers, in this process between the rounds: PettingZoo's ``connect_four_v3`` through the same AEC loop, and
catanatron's random players (4 players, actions/s: one ``play_tick`` is one decision). They need the ``bench``
extra; a missing one is skipped with a note. All rates are per CPU second of the measuring process.

It lives above the engine package (it plays the heuristic bot, ``policies``): before issue 31 it was
``bc_env/bench/builds.py`` (``python -m bc_env.bench.builds``); ``bc_env/bench/`` keeps the engine's and the
environment's own benchmarks.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from typing import Any

ROLLOUT_PRESET = "core-4p"


def clone_us(preset: str, decisions: int, seconds: float, seed: int = 0) -> float:
    """CPU µs per ``clone()`` of a seeded random game after ``decisions`` decisions."""
    from bc_env.rules import Game

    rng = random.Random(seed)
    game = Game.new(preset, seed)
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    n = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(100):
            game.clone()
        n += 100
    return 1e6 * (time.process_time() - start) / n


def rollouts_per_s(preset: str, seconds: float, seed: int = 0) -> tuple[float, int]:
    """``clone()`` of the opening + a random rollout to the end, per CPU second; and the rollouts done."""
    from bc_env.rules import Game

    rng = random.Random(seed)
    root = Game.new(preset, seed)
    n = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        game = root.clone()
        while not game.is_terminal():
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        n += 1
    return n / (time.process_time() - start), n


def heuristic_decisions_per_s(preset: str, seconds: float, seed: int = 0) -> float:
    """The heuristic bot deciding for every seat of seeded games: ``act()`` + ``apply()`` per CPU second."""
    from bc_env.rules import Game
    from policies.heuristic import HeuristicPolicy

    n = games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        game = Game.new(preset, seed + games)
        bots = [HeuristicPolicy(seed=seed + games * 10 + q) for q in range(game.num_players)]
        while not game.is_terminal():
            game.apply(bots[game.current_player].act(game))
            n += 1
        games += 1
    return n / (time.process_time() - start)


def measure_build(seconds: float) -> dict[str, Any]:
    """Everything measured on the build this process runs."""
    import bc_env
    import bc_env.rules
    from bc_env.bench.engine import bench_preset
    from bc_env.bench.env import bench_aec

    out: dict[str, Any] = {"compiled": bc_env.rules.COMPILED}
    for preset in ("core-4p", "exp01-4p"):
        out[f"engine {preset}"] = bench_preset(preset, seconds).decisions_per_s
    out["env core-4p"] = bench_aec("env", lambda: bc_env.env("core-4p"), seconds).steps_per_s
    out["clone opening µs"] = clone_us(ROLLOUT_PRESET, 0, seconds / 4)
    out["clone mid-game µs"] = clone_us(ROLLOUT_PRESET, 100, seconds / 4)
    out["rollouts/s"], _ = rollouts_per_s(ROLLOUT_PRESET, seconds)
    out["heuristic core-4p decisions/s"] = heuristic_decisions_per_s(ROLLOUT_PRESET, seconds)
    return out


def bench_catanatron(seconds: float, seed: int = 0) -> float:
    """catanatron's RandomPlayer x 4: actions (decisions) per CPU second."""
    from catanatron import Color, Game, RandomPlayer
    from catanatron.game import TURNS_LIMIT

    random.seed(seed)  # RandomPlayer draws from the random module
    colors = (Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE)
    games = actions = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        game = Game([RandomPlayer(c) for c in colors], seed=seed + games)
        while game.winning_color() is None and game.state.num_turns < TURNS_LIMIT:
            game.play_tick()
            actions += 1
        games += 1
    return actions / (time.process_time() - start)


def measure_peers(seconds: float) -> tuple[dict[str, float], list[str]]:
    from bc_env.bench.env import bench_aec, connect_four

    out: dict[str, float] = {}
    notes = []
    try:
        out["connect_four_v3 env"] = bench_aec("connect_four_v3", connect_four, seconds).steps_per_s
    except ImportError as exc:
        notes.append(f"connect_four_v3: skipped ({exc}; pip install -e '.[bench]')")
    try:
        out["catanatron"] = bench_catanatron(seconds)
    except ImportError as exc:
        notes.append(f"catanatron: skipped ({exc}; pip install -e '.[bench]')")
    return out, notes


def _spawn_build(pure: bool, seconds: float) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "BC_PURE_PYTHON"}
    if pure:
        env["BC_PURE_PYTHON"] = "1"
    cmd = [sys.executable, "-m", "benchmarking.builds", "--worker", "--seconds", str(seconds)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows)


def run(seconds: float, rounds: int) -> dict[str, Any]:
    print(f"builds benchmark: {rounds} round(s), ~{seconds:g} CPU s per measurement, one core per process")
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")
    pure: list[dict[str, Any]] = []
    compiled: list[dict[str, Any]] = []
    peers: list[dict[str, float]] = []
    notes: list[str] = []
    for r in range(rounds):
        pure.append(_spawn_build(True, seconds))
        compiled.append(_spawn_build(False, seconds))
        got, notes = measure_peers(seconds)
        peers.append(got)
        print(f"round {r + 1}: pure {pure[-1]}\n         compiled {compiled[-1]}\n         peers {got}", flush=True)
    if not any(c["compiled"] for c in compiled):
        print("\nthe compiled engine is not installed: both columns are the pure-Python engine")
    keys = [k for k in compiled[0] if k != "compiled"]
    print("\n| measure | pure Python | compiled (mypyc) | compiled / pure |")
    print("|---|---|---|---|")
    for k in keys:
        a, b = _mean(pure, k), _mean(compiled, k)
        print(f"| {k} | {a:,.1f} | {b:,.1f} | {b / a:.2f}x |")
    summary: dict[str, Any] = {k: _mean(compiled, k) for k in keys}
    for name in peers[0]:
        value = sum(p[name] for p in peers) / len(peers)
        summary[name] = value
        print(f"| {name} (peer) | {value:,.1f} | | |")
    if "catanatron" in summary:
        print(f"\ncompiled engine core-4p / catanatron: {summary['engine core-4p'] / summary['catanatron']:.1f}x")
    if "connect_four_v3 env" in summary:
        ratio = summary["env core-4p"] / summary["connect_four_v3 env"]
        print(f"compiled env core-4p (obs + mask) / connect_four_v3: {ratio:.2f}x")
    for note in notes:
        print(note)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarking.builds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement (default 5)")
    parser.add_argument("--rounds", type=int, default=2, help="pure / compiled alternations (default 2)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure_build(args.seconds)))
        return 0
    run(args.seconds, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
