"""``balance-control train`` / ``python -m training``: start or resume a self-play run from a config file."""

from __future__ import annotations

import argparse
import sys

from .config import TrainConfig, TrainConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="configs/train/ppo-core-2p.toml", help="training config (TOML)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value (dotted keys for tables, e.g. ppo.learning_rate=1e-4); repeatable",
    )
    parser.add_argument(
        "--backend",
        choices=("sb3", "rllib"),
        default=None,
        help="trainer: sb3 (MaskablePPO on this machine) or rllib (Ray RLlib, local or a Ray cluster; needs the "
        "[rllib] extra); default: the config's backend key (sb3 when absent)",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run in runs/<name> where it stopped")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    try:
        cfg = TrainConfig.load(args.config).override(args.overrides)
        if args.backend is not None:
            cfg = cfg.replace(backend=args.backend)
    except TrainConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if cfg.backend == "rllib":
        return _run_rllib(cfg, args)
    from .train import RunDirError, train  # torch and sb3 are imported only here

    try:
        train(cfg, resume=args.resume, progress=False if args.no_progress else None)
    except (RunDirError, TrainConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _run_rllib(cfg: TrainConfig, args: argparse.Namespace) -> int:
    try:
        from .rllib.trainer import RunDirError, train  # ray is imported only here
    except ImportError as exc:
        print(f"error: backend 'rllib' needs Ray RLlib: pip install -e '.[rllib]' ({exc})", file=sys.stderr)
        return 2
    try:
        train(cfg, resume=args.resume, progress=False if args.no_progress else None)
    except (RunDirError, TrainConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))
