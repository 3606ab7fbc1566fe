"""``balance-control show``: render a JSON state file."""

from __future__ import annotations

import argparse
import json

from bc_env.rules import Game

NAME = "show"
HELP = "render a JSON state file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")


def run(args: argparse.Namespace) -> int:
    with open(args.file, encoding="utf-8") as fh:
        game = Game.from_dict(json.load(fh))
    print(game.render())
    return 0
