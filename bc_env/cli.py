"""Command line: ``balance-control <command>`` (named so it does not shadow the ``bc`` calculator).

Commands::

    balance-control play  --config core-2p --seat 0 --opponents heuristic   # you against bots
    balance-control watch --config core-4p --bots heuristic,random,random,random
    balance-control match --config core-2p --bots heuristic,random --games 100
    balance-control watch --config core-4p --seed 1 --final-only            # random bots, last position
    balance-control bench | replay FILE | show FILE
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from .rules import Game, RulesConfig, load_replay, preset_names
from .rules.errors import BalanceControlError, IllegalActionError


def _bot_names(text: str, seats: int, what: str) -> list[str]:
    """A comma-separated bot list: one name for every seat, or exactly one name per seat."""
    from policies import available

    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise SystemExit(f"balance-control: error: {what} is empty; available bots: {', '.join(available())}")
    unknown = [n for n in names if n not in available() and not Path(n).with_suffix(".npz").is_file()]
    if unknown:
        raise SystemExit(
            f"balance-control: error: unknown bot {unknown[0]!r}; available bots: {', '.join(available())}, "
            "or the path of an exported policy (.npz + .json)"
        )
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise SystemExit(f"balance-control: error: {what} needs 1 or {seats} names, got {len(names)}: {text!r}")
    return names


def _config(spec: str) -> RulesConfig:
    try:
        return RulesConfig.resolve(spec)
    except BalanceControlError as exc:
        raise SystemExit(f"balance-control: error: {exc}") from None


def _result_line(game: Game) -> str:
    winners = game.winners()
    who = ", ".join(f"P{p}" for p in winners)
    kind = "shared victory" if len(winners) > 1 else "winner"
    return f"result: {kind} {who}; Influence on the Board per seat {list(game.on_board)} (CORE-01-09-03)"


# ---------------------------------------------------------------------------------------------- watch
def _watch(args: argparse.Namespace) -> int:
    from policies import RandomPolicy, load

    config = _config(args.config)
    game = Game.new(config, args.seed)
    if args.bots is None:
        # One random bot seeded with --seed plays every seat (the original ``watch`` behaviour).
        shared = RandomPolicy(seed=args.seed)
        bots = [shared] * game.num_players
    else:
        names = _bot_names(args.bots, game.num_players, "--bots")
        bots = [load(name, seed=args.seed * 100 + q) for q, name in enumerate(names)]
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        action = bots[seat].act(game)
        if not args.final_only:
            print(f"P{seat} [{game.phase_name}] {game.action_to_string(action)}")
        game.apply(action)
    print(game.render())
    if args.bots is not None or not args.final_only:
        print("bots: " + ", ".join(f"P{q} {getattr(b, 'name', '?')}" for q, b in enumerate(bots)))
        print(_result_line(game))
    return 0


# ---------------------------------------------------------------------------------------------- play
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
        return f"{exc}; enter a number from 1 to {len(legal)} or an action string such as {_example(game, legal)!r}"
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


def _example(game: Game, legal: list[int]) -> str:
    return game.action_to_string(legal[0])


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
    out(_result_line(game))
    return 0


def _play(args: argparse.Namespace) -> int:
    config = _config(args.config)
    if not 0 <= args.seat < config.players:
        raise SystemExit(f"balance-control: error: --seat must be in 0..{config.players - 1}, got {args.seat}")
    opponents = _bot_names(args.opponents, config.players - 1, "--opponents")
    return play_loop(config, args.seat, opponents, args.seed, sys.stdin, sys.stdout)


# ---------------------------------------------------------------------------------------------- match
def _match(args: argparse.Namespace) -> int:
    from policies.arena import play_match

    config = _config(args.config)
    names = _bot_names(args.bots, config.players, "--bots")
    if args.games < 1:
        raise SystemExit(f"balance-control: error: --games must be >= 1, got {args.games}")
    result = play_match(config, names, args.games, args.seed, rotate_seats=not args.fixed_seats, progress=args.progress)
    print(result.table())
    return 0


# ---------------------------------------------------------------------------------------------- others
def _bench(args: argparse.Namespace) -> int:
    from .bench.engine import run

    run(args.presets, args.seconds)
    return 0


def _replay(args: argparse.Namespace) -> int:
    game = load_replay(args.file)
    print(game.render())
    return 0


def _state(args: argparse.Namespace) -> int:
    with open(args.file, encoding="utf-8") as fh:
        game = Game.from_dict(json.load(fh))
    print(game.render())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="balance-control", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    presets = f"preset ({', '.join(preset_names())}) or path"

    p = sub.add_parser("play", help="play against bots in the terminal (reads your moves from stdin)")
    p.add_argument("--config", default="core-2p", help=presets)
    p.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    p.add_argument("--opponents", default="heuristic", help="bot for every other seat, or one per other seat")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_play)

    w = sub.add_parser("watch", help="watch bots play a seeded game")
    w.add_argument("--config", default="core-4p", help=presets)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument(
        "--bots", default=None, help="bot for every seat, or one per seat, e.g. heuristic,random (default: random)"
    )
    w.add_argument("--final-only", action="store_true", help="print only the final position")
    w.set_defaults(func=_watch)

    m = sub.add_parser("match", help="play many seeded games between bots and print win rates")
    m.add_argument("--config", default="core-2p", help=presets)
    m.add_argument("--bots", default="heuristic,random", help="one bot per seat, e.g. heuristic,random")
    m.add_argument("--games", type=int, default=100)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--fixed-seats", action="store_true", help="do not rotate the seats between games")
    m.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="tqdm progress bar on stderr (default: when stderr is a terminal and tqdm is installed)",
    )
    m.set_defaults(func=_match)

    b = sub.add_parser("bench", help="engine benchmark: random legal games per preset")
    b.add_argument("--seconds", type=float, default=10.0, help="seconds per preset")
    b.add_argument("--presets", nargs="+", default=["core-2p", "core-3p", "core-4p", "core-5p", "core-6p"])
    b.set_defaults(func=_bench)
    r = sub.add_parser("replay", help="replay a replay file and print the final position")
    r.add_argument("file")
    r.set_defaults(func=_replay)
    s = sub.add_parser("show", help="render a JSON state file")
    s.add_argument("file")
    s.set_defaults(func=_state)
    t = sub.add_parser("train", help="self-play MaskablePPO training from a config (needs the [train] extra)")
    from training.cli import add_arguments as add_train_arguments
    from training.cli import run as run_training

    add_train_arguments(t)
    t.set_defaults(func=run_training)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. ``balance-control watch | head``: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
