"""``balance-control train``: self-play training from a config (needs the ``train`` extra)."""

from __future__ import annotations

import argparse

from training.cli import add_arguments as add_train_arguments
from training.cli import run as run_training

NAME = "train"
HELP = "self-play MaskablePPO training from a config (needs the [train] extra)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_arguments(parser)


def run(args: argparse.Namespace) -> int:
    args.error_prefix = "balance-control"  # errors read ``balance-control: error: ...`` like every command's
    return run_training(args)
