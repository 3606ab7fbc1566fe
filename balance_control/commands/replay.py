"""``balance-control replay``: replay a replay file, or one game of a tournament log, and print the final
position."""

from __future__ import annotations

import argparse

from bc_env.rules import load_replay
from bc_env.rules.errors import BalanceControlError

from .common import add_legend_argument, fail, print_legend

NAME = "replay"
HELP = "replay a replay file (or game N of a tournament log) and print the final position"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a replay file, or a tournament log (JSON lines) with --game")
    parser.add_argument("--game", type=int, default=None, help="the index of the game in a tournament log")
    add_legend_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.game is not None:
        from benchmarking.tournament import read_log

        try:
            log = read_log(args.file)
            rec = log.games.get(args.game)
            if rec is None:
                raise fail(f"{args.file} has no finished game {args.game} ({len(log.games)} games logged)")
            game = load_replay(rec["replay"])
        except BalanceControlError as exc:
            raise fail(str(exc)) from None
        print(f"game {args.game}: {rec['config']}, seed {rec['seed']}, seats {', '.join(rec['seats'])}")
    elif str(args.file).endswith(".jsonl"):  # a tournament log given without --game
        try:
            game = load_replay(args.file)
        except (ValueError, OSError) as exc:  # BalanceControlError, or a file that is not one JSON document
            raise fail(f"{exc} (a tournament log? pick a game with --game N)") from None
    else:
        game = load_replay(args.file)
    print(game.render())
    if args.legend:
        print_legend(game)
    return 0
