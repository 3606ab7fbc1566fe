"""Batched environment benchmark: ``bc_env.vector.SelfPlayVectorEnv`` side by side with the AEC environment in one
run, both with the full observation and the mask of every decision, uniformly random legal play. Run::

    python -m bc_env.bench.vector --config core-4p --seconds 10 --num-envs 64
    python -m bc_env.bench.vector --config core-4p --seconds 10 --processes 16     # total over 16 processes
    python -m bc_env.bench.vector --config core-4p --memory 2048 --memory-steps 100  # resident memory per game
    python -m bc_env.bench.vector --config core-4p --obs-layout core --obs-layout compact-v1  # both layouts

Rates are per CPU second of the process (``time.process_time``, robust on a shared machine); the wall-clock rate is
given too. ``--rounds K`` (default 5) runs the loops in turn, K times, and gives each round's ratio and their
median: a machine whose speed drifts slows the loops of a round alike. The AEC loop is ``bc_env.bench.env``'s
(``agent_iter`` -> ``last()`` -> random legal action -> ``step``).
The batched loop draws one random legal action per game from the mask (:func:`random_legal`: one uniform number per
game, vectorised) and calls ``step``. ``--processes K`` runs K batched envs in K processes at once and adds their
steps (the machine's total). ``--memory N`` measures the resident memory (``/proc/self/statm``) a batched env of N
games adds after ``--memory-steps`` batch steps (the games mid-game), per game, and extrapolates to 16,384 games
(each layout in a fresh process). ``--obs-layout`` picks the batched env's observation layout (``core`` or
``compact-v1``; repeat it for a row of each); the AEC env always encodes the core layout.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import time
from typing import Any

import numpy as np

from .env import EnvBenchResult, bench_aec


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (every row has one): the legal entries of all rows in
    one ``flatnonzero``, then one uniform draw per row among its own (one number per row, not one per action)."""
    flat = np.flatnonzero(mask)
    counts = np.bincount(flat // mask.shape[1], minlength=len(mask))
    first = np.cumsum(counts) - counts
    pick = first + (rng.random(len(mask)) * counts).astype(np.int64)
    return flat[pick] - np.arange(len(mask)) * mask.shape[1]


def bench_vector(config: str, num_envs: int, seconds: float, seed: int = 0, obs_layout: str = "core") -> EnvBenchResult:
    from bc_env.vector import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(config, num_envs, seed=seed, obs_layout=obs_layout)
    rng = np.random.default_rng(seed)
    _obs, mask, _ = env.reset()
    steps = games = 0
    picking = 0.0  # CPU seconds spent choosing the random actions (not the env's work)
    wall, start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        t = time.process_time()
        actions = random_legal(mask, rng)
        picking += time.process_time() - t
        *_, done = env.step(actions)
        steps += num_envs
        games += int(done.sum())
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    name = f"SelfPlayVectorEnv({config}, {num_envs}, {obs_layout})"
    return EnvBenchResult(name, games, steps, cpu, wall, choosing=picking)


def _sum(results: list[EnvBenchResult]) -> EnvBenchResult:
    """The rounds of one loop as one row."""
    return EnvBenchResult(
        results[0].name,
        sum(r.games for r in results),
        sum(r.steps for r in results),
        sum(r.seconds for r in results),
        sum(r.wall for r in results),
        choosing=sum(r.choosing for r in results),
    )


def _worker(args: tuple[str, int, float, int, str]) -> tuple[int, int, float, float]:
    r = bench_vector(*args)
    return r.steps, r.games, r.seconds, r.wall


def bench_processes(
    config: str, num_envs: int, seconds: float, processes: int, obs_layout: str = "core"
) -> tuple[int, float, float]:
    """K processes at once: (total steps, total CPU seconds, wall seconds)."""
    t = time.perf_counter()
    with mp.get_context("spawn").Pool(processes) as pool:
        out = pool.map(_worker, [(config, num_envs, seconds, 1000 * k, obs_layout) for k in range(processes)])
    wall = time.perf_counter() - t
    return sum(o[0] for o in out), sum(o[2] for o in out), max(o[3] for o in out) if out else wall


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def bench_memory(config: str, num_envs: int, steps: int, seed: int = 0, obs_layout: str = "core") -> dict[str, Any]:
    from bc_env.vector import SelfPlayVectorEnv

    SelfPlayVectorEnv(config, 1, obs_layout=obs_layout).reset()  # imports and per-config caches before the baseline
    before = rss_bytes()
    env = SelfPlayVectorEnv(config, num_envs, seed=seed, obs_layout=obs_layout)
    _obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        env.step(random_legal(mask, rng))
    used = rss_bytes() - before
    arrays = sum(a.nbytes for a in (env.obs, env.mask, env.to_move, env.rewards, env.done))
    return {"games": num_envs, "steps": steps, "rss_bytes": used, "arrays_bytes": arrays}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bc_env.bench.vector", description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="core-4p")
    ap.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per row")
    ap.add_argument("--num-envs", type=int, default=64, help="games per batched env")
    ap.add_argument("--rounds", type=int, default=5, help="alternate the loops in this many rounds (default 5)")
    ap.add_argument("--processes", type=int, default=0, help="also run this many batched envs at once")
    ap.add_argument("--memory", type=int, default=0, help="measure the resident memory of this many games")
    ap.add_argument("--memory-steps", type=int, default=100)
    ap.add_argument(
        "--obs-layout",
        action="append",
        choices=("core", "compact-v1", "compact-v2"),
        help="observation layout of the batched env (repeat for several rows; default core)",
    )
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {args.rounds}")
    layouts = args.obs_layout or ["core"]
    from bc_env.rules import COMPILED

    load = os.getloadavg()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / "
        f"{load[2]:.1f}; engine {'compiled' if COMPILED else 'pure Python'}; Python {platform.python_version()}"
    )
    if args.seconds > 0:
        import bc_env

        # Rounds of every loop in turn (seconds / rounds each): a machine whose speed drifts during the run slows
        # the loops of a round alike, so the ratio of each round is sound even when the rates differ between rounds.
        per = args.seconds / args.rounds
        rows: list[list[EnvBenchResult]] = []
        for k in range(args.rounds):
            aec = bench_aec(f"AEC env ({args.config})", lambda: bc_env.env(args.config), per, seed=1000 * k)
            vecs = [bench_vector(args.config, args.num_envs, per, seed=k, obs_layout=lay) for lay in layouts]
            rows.append([aec, *vecs])
        total = [_sum([r[j] for r in rows]) for j in range(len(layouts) + 1)]
        print("| loop | games | steps/game | steps/CPU-s | us/step | steps/wall-s |")
        print("|---|---|---|---|---|---|")
        for result in total:
            print(result.row())
        for result in total[1:]:
            share = result.choosing / result.seconds
            print(f"({result.name}: {share:.0%} of its CPU time went to choosing the actions)")
        for j, lay in enumerate(layouts, start=1):
            ratios = sorted(r[j].steps_per_s / r[0].steps_per_s for r in rows)
            each = ", ".join(f"{x:.2f}" for x in ratios)
            print(
                f"batched ({lay}) / AEC (core), per CPU second: {total[j].steps_per_s / total[0].steps_per_s:.2f}x "
                f"over the run; median of {args.rounds} rounds {float(np.median(ratios)):.2f}x ({each})"
            )
    if args.processes:
        for lay in layouts:
            steps, cpu, wall = bench_processes(args.config, args.num_envs, args.seconds, args.processes, lay)
            print(
                f"{args.processes} processes x SelfPlayVectorEnv({args.config}, {args.num_envs}, {lay}): "
                f"{steps:,} steps, {steps / wall:,.0f} steps/wall-s in total ({steps / cpu:,.0f} per CPU-s)"
            )
    if args.memory:
        for lay in layouts:
            with mp.get_context("spawn").Pool(1) as pool:  # a fresh process per layout: no memory freed by another
                m = pool.apply(bench_memory, (args.config, args.memory, args.memory_steps, 0, lay))
            per = m["rss_bytes"] / m["games"]
            mib, arrays = m["rss_bytes"] / 2**20, m["arrays_bytes"] / 2**20
            print(
                f"memory ({lay}): {m['games']:,} games of {args.config} after {m['steps']} batch steps: "
                f"{mib:,.0f} MiB resident ({per / 1024:,.1f} KiB per game; output arrays {arrays:,.0f} MiB); "
                f"16,384 games extrapolated: {per * 16384 / 2**30:,.2f} GiB"
            )


if __name__ == "__main__":
    main()
