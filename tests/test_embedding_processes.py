"""``serve --http --processes N``: N service processes share the port under uvicorn's supervisor (embedding/server.py):
every connection is answered, a process that dies is replaced, and SIGTERM stops them all."""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
pytest.importorskip("uvicorn")
from embedding_server import alive, running_service  # noqa: E402

from embedding import server  # noqa: E402


def _service_processes(pid: int) -> list[int]:
    """The processes serving under the supervisor ``pid``: its children that multiprocessing spawned (not its
    resource tracker)."""
    found = []
    for child in (Path("/proc") / str(pid) / "task" / str(pid) / "children").read_text().split():
        try:
            cmdline = (Path("/proc") / child / "cmdline").read_bytes().replace(b"\0", b" ")
        except (FileNotFoundError, ProcessLookupError):  # it ended meanwhile
            continue
        if b"spawn_main" in cmdline:
            found.append(int(child))
    return sorted(found)


def _new_game(url: str) -> int:
    body = json.dumps({"config": "core-2p", "seed": 3}).encode()
    req = urllib.request.Request(url + "/v1/new", data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=20) as r:
        return int(json.loads(r.read())["game"]["legal_count"]) if r.status == 200 else -1


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc (Linux)")
def test_two_processes_answer_every_connection_replace_a_dead_one_and_stop_together() -> None:
    with running_service("--processes", "2", "--workers", "0") as (url, proc):
        serving = _service_processes(proc.pid)
        assert len(serving) == 2, serving
        with ThreadPoolExecutor(8) as pool:  # 32 connections, spread over both processes by the kernel
            assert set(pool.map(lambda _: _new_game(url), range(32))) == {4}
        os.kill(serving[0], signal.SIGKILL)  # a process dies: the supervisor starts another within a second or two
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = _service_processes(proc.pid)
            if len(now) == 2 and serving[0] not in now:
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the dead process was not replaced: {serving} -> {_service_processes(proc.pid)}")
        assert serving[1] in now
        assert all(_new_game(url) == 4 for _ in range(8))
    assert proc.returncode == 0  # SIGTERM (the block's end) stops the supervisor cleanly ...
    deadline = time.monotonic() + 9  # within 10 s in all: alive() itself waits up to 0.5 s for each of the two
    while any(alive(p) for p in now) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in now), "... and every process it started"


def test_the_configuration_travels_to_each_process_and_builds_the_app_there() -> None:
    cfg = server.config(port=0, processes=3, workers=1, queue=2, timeout_s=4.0, read_timeout_s=2.0)
    assert cfg.workers == 3
    copy = pickle.loads(pickle.dumps(cfg))  # the supervisor hands each process this copy
    copy.load()
    assert copy.http_protocol_class.read_timeout_s == 2.0
    assert copy.limit_concurrency == 256 and copy.timeout_keep_alive == 5.0
    # asyncio's loop even where uvloop is installed (uvicorn's "auto" takes it): uvloop made the worker pool's
    # pipes non-blocking, and every go of a search bot failed with BlockingIOError.
    assert copy.loop == "asyncio" and copy.get_loop_factory() is not None
    loop = copy.get_loop_factory()()
    assert type(loop).__module__.startswith("asyncio")
    loop.close()


def test_bad_options_are_refused_before_any_process_starts() -> None:
    with pytest.raises(ValueError, match="timeout_s must be a number of seconds"):
        server.config(timeout_s=float("inf"), processes=2)


@pytest.mark.parametrize("value", ["0", "-1", "10001"])
def test_serve_refuses_a_number_of_processes_out_of_range(value: str) -> None:
    from balance_control.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["serve", "--http", "--processes", value])
    assert f"--processes must be 1..10000, not {value}" in str(exc.value.code)
