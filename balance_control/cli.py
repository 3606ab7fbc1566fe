"""Command line: ``balance-control <command>`` (named so it does not shadow the ``bc`` calculator).

Each command is a module of :mod:`balance_control.commands`; ``--help`` shows :data:`DESCRIPTION` and each command's
docstring as plain text (:func:`plain_text` drops the reStructuredText markup).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys

from bc_env.rules.errors import BalanceControlError

from .commands import COMMANDS
from .commands.common import describe_os_error
from .terminal import plain_when_piped

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("balance-control")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "unknown"


DESCRIPTION = """\
Play, watch and replay BALANCE // CONTROL in the terminal, pit its bots against each other, train new ones
and serve them to other programs.

Examples:
  balance-control play --config core-2p --opponents heuristic          # you against a bot
  balance-control watch --config core-4p --bots heuristic,random --delay 1   # the board after every turn
  balance-control replay game.json --step                              # step through a replay (Enter, b, q)
  balance-control match --config core-2p --bots heuristic,random --games 100
  balance-control tournament --bots random,heuristic,expert --config core-4p --games 200 --log t.jsonl
  balance-control rate t.jsonl | report t.jsonl --out report | sprt --a expert --b heuristic --elo1 30
  balance-control compare core-2p docs/examples/core-2p-equal-turns.toml --bots expert --deals 50   # rule variants
  balance-control serve --http --port 0                                # the browser page; prints its URL
  balance-control legend                                               # what the board codes mean

'balance-control COMMAND --help' shows a command's options."""

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")  # :class:`Game`, :func:`~a.b`
_LITERAL = re.compile(r"``([^`]+)``")


def plain_text(doc: str | None) -> str:
    """A docstring as plain text for ``--help``: no ``double backquotes``, roles or ``::`` literal-block markers."""
    text = inspect.cleandoc(doc or "")
    text = _ROLE.sub(r"\1", text)
    text = _LITERAL.sub(r"\1", text)
    return re.sub(r"::$", ":", text, flags=re.MULTILINE)


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="balance-control", description=DESCRIPTION, formatter_class=raw)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        doc = plain_text(command.__doc__)
        p = sub.add_parser(command.NAME, help=command.HELP, description=doc, formatter_class=raw)
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
    with plain_when_piped():  # no colour or other control codes where the output is not a terminal
        return _run(args)


def _run(args: argparse.Namespace) -> int:
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
