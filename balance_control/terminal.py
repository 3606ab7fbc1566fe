"""What the command line does differently on a terminal: it may redraw the screen there, and nowhere else does any
terminal control code (colour, screen clearing) reach its output.

:func:`plain_when_piped` wraps every command (``cli.main``): a stream that is not a terminal (a pipe, a file, a
test's buffer) gets its writes with the control codes removed, whoever writes them (Ray's and uvicorn's loggers
too), and the processes the command starts are told not to colour either (``NO_COLOR=1``, ``RAY_COLOR_PREFIX=0``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

#: Cursor home and erase the screen (ECMA-48): a board replaces the previous one.
CLEAR = "\033[H\033[2J"
#: ECMA-48 control sequences (CSI: colours, cursor moves, erasing) and operating system commands (OSC: titles).
CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: What child processes read: the no-colour convention (https://no-color.org) and Ray's worker-prefix switch.
NO_COLOUR_ENV = {"NO_COLOR": "1", "RAY_COLOR_PREFIX": "0"}


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is an interactive terminal (a pipe, a file or a test's buffer is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def clear_screen(stream: TextIO | None = None) -> None:
    """Clear the terminal; does nothing when ``stream`` (default stdout) is not a terminal."""
    stream = stream if stream is not None else sys.stdout
    if is_terminal(stream):
        stream.write(CLEAR)


class PlainStream:
    """A text stream that writes through to ``stream`` without terminal control codes."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(CONTROL.sub("", text) if "\x1b" in text else text)  # the common case: a plain copy
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # flush, fileno, encoding, buffer, ...
        return getattr(self.stream, name)


@contextmanager
def plain_when_piped() -> Iterator[None]:
    """While it lasts, stdout and stderr that are not terminals drop control codes, and child processes are asked
    for plain output; both are restored afterwards."""
    saved_streams = sys.stdout, sys.stderr
    saved_env = {name: os.environ.get(name) for name in NO_COLOUR_ENV}
    piped = [not is_terminal(s) for s in saved_streams]
    if any(piped):
        for name, value in NO_COLOUR_ENV.items():
            os.environ.setdefault(name, value)
    if piped[0]:
        sys.stdout = PlainStream(sys.stdout)  # type: ignore[assignment]
    if piped[1]:
        sys.stderr = PlainStream(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved_streams
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
