"""Command line: ``balance-control <command>`` (named so it does not shadow the ``bc`` calculator).

Commands::

    balance-control play  --config core-2p --seat 0 --opponents heuristic   # you against bots
    balance-control watch --config core-4p --bots heuristic,random,random,random
    balance-control match --config core-2p --bots heuristic,random --games 100
    balance-control watch --config core-4p --seed 1 --final-only            # random bots, last position
    balance-control tournament --bots random,heuristic,expert --config core-4p --games 200 --log t.jsonl
    balance-control rate t.jsonl | report t.jsonl --out report | sprt --a expert --b heuristic --elo1 30
    balance-control bench | replay FILE | show FILE | train --config FILE

Each command is a module of :mod:`balance_control.commands`.
"""

from __future__ import annotations

import argparse
import sys

from .commands import COMMANDS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="balance-control", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.__doc__)
        command.add_arguments(p)
        p.set_defaults(func=command.run)
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
