"""Outside bots as entrants: ``cmd:PROGRAM ARGS`` names any program that answers the stdio bot protocol
(docs/protocol.md) as ``balance-control serve --stdio --bot NAME`` does, in any language.

For each game the runner starts the program (``shlex`` splits the command; no shell), with the environment
variable ``BC_BOT_SEED`` set to the seed the runner gives that seat's bot (a program that draws at random may
seed itself with it; ``serve --stdio --bot NAME`` does). The conversation, the runner asking and the program
answering one JSON line per request:

1. ``{"cmd": "hello", "protocol": 1, "client": "balance-control-runner"}``: the program has ``START_SECONDS``
   to answer (it may be loading weights);
2. at each of its decisions: ``{"cmd": "position", "state": ...}`` with the whole state (``Game.to_dict()``),
   then ``{"cmd": "go", "movetime_ms": LIMIT}``; the reply's ``action.id`` is the move;
3. at the end of the game ``{"cmd": "quit"}``, then the process is ended.

Each request must be answered within the per-move time limit (``--move-time``, default
:data:`DEFAULT_MOVE_TIME` seconds). A program that cannot be started, exits, answers late, answers something
that is not a protocol reply or an error reply, or names an action that is not legal raises
:class:`BotFailure` with the reason; the runner then scores the game as a forfeit (``FORFEIT_RULING`` in
:mod:`benchmarking.runner`) and the tournament goes on.

The whole state includes the hidden order of the draw pile, as everything the protocol sends does (the
built-in bots receive the game object and could read it too): an outside entrant is trusted not to look.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import tempfile
import time
from typing import Any

from bc_env.rules import Game
from bc_env.rules.errors import BalanceControlError

PREFIX = "cmd:"
#: Seconds an outside bot may take per request (``--move-time``).
DEFAULT_MOVE_TIME = 10.0
#: Seconds an outside bot may take to start and answer ``hello``.
START_SECONDS = 60.0


class BotFailure(BalanceControlError):
    """An outside bot crashed, hung, broke the protocol or chose an illegal action: it forfeits the game."""


def is_external(name: str) -> bool:
    return name.startswith(PREFIX)


def command_of(name: str) -> list[str]:
    """The argument vector of ``cmd:PROGRAM ARGS`` (a ``BalanceControlError`` when there is none)."""
    try:
        argv = shlex.split(name[len(PREFIX) :])
    except ValueError as exc:
        raise BotFailure(f"bot {name!r}: cannot split the command: {exc}") from None
    if not argv:
        raise BotFailure(f"bot {name!r}: no command after 'cmd:'")
    return argv


class ExternalBot:
    """A bot played by an outside program over the stdio protocol (started at its first decision)."""

    def __init__(self, name: str, seed: int, move_time: float = DEFAULT_MOVE_TIME) -> None:
        self.name = name
        self.argv = command_of(name)
        self.seed = seed
        self.move_time = move_time
        self.proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: Any = None

    # --- the process -------------------------------------------------------------------------------------

    def start(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (open for the process's life; closed in close())
        env = dict(os.environ, BC_BOT_SEED=str(self.seed))
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env
            )
        except OSError as exc:
            raise BotFailure(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        reply = self.request({"cmd": "hello", "protocol": 1, "client": "balance-control-runner"}, START_SECONDS)
        if reply.get("protocol") != 1:
            raise BotFailure(f"answered hello with protocol {reply.get('protocol')!r}, not 1")

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                if proc.poll() is None and proc.stdin is not None:
                    proc.stdin.write(b'{"cmd": "quit"}\n')
                    proc.stdin.flush()
                proc.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        return f"; stderr: {lines[-1][:200]}" if lines else ""

    def _read_line(self, deadline: float, what: str) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise BotFailure(f"timed out: no answer to {what} within {self.limit_text(what)}")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    code = self.proc.wait()
                    raise BotFailure(f"crashed: exited with status {code} before answering {what}{self._stderr_tail()}")
                self._buffer += chunk
                if len(self._buffer) > (16 << 20):
                    raise BotFailure(f"answered {what} with a line over 16 MiB")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def limit_text(self, what: str) -> str:
        return f"{START_SECONDS:g} s" if what == "hello" else f"{self.move_time:g} s"

    def request(self, message: dict[str, Any], seconds: float | None = None) -> dict[str, Any]:
        """Send one request and return its successful reply (``BotFailure`` for anything else)."""
        assert self.proc is not None and self.proc.stdin is not None
        what = message["cmd"]
        deadline = time.monotonic() + (self.move_time if seconds is None else seconds)
        try:
            self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except OSError:
            code = self.proc.wait()
            raise BotFailure(f"crashed: exited with status {code} before {what}{self._stderr_tail()}") from None
        line = self._read_line(deadline, what)
        try:
            reply = json.loads(line)
        except ValueError:
            raise BotFailure(f"answered {what} with something that is not JSON: {line[:80]!r}") from None
        if not isinstance(reply, dict) or reply.get("cmd") not in (what, None) or "ok" not in reply:
            raise BotFailure(f"answered {what} with something that is not a protocol reply: {line[:80]!r}")
        if reply["ok"] is not True:
            error: dict[str, Any] = reply["error"] if isinstance(reply.get("error"), dict) else {}
            raise BotFailure(f"answered {what} with error {error.get('code')!r}: {str(error.get('message'))[:200]}")
        return reply

    # --- the Policy protocol -----------------------------------------------------------------------------

    def act(self, game: Game) -> int:
        if self.proc is None:
            self.start()
        self.request({"cmd": "position", "state": game.to_dict()})
        reply = self.request({"cmd": "go", "movetime_ms": max(1, min(600_000, int(self.move_time * 1000)))})
        action = reply.get("action")
        ident = action.get("id") if isinstance(action, dict) else None
        if isinstance(ident, bool) or not isinstance(ident, int):
            raise BotFailure(f"answered go without an action id: {json.dumps(reply)[:120]}")
        if ident not in game.legal_actions():
            text = action.get("string") if isinstance(action, dict) else None
            raise BotFailure(f"illegal action: chose {ident} ({text!r}), not legal in {game.phase_name}")
        return ident


def check_external(name: str) -> None:
    """Start the program and shake hands: a bad command fails before any game is played."""
    bot = ExternalBot(name, seed=0)
    try:
        bot.start()
    except BotFailure as exc:
        raise BotFailure(f"bot {name!r}: {exc}") from None
    finally:
        bot.close()


__all__ = ["DEFAULT_MOVE_TIME", "PREFIX", "BotFailure", "ExternalBot", "check_external", "command_of", "is_external"]
