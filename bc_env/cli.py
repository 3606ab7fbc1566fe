"""Command line: ``balance-control <command>`` (named so it does not shadow the ``bc`` calculator)."""

from __future__ import annotations

import argparse
import json
import random
import sys

from .rules import Game, RulesConfig, load_replay, preset_names


def _watch(args: argparse.Namespace) -> int:
    game = Game.new(RulesConfig.resolve(args.config), args.seed)
    rng = random.Random(args.seed)
    while not game.is_terminal():
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        if not args.final_only:
            print(f"P{game.current_player} [{game.phase_name}] {game.action_to_string(action)}")
        game.apply(action)
    print(game.render())
    return 0


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
    parser = argparse.ArgumentParser(prog="balance-control", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("watch", help="watch random bots play a seeded game")
    w.add_argument("--config", default="core-4p", help=f"preset ({', '.join(preset_names())}) or path")
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--final-only", action="store_true", help="print only the final position")
    w.set_defaults(func=_watch)
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
