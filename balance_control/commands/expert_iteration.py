"""``balance-control expert-iteration``: expert iteration with the search bot (needs the ``train`` extra)."""

from __future__ import annotations

import argparse

from .common import fail

NAME = "expert-iteration"
HELP = "expert iteration: the search bot (mcts) plays itself, a network learns its moves (the [train] extra)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training.expert_iteration import add_arguments as add_exit_arguments

    add_exit_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from training.config import TrainConfigError
    from training.rundir import RunDirError

    try:
        from training.expert_iteration import main
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise fail(f"expert iteration needs the [train] extra (missing: {exc.name})") from None
    try:
        return main(args)
    except ImportError as exc:  # torch is imported when the run starts
        raise fail(f"expert iteration needs the [train] extra (missing: {exc.name})") from None
    except (TrainConfigError, RunDirError) as exc:
        raise fail(str(exc)) from None
