"""One module per ``balance-control`` command.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int`` (the exit
status). :data:`COMMANDS` lists them in the order ``--help`` shows them; a new command is a new module plus
one entry here.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    bench,
    compare,
    expert_iteration,
    legend,
    match,
    play,
    rate,
    replay,
    report,
    serve,
    show,
    sprt,
    tournament,
    train,
    watch,
)

COMMANDS: tuple[ModuleType, ...] = (
    play,
    watch,
    match,
    tournament,
    rate,
    sprt,
    report,
    compare,
    bench,
    replay,
    show,
    legend,
    train,
    expert_iteration,
    serve,
)

__all__ = ["COMMANDS"]
