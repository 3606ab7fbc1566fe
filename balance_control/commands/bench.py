"""``balance-control bench``: the engine benchmark (random legal games per preset)."""

from __future__ import annotations

import argparse

NAME = "bench"
HELP = "engine benchmark: random legal games per preset"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per preset")
    parser.add_argument("--presets", nargs="+", default=["core-2p", "core-3p", "core-4p", "core-5p", "core-6p"])


def run(args: argparse.Namespace) -> int:
    from bc_env.bench.engine import run as run_bench

    run_bench(args.presets, args.seconds)
    return 0
