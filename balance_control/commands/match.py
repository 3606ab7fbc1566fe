"""``balance-control match``: many seeded games between bots, with win rates."""

from __future__ import annotations

import argparse

from .common import bot_names, fail, load_config, presets_help

NAME = "match"
HELP = "play many seeded games between bots and print win rates"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-2p", help=presets_help())
    parser.add_argument("--bots", default="heuristic,random", help="one bot per seat, e.g. heuristic,random")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixed-seats", action="store_true", help="do not rotate the seats between games")
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="tqdm progress bar on stderr (default: when stderr is a terminal and tqdm is installed)",
    )


def run(args: argparse.Namespace) -> int:
    from policies.arena import play_match

    config = load_config(args.config)
    names = bot_names(args.bots, config.players, "--bots")
    if args.games < 1:
        raise fail(f"--games must be >= 1, got {args.games}")
    result = play_match(config, names, args.games, args.seed, rotate_seats=not args.fixed_seats, progress=args.progress)
    print(result.table())
    return 0
