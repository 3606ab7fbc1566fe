"""``balance-control play``: a person against bots in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from bc_env.rules import Game, RulesConfig
from bc_env.rules.errors import IllegalActionError

from .common import bot_names, fail, load_config, presets_help, result_line

NAME = "play"
HELP = "play against bots in the terminal (reads your moves from stdin)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-2p", help=presets_help())
    parser.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    parser.add_argument("--opponents", default="heuristic", help="bot for every other seat, or one per other seat")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if not 0 <= args.seat < config.players:
        raise fail(f"--seat must be in 0..{config.players - 1}, got {args.seat}")
    opponents = bot_names(args.opponents, config.players - 1, "--opponents")
    return play_loop(config, args.seat, opponents, args.seed, sys.stdin, sys.stdout)


def _format_options(game: Game, legal: list[int]) -> str:
    items = [f"{i + 1:>3}) {game.action_to_string(a)}" for i, a in enumerate(legal)]
    width = max(len(s) for s in items) + 2
    per_line = max(1, 100 // width)
    rows = ["".join(s.ljust(width) for s in items[i : i + per_line]).rstrip() for i in range(0, len(items), per_line)]
    return "\n".join(rows)


def _parse_choice(game: Game, legal: list[int], text: str) -> int | str:
    """The chosen action, or an error message for the player."""
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return f"{k} is not an option: enter a number from 1 to {len(legal)} or an action string"
    try:
        action = game.string_to_action(text)
    except IllegalActionError as exc:
        example = game.action_to_string(legal[0])
        return f"{exc}; enter a number from 1 to {len(legal)} or an action string such as {example!r}"
    if action not in legal:
        return (
            f"{text!r} is not legal now ({game.phase_name}); enter a number from 1 to {len(legal)} "
            f"or one of the listed action strings"
        )
    return action


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def play_loop(config: RulesConfig, seat: int, opponents: list[str], seed: int, stdin: TextIO, stdout: TextIO) -> int:
    """The interactive game: ``seat`` reads its decisions from ``stdin``; bots play the other seats."""
    from policies import load

    game = Game.new(config, seed)

    def out(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    bots = {}
    others = [q for q in range(game.num_players) if q != seat]
    for q, name in zip(others, opponents):
        bots[q] = load(name, seed=seed * 100 + q)
    out(f"{config.name}, seed {seed}: you are P{seat}; " + ", ".join(f"P{q} {bots[q].name}" for q in others))
    out("Enter the number of an option or the action string; 'list' shows the options again, 'quit' exits.")
    show = True
    while not game.is_terminal():
        current = game.current_player
        assert current is not None
        if current != seat:
            action = bots[current].act(game)
            out(f"P{current} [{game.phase_name}] {game.action_to_string(action)}")
            game.apply(action)
            show = True
            continue
        legal = game.legal_actions()
        if show:
            out()
            out(game.render())
            out(f"your decision ({game.phase_name}), {len(legal)} options:")
            out(_format_options(game, legal))
            show = False
        stdout.write(f"P{seat} [{game.phase_name}]> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            out()
            out("end of input: leaving the game")
            return 1
        text = line.strip()
        if not _isatty(stdin):
            out(text)  # echo piped input so that a transcript reads like a terminal session
        if text in ("quit", "exit", "q"):
            out("bye")
            return 0
        if text in ("list", "?", "help", ""):
            out(_format_options(game, legal))
            continue
        choice = _parse_choice(game, legal, text)
        if isinstance(choice, str):
            out(f"invalid input: {choice}")
            continue
        out(f"P{seat} [{game.phase_name}] {game.action_to_string(choice)}")
        game.apply(choice)
        show = True
    out()
    out(game.render())
    out(result_line(game))
    return 0
