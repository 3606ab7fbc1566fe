"""The bot protocol over stdin/stdout: one JSON request per line in, one JSON reply per line out.

Lines longer than ``MAX_MESSAGE_BYTES`` are read to their end and answered with ``too_large`` without being
kept in memory; the process ends on ``quit`` or at the end of its input, with exit status 0. Replies are written as
UTF-8 bytes whatever the locale; a reply that could not be written (a defect) becomes an ``internal`` error reply.
"""

from __future__ import annotations

import sys
from typing import Any, BinaryIO, TextIO

from .protocol import MAX_MESSAGE_BYTES, Session, error_reply
from .wirejson import encode_bytes

CHUNK = 1 << 16


def read_line(stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> tuple[bytes | None, int]:
    """The next line without its newline, or ``(None, size)`` if it is longer than ``limit`` (then the line has
    been consumed). ``(b"", -1)`` at the end of the input."""
    line = stream.readline(limit + 1)
    if not line:
        return b"", -1
    if line.endswith(b"\n"):
        return line.rstrip(b"\r\n"), len(line)
    if len(line) <= limit:  # the last line, without a newline
        return line.rstrip(b"\r"), len(line)
    size = len(line)
    while True:  # skip the rest of an oversized line
        more = stream.readline(CHUNK)
        size += len(more)
        if not more or more.endswith(b"\n"):
            return None, size


def serve(stdin: BinaryIO | None = None, stdout: TextIO | None = None, bot: Any = None) -> int:
    """Serve one session; ``bot`` (``serve --stdio --bot NAME``) answers ``go`` until a ``bot`` command."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    session = Session(allow_paths=True)
    session.bot = bot
    while True:
        line, size = read_line(stdin)
        if size < 0:
            return 0
        if line is None:
            reply = error_reply(None, None, "too_large", f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
        elif not line.strip():
            continue  # blank lines are allowed between messages
        else:
            try:
                reply = session.handle_line(line)
            except Exception as exc:  # a defect: the session answers it and goes on
                reply = error_reply(None, None, "internal", f"{type(exc).__name__}: {str(exc)[:300]}")
        write(stdout, reply)
        if session.closed:
            return 0


def write(stdout: TextIO, reply: dict[str, Any]) -> None:
    """One reply line, as UTF-8 bytes to the binary buffer under ``stdout`` (text to a stream without one)."""
    data = encode_bytes(reply) + b"\n"
    buffer = getattr(stdout, "buffer", None)
    if buffer is None:
        stdout.write(data.decode("utf-8"))
        stdout.flush()
        return
    stdout.flush()
    buffer.write(data)
    buffer.flush()
