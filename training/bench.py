"""Training throughput of the backends side by side in one run: learner steps per second of sb3, rllib and selfplay
on the same rules, opponents and network, each for the same wall-clock budget, one after the other::

    python -m training.bench --seconds 60                       # sb3, rllib, selfplay on core-2p vs random
    python -m training.bench --seconds 60 --opponents pool      # the base config's pool (random, heuristic, snapshots)
    python -m training.bench --backends selfplay,rllib --seconds 30 --json throughput.json

Each backend trains from ``configs/train/zero-core-2p.toml`` (``--config``) in a fresh process (``balance-control
train --backend <name>``, a temporary run directory), from random weights, with the same network (``--net-arch``),
the same opponents (``--opponents random``: every other seat is the random bot; ``pool``: the config's pool), no
evaluation, snapshot or checkpoint inside the budget (``max_seconds = --seconds``), and about the same rollout per
PPO update (``--rollout`` learner decisions). How each spreads its work over the cores is its own:

* sb3: ``n_envs`` = 2 environment processes (one game each), MaskablePPO in the main process;
* rllib: 1 env runner stepping one batched env of ``--rollout / 64`` games (``bc_env.vector.LearnerVectorEnv``),
  the learner in the driver, local Ray on ``os.cpu_count()`` CPUs;
* selfplay: ``selfplay.workers`` = 2 processes x 32 games, the learner in the main process (one torch thread).

A *learner step* is one decision of the network being trained (a training sample). The figure is the backend's own
``summary.json`` ``this_session_steps_per_second``: steps over the training loop's wall time, PPO updates included,
start-up (Ray, processes, the model) and the final evaluation excluded. Printed as a Markdown table with the
machine's cores and its load average (1 minute) before and after each backend: on a shared machine the figures are
lower bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BACKENDS = ("sb3", "rllib", "selfplay")


def common_sets(seconds: float, opponents: str, net_arch: str, rollout: int) -> list[str]:
    """The ``--set`` overrides every backend runs with."""
    sets = [
        'rules="core-2p"',
        "seed=0",
        f"max_seconds={seconds}",
        "total_steps=1000000000",
        "eval_every=1000000000",
        "eval_games=1",
        "checkpoint_every=1000000000",
        "pool.snapshot_every=1000000000",
        'network="mlp"',
        f"net_arch={net_arch}",
        "bc_games=0",
        'init_policy=""',
        "selfplay.eval_expert=false",
        f"ppo.batch_size={min(1024, rollout)}",
        "ppo.n_epochs=2",
    ]
    if opponents == "random":
        sets += ["pool.p_random=1.0", "pool.p_heuristic=0.0"]
    return sets


def backend_sets(backend: str, rollout: int) -> list[str]:
    """How each backend spreads a rollout of about ``rollout`` decisions over the machine (module docstring)."""
    if backend == "sb3":
        return ["n_envs=2", f"ppo.n_steps={rollout // 2}"]
    if backend == "rllib":
        games = max(1, rollout // 64)
        return [f"n_envs={games}", "ppo.n_steps=64", "rllib.num_env_runners=1", f"rllib.num_cpus={os.cpu_count() or 2}"]
    # selfplay: n_steps counts batch steps of all 2 x 32 games; in a 2-player game against a bot the network makes
    # about every other decision, so rollout / 32 batch steps hold about ``rollout`` learner decisions
    return ["selfplay.workers=2", "selfplay.games_per_worker=32", f"ppo.n_steps={max(1, rollout // 32)}"]


def run_backend(backend: str, config: str, sets: list[str], runs: Path) -> dict[str, Any]:
    """Train ``backend`` in a fresh process; its summary plus the load average around it."""
    name = f"bench-{backend}"
    cmd = [sys.executable, "-m", "balance_control", "train", "--config", config, "--backend", backend, "--no-progress"]
    for s in [*sets, f'name="{name}"', f'runs_dir="{runs}"']:
        cmd += ["--set", s]
    load_before = os.getloadavg()[0]
    t = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.time() - t
    load_after = os.getloadavg()[0]
    if done.returncode != 0:
        raise SystemExit(f"{backend} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    summary = json.loads((runs / name / "summary.json").read_text())
    return {
        "backend": backend,
        "steps": summary["steps"],
        "seconds": summary["this_session_seconds"],
        "steps_per_second": summary["this_session_steps_per_second"],
        "process_seconds": round(wall, 1),
        "load_before": round(load_before, 2),
        "load_after": round(load_after, 2),
        "sets": sets,
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| backend | learner steps/s | steps | loop seconds | process seconds | load avg (1 min) before / after |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | **{r['steps_per_second']:,.0f}** | {r['steps']:,} | {r['seconds']:.1f} | "
            f"{r['process_seconds']:.0f} | {r['load_before']:.1f} / {r['load_after']:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="max_seconds of each backend's run (default 60)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated, in order (default all three)")
    ap.add_argument("--config", default="configs/train/zero-core-2p.toml", help="base training config")
    ap.add_argument("--opponents", choices=("random", "pool"), default="random")
    ap.add_argument("--net-arch", default="[128,128]", help="hidden layers of every backend's MLP")
    ap.add_argument("--rollout", type=int, default=4096, help="learner decisions per PPO update, about")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args(argv)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = sorted(set(backends) - set(BACKENDS))
    if unknown:
        ap.error(f"unknown backend(s) {', '.join(unknown)}; known: {', '.join(BACKENDS)}")
    from bc_env.rules import COMPILED

    sets = common_sets(args.seconds, args.opponents, args.net_arch, args.rollout)
    rows = []
    with tempfile.TemporaryDirectory(prefix="train-bench-") as tmp:
        for backend in backends:
            row = run_backend(backend, args.config, [*sets, *backend_sets(backend, args.rollout)], Path(tmp))
            rows.append(row)
            print(f"{backend}: {row['steps_per_second']:,.0f} learner steps/s", file=sys.stderr, flush=True)
    machine = (
        f"{os.cpu_count()} cores ({platform.machine()}), engine {'compiled' if COMPILED else 'pure Python'}, "
        f"core-2p vs {'random' if args.opponents == 'random' else 'the pool of ' + args.config}, "
        f"MLP {args.net_arch}, ~{args.rollout} decisions per update, {args.seconds:g} s each"
    )
    print(machine)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
