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
import json
import sys

from bc_env.rules.errors import BalanceControlError

from .commands import COMMANDS
from .commands.common import describe_os_error

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("balance-control")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="balance-control", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.__doc__)
        command.add_arguments(p)
        p.set_defaults(func=command.run)
    return parser


def _error(message: str) -> int:
    """Print the one-line error every command failure becomes (never a traceback) and give the exit status."""
    one_line = " ".join(message.split())  # a multi-line message still prints as one line
    print(f"balance-control: error: {one_line}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Run one command. Bad input of any kind (the project's errors, unreadable files, malformed JSON) ends in one
    line ``balance-control: error: ...`` on stderr and exit status 1 (as ``fail``); Ctrl-C ends with status 130."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. ``balance-control watch | head``: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("\nbalance-control: interrupted", file=sys.stderr)
        return 130
    except BalanceControlError as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(describe_os_error(exc))
    except json.JSONDecodeError as exc:
        return _error(f"not valid JSON: {exc}")
    except UnicodeDecodeError as exc:
        return _error(f"not UTF-8 text: {exc}")


if __name__ == "__main__":
    sys.exit(main())
