"""``balance-control bench``: the engine benchmark (random legal games per preset)."""

from __future__ import annotations

import argparse
import math

from .common import fail, load_config

NAME = "bench"
HELP = "engine benchmark: random legal games per preset"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of CPU time per preset (> 0)")
    parser.add_argument("--presets", nargs="+", default=["core-2p", "core-3p", "core-4p", "core-5p", "core-6p"])


def run(args: argparse.Namespace) -> int:
    from bc_env.bench.engine import run as run_bench

    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise fail(f"--seconds must be a positive number, got {args.seconds:g}")
    for preset in args.presets:  # every name is checked before anything is measured
        load_config(preset)
    run_bench(args.presets, args.seconds)
    return 0
