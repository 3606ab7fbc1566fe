"""``balance-control watch``: watch bots play a seeded game."""

from __future__ import annotations

import argparse

from bc_env.rules import Game, save_replay

from .common import add_legend_argument, bot_names, load_config, presets_help, print_legend, result_line

NAME = "watch"
HELP = "watch bots play a seeded game"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-4p", help=presets_help())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bots", default=None, help="bot for every seat, or one per seat, e.g. heuristic,random (default: random)"
    )
    parser.add_argument("--final-only", action="store_true", help="print only the final position")
    parser.add_argument("--save-replay", metavar="FILE", default=None, help="write the game as a replay file")
    add_legend_argument(parser)


def run(args: argparse.Namespace) -> int:
    from policies import RandomPolicy, load

    config = load_config(args.config)
    game = Game.new(config, args.seed)
    if args.bots is None:
        # One random bot seeded with --seed plays every seat (the original ``watch`` behaviour).
        shared = RandomPolicy(seed=args.seed)
        bots = [shared] * game.num_players
    else:
        names = bot_names(args.bots, game.num_players, "--bots")
        bots = [load(name, seed=args.seed * 100 + q, config=config) for q, name in enumerate(names)]
    actions: list[int] = []
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        action = bots[seat].act(game)
        if not args.final_only:
            print(f"P{seat} [{game.phase_name}] {game.action_to_string(action)}")
        game.apply(action)
        actions.append(action)
    print(game.render())
    if args.legend:
        print_legend(game)
    if args.save_replay is not None:
        save_replay(args.save_replay, game, args.seed, actions)
    if args.bots is not None or not args.final_only:
        print("bots: " + ", ".join(f"P{q} {getattr(b, 'name', '?')}" for q, b in enumerate(bots)))
        print(result_line(game))
    return 0
