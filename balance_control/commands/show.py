"""``balance-control show``: render a JSON state file (``game.to_dict()``, docs/state-schema.md)."""

from __future__ import annotations

import argparse

from bc_env.rules import Game
from bc_env.rules.errors import BalanceControlError
from bc_env.rules.replay import read_json_file

from .common import add_legend_argument, fail, print_legend

NAME = "show"
HELP = "render a JSON state file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file")
    add_legend_argument(parser)


def load_state(path: str) -> Game:
    """The game saved in ``path``; any problem with the file is one ``fail`` line naming it."""
    try:
        doc = read_json_file(path, "state")
    except BalanceControlError as exc:
        raise fail(str(exc)) from None
    try:
        return Game.from_dict(doc)
    except BalanceControlError as exc:
        raise fail(f"{path}: not a valid state: {exc}") from None
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError) as exc:
        # Defensive: the state loader should only raise StateError, but a file from outside must never
        # end in a traceback.
        raise fail(f"{path}: not a valid state ({type(exc).__name__}: {exc})") from None


def run(args: argparse.Namespace) -> int:
    game = load_state(args.file)
    print(game.render())
    if args.legend:
        print_legend(game)
    return 0
