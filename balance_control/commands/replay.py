"""``balance-control replay``: replay a replay file and print the final position."""

from __future__ import annotations

import argparse

from bc_env.rules import load_replay

from .common import add_legend_argument, print_legend

NAME = "replay"
HELP = "replay a replay file and print the final position"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    add_legend_argument(parser)


def run(args: argparse.Namespace) -> int:
    game = load_replay(args.file)
    print(game.render())
    if args.legend:
        print_legend(game)
    return 0
