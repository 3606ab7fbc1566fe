"""A real HTTP service for the embedding tests: ``balance-control serve --http`` on a free port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def alive(pid: int) -> bool:
    """Whether process ``pid`` is still running (a zombie, killed but not yet reaped, is not), after 0.5 s at most
    for a kill signal to land."""
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return False
        except (FileNotFoundError, ProcessLookupError):  # gone before the open, or between the open and the read
            return False
        time.sleep(0.01)
    return True


def sleep_job(seconds: float) -> tuple[int, bytes]:
    """A worker pool job for the pool's tests (importable by the workers): sleeps, then answers 200."""
    time.sleep(seconds)
    return 200, b'{"slept": %r}' % seconds


@contextmanager
def running_server(*options: str) -> Iterator[str]:
    """The base URL of a service (started with ``options`` for serve --http) that runs until the block ends."""
    with running_service(*options) as (url, _):
        yield url


@contextmanager
def running_service(*options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """(base URL, process) of a service started with ``options`` for serve --http, running until the block ends."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--http", "--port", str(port), *options],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(url + "/v1/hello", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server exited") from None
                time.sleep(0.1)
        else:
            raise RuntimeError("the service did not start within 60 s")
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)
