"""``balance-control train`` / ``python -m training``: start or resume a self-play run from a config file."""

from __future__ import annotations

import argparse
import sys

from .config import TrainConfig, TrainConfigError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        required=True,
        help="training config (TOML), e.g. configs/train/tiny.toml (a minute) or configs/train/ppo-core-2p.toml "
        "(the shipped 2-player bot's recipe: hours)",
    )
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
        choices=("sb3", "rllib", "selfplay"),
        default=None,
        help="trainer: sb3 (MaskablePPO on this machine), rllib (Ray RLlib, local or a Ray cluster; needs the "
        "[rllib] extra) or selfplay (batched self-play PPO, training/selfplay.py); default: the config's backend key "
        "(sb3 when absent)",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run in runs/<name> where it stopped")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    try:
        cfg = TrainConfig.load(args.config).override(args.overrides)
        if args.backend is not None:
            cfg = cfg.replace(backend=args.backend)
    except TrainConfigError as exc:
        print(f"{_prefix(args)}error: {exc}", file=sys.stderr)
        return 2
    if cfg.backend == "rllib":
        return _run_rllib(cfg, args)
    try:
        if cfg.backend == "selfplay":
            from .selfplay import RunDirError, train  # torch is imported only here
        else:
            from .train import RunDirError, train  # torch and sb3 are imported only here
    except ImportError as exc:
        print(f"{_prefix(args)}error: {missing_extra_hint(exc)}", file=sys.stderr)
        return 2
    try:
        train(cfg, resume=args.resume, progress=False if args.no_progress else None)
    except (RunDirError, TrainConfigError) as exc:
        print(f"{_prefix(args)}error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # a training package imported late (e.g. tensorboard) is missing
        print(f"{_prefix(args)}error: {missing_extra_hint(exc)}", file=sys.stderr)
        return 2
    return 0


def _prefix(args: argparse.Namespace) -> str:
    """``balance-control: `` when run as ``balance-control train`` (its one-line error format), else nothing."""
    prog = getattr(args, "error_prefix", None)
    return f"{prog}: " if prog else ""


def missing_extra_hint(exc: ImportError) -> str:
    """The install hint for a missing training dependency (torch, stable-baselines3, sb3-contrib, ...)."""
    missing = f" (missing: {exc.name})" if exc.name else f" ({exc})"
    return (
        f"training needs the [train] extra{missing}; install it with "
        "`pip install -e '.[train]'` in a checkout (or `bash scripts/setup.sh dev,train`)"
    )


def _run_rllib(cfg: TrainConfig, args: argparse.Namespace) -> int:
    try:
        from .rllib.trainer import RunDirError, train  # ray is imported only here
    except ImportError as exc:
        hint = f"backend 'rllib' needs Ray RLlib: pip install -e '.[rllib]' ({exc})"
        print(f"{_prefix(args)}error: {hint}", file=sys.stderr)
        return 2
    try:
        train(cfg, resume=args.resume, progress=False if args.no_progress else None)
    except (RunDirError, TrainConfigError) as exc:
        print(f"{_prefix(args)}error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))
