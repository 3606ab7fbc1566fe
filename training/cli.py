"""``balance-control train`` / ``python -m training``: start or resume a self-play run from a config file."""

from __future__ import annotations

import argparse
import sys

from .config import BACKENDS, TrainConfig, TrainConfigError
from .rundir import RunDirError


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
        choices=tuple(BACKENDS),
        default=None,
        help="trainer: sb3 (MaskablePPO on this machine, the [train] extra), rllib (Ray RLlib, local or a Ray "
        "cluster, the [rllib] extra) or selfplay (batched self-play PPO, training/selfplay/, the [train] extra); "
        "default: the config's backend key (sb3 when absent)",
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
    from .core import backend_class, train

    try:
        backend = backend_class(cfg.backend)(cfg)  # torch, sb3 or ray are imported only here
        train(backend, resume=args.resume, progress=False if args.no_progress else None)
    except (RunDirError, TrainConfigError) as exc:
        print(f"{_prefix(args)}error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # the backend's extra, or a package it imports late (e.g. tensorboard), is missing
        extra = BACKENDS[cfg.backend][2] if cfg.backend in BACKENDS else "train"
        print(f"{_prefix(args)}error: {missing_extra_hint(exc, extra)}", file=sys.stderr)
        return 2
    return 0


def _prefix(args: argparse.Namespace) -> str:
    """``balance-control: `` when run as ``balance-control train`` (its one-line error format), else nothing."""
    prog = getattr(args, "error_prefix", None)
    return f"{prog}: " if prog else ""


def missing_extra_hint(exc: ImportError, extra: str = "train") -> str:
    """The install hint for a missing training dependency (torch, stable-baselines3, sb3-contrib, ray, ...)."""
    missing = f" (missing: {exc.name})" if exc.name else f" ({exc})"
    return (
        f"training needs the [{extra}] extra{missing}; install it with "
        f"`pip install -e '.[{extra}]'` in a checkout (or `bash scripts/setup.sh dev,{extra}`)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))
