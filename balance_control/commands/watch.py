"""``balance-control watch``: watch bots play a seeded game.

By default every action is printed as it is taken, then the final position. With ``--delay SECONDS`` the board is
shown after every turn (each turn's actions above it), waiting SECONDS between turns; on a terminal each board
replaces the last one, in a pipe or a file the boards follow each other (no terminal control codes).
"""

from __future__ import annotations

import argparse
import sys
import time

from bc_env.rules import Game, save_replay

from ..terminal import clear_screen
from .common import add_legend_argument, bot_names, fail, load_config, presets_help, print_legend, result_line

NAME = "watch"
HELP = "watch bots play a seeded game (--delay: the board after every turn)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-4p", help=presets_help())
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bots", default=None, help="bot for every seat, or one per seat, e.g. heuristic,random (default: random)"
    )
    parser.add_argument("--final-only", action="store_true", help="print only the final position")
    parser.add_argument(
        "--delay",
        type=float,
        metavar="SECONDS",
        default=None,
        help="show the board after every turn and wait SECONDS before the next one (0: no wait)",
    )
    parser.add_argument("--save-replay", metavar="FILE", default=None, help="write the game as a replay file")
    add_legend_argument(parser)


def run(args: argparse.Namespace) -> int:
    from policies import RandomPolicy, load

    if args.delay is not None:
        if not args.delay >= 0:  # also refuses nan
            raise fail(f"--delay must be 0 or more seconds, not {args.delay}")
        if args.final_only:
            raise fail("--delay shows every turn and --final-only only the end: choose one")
    config = load_config(args.config)
    game = Game.new(config, args.seed)
    if args.bots is None:
        # One random bot seeded with --seed plays every seat (the original ``watch`` behaviour).
        shared = RandomPolicy(seed=args.seed)
        bots = [shared] * game.num_players
    else:
        names = bot_names(args.bots, game.num_players, "--bots")
        bots = [load(name, seed=args.seed * 100 + q, config=config) for q, name in enumerate(names)]
    boards = args.delay is not None
    terminal = sys.stdout.isatty()
    if boards:
        _show(game, f"--- {config.name}, seed {args.seed}: the start ---", [], terminal)
    actions: list[int] = []
    turn_lines: list[str] = []
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        action = bots[seat].act(game)
        line = f"P{seat} [{game.phase_name}] {game.action_to_string(action)}"
        turn, active, round_, in_round = game.turn, game.active, game.round, game.turns_in_round
        game.apply(action)
        actions.append(action)
        if boards:
            turn_lines.append(line)
            if game.turn != turn or game.is_terminal():
                time.sleep(args.delay)
                where = f"round {round_}, turn {in_round + 1}/{game.num_players}"
                title = f"--- {where}: P{active} ({len(actions)} actions so far) ---"
                _show(game, title, turn_lines, terminal)
                turn_lines = []
        elif not args.final_only:
            print(line)
    if not boards:
        print(game.render())
    if args.legend:
        print_legend(game)
    if args.save_replay is not None:
        save_replay(args.save_replay, game, args.seed, actions)
    if args.bots is not None or not args.final_only:
        print("bots: " + ", ".join(f"P{q} {getattr(b, 'name', '?')}" for q, b in enumerate(bots)))
        print(result_line(game))
    return 0


def _show(game: Game, title: str, lines: list[str], terminal: bool) -> None:
    """One turn: its title, its actions and the board after it (on a terminal in place of the previous one)."""
    if terminal:
        clear_screen()
    else:
        print()
    print(title)
    for line in lines:
        print("  " + line)
    print(game.render(), flush=True)
