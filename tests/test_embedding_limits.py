"""The HTTP service as a shared server (issue 30): bodies it executes, headers, strings and numbers it refuses, the
worker pool that runs and stops the costly decisions, and slow or idle clients on a real uvicorn server."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("jsonschema")

from embedding_server import alive, running_server, sleep_job  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from balance_control.cli import main  # noqa: E402
from bc_env.rules import Game  # noqa: E402
from embedding import http  # noqa: E402
from embedding.http import create_app  # noqa: E402
from embedding.pool import Abandoned, Busy, Expired, WorkerPool  # noqa: E402

JSON = {"content-type": "application/json"}


def _midgame(preset: str = "core-4p", steps: int = 30) -> dict:
    game = Game.new(preset, 3)
    for _ in range(steps):
        game.apply(game.legal_actions()[0])
    return game.to_dict()


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(timeout_s=20.0, workers=1, queue=2)) as c:
        yield c


def test_only_json_bodies_are_executed(client):
    """A page elsewhere can POST text/plain or a form without asking (no CORS preflight): such a body is refused
    (415) and never executed."""
    body = json.dumps({"config": "core-2p", "seed": 1})
    refused = ["text/plain", "application/x-www-form-urlencoded", None, "application/json; charset=latin-1",
               "application/jsonx", "multipart/form-data; boundary=x"]  # fmt: skip
    for ctype in refused:
        headers = {} if ctype is None else {"content-type": ctype}
        r = client.post("/v1/new", content=body, headers=headers)
        assert r.status_code == 415 and r.json()["error"]["code"] == "unsupported_media_type", headers
        assert "state" not in r.json()
    r = client.post("/v1/new", content=body, headers={"content-type": "Application/JSON; charset=UTF-8"})
    assert r.status_code == 200 and r.json()["state"]["schema"] == "balance-control-state"


def test_security_headers_on_the_page_and_the_api(client):
    for path in ("/", "/v1/hello", "/static/app.js"):
        r = client.get(path)
        assert r.status_code == 200
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
        assert "'unsafe-inline'" not in csp and "style-src 'self'" in csp


def test_cors_is_off_by_default_and_an_option(client):
    preflight = {"origin": "https://elsewhere.example", "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type"}  # fmt: skip
    r = client.options("/v1/new", headers=preflight)
    assert "access-control-allow-origin" not in r.headers and r.status_code >= 400
    with TestClient(create_app(workers=0, cors_origins=("https://ok.example",))) as c:
        r = c.options("/v1/new", headers={**preflight, "origin": "https://ok.example"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://ok.example"
        r = c.options("/v1/new", headers=preflight)
        assert r.headers.get("access-control-allow-origin") != "https://elsewhere.example"
        r = c.post("/v1/new", json={"config": "core-2p"}, headers={"origin": "https://ok.example"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://ok.example"


def test_bad_strings_and_numbers_get_400_naming_the_field(client):
    """Issue 30: a lone surrogate in ``id`` or a config ``name`` gave a 500 with a traceback; 1e400 in a state gave
    500 on /v1/position and 200 on /v1/legal."""
    cases = [
        ("new", '{"config": "core-2p", "id": "\\ud800"}', "body.id: the string '\\ud800' holds a lone surrogate"),
        ("new", '{"config": {"players": 2, "name": "\\ud800"}}', "body.config.name"),
        ("new", '{"config": "core-2p", "seed": NaN}', "body.seed: NaN is not a JSON number"),
    ]
    state = _midgame("core-2p", 4)
    state["events"][0]["v"] = "__MARK__"
    bad_state = json.dumps(state).replace('"__MARK__"', "1e400")
    cases += [
        (cmd, f'{{"state": {bad_state}}}', "body.state.events[0].v: 1e400 is out of the range")
        for cmd in ("position", "legal")
    ]
    for cmd, body, message in cases:
        r = client.post(f"/v1/{cmd}", content=body, headers=JSON)
        assert r.status_code == 400, (cmd, r.text)
        assert r.json()["error"]["code"] == "bad_json" and message in r.json()["error"]["message"], r.text


def test_too_many_or_too_large_headers_get_431_and_close(client):
    many = {f"x-h{i}": "1" for i in range(150)}
    r = client.get("/v1/hello", headers=many)
    assert r.status_code == 431 and r.headers["connection"] == "close"
    assert r.json()["error"]["code"] == "too_many_headers"
    r = client.get("/v1/hello", headers={"x-big": "a" * 20_000})
    assert r.status_code == 431
    assert client.get("/v1/hello", headers={f"x-h{i}": "1" for i in range(20)}).status_code == 200


def test_a_defect_is_a_json_500_that_closes_the_connection(monkeypatch):
    """Starlette's own 500 page went out without ``Connection: close`` and uvicorn then closed the keep-alive
    connection under the client's next request."""

    def broken(cmd, body):
        raise RuntimeError("a defect")

    monkeypatch.setattr(http, "handle", broken)
    with TestClient(create_app(workers=0), raise_server_exceptions=False) as c:
        r = c.post("/v1/new", json={"config": "core-2p"})
    assert r.status_code == 500 and r.headers["connection"] == "close"
    assert r.json()["error"]["code"] == "internal" and r.headers["x-content-type-options"] == "nosniff"


def test_search_budgets_over_http(client):
    state = _midgame()
    r = client.post("/v1/go", json={"state": state, "bot": "mcts", "nodes": 1, "bot_seed": 1})
    assert r.status_code == 200 and r.json()["nodes"] == 1  # it ran 200 simulations and said 1 before
    r = client.post("/v1/go", json={"state": state, "bot": "expert", "nodes": 1})
    assert r.status_code == 422 and r.json()["error"]["code"] == "node_budget_exceeded"


def test_refused_searches_leave_nothing_running(client):
    """Issue 30: 30 ``go(mcts, movetime_ms=1)`` kept searching after their refusal, and every ``go`` with a movetime
    failed for 10-24 s. Now each is refused or answered within its budget, and the next search is served."""
    state = _midgame()
    with ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(
            lambda _: client.post("/v1/go", json={"state": state, "bot": "mcts", "movetime_ms": 1}), range(6)
        ))  # fmt: skip
    for r in replies:
        assert r.status_code in (200, 422, 503), r.text
        if r.status_code == 503:
            assert r.json()["error"]["code"] == "busy" and r.headers["retry-after"] == "1"
        if r.status_code == 422:
            assert r.json()["error"]["code"] == "time_budget_exceeded"
    r = client.post("/v1/go", json={"state": state, "bot": "mcts", "movetime_ms": 15000, "nodes": 5})
    assert r.status_code == 200 and r.json()["nodes"] == 5


# --- the worker pool ------------------------------------------------------------------------------------------


def test_the_pool_queues_refuses_and_stops_work():
    async def scenario() -> None:
        pool = WorkerPool(sleep_job, workers=1, queue=1)
        await pool.start()
        loop = asyncio.get_running_loop()
        never = loop.create_future()
        try:
            first = (pid,) = pool.pids()
            assert await pool.run((0.0,), loop.time() + 30, never) == (200, b'{"slept": 0.0}')
            # One runs, one waits, the third is refused at once.
            a = asyncio.ensure_future(pool.run((2.0,), loop.time() + 30, never))
            await asyncio.sleep(0.05)
            b = asyncio.ensure_future(pool.run((0.0,), loop.time() + 30, never))
            await asyncio.sleep(0.05)
            with pytest.raises(Busy):
                await pool.run((0.0,), loop.time() + 30, never)
            assert (await a)[0] == 200 and (await b)[0] == 200 and pool.killed == 0
            # Past its deadline a running job is stopped: its worker is killed and replaced.
            t = time.perf_counter()
            with pytest.raises(Expired):
                await pool.run((30.0,), loop.time() + 0.3, never)
            assert time.perf_counter() - t < 5 and pool.killed == 1 and not alive(pid)
            # A client that goes away: its running job is stopped, a waiting one leaves the queue unrun.
            gone = loop.create_future()
            loop.call_later(0.3, gone.set_result, None)
            running = asyncio.ensure_future(pool.run((30.0,), loop.time() + 30, never))
            await asyncio.sleep(0.1)
            with pytest.raises(Abandoned):
                await pool.run((0.0,), loop.time() + 30, gone)
            assert pool.waiting == 0
            running.cancel()
            with pytest.raises(asyncio.CancelledError):
                await running
            assert pool.killed == 2
            for _ in range(100):  # the replacement comes up in the background
                if len(pool.pids()) == 1:
                    break
                await asyncio.sleep(0.1)
            assert pool.pids() != list(first)
            assert await pool.run((0.0,), loop.time() + 30, never) == (200, b'{"slept": 0.0}')
        finally:
            await pool.close()

    asyncio.run(scenario())


# --- a real server: slow and idle clients -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with running_server("--read-timeout", "1", "--keep-alive", "1", "--workers", "1") as url:
        u = urlparse(url)
        yield u.hostname, u.port


def _closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing ``sock`` within ``seconds``; None if it is still open."""
    sock.settimeout(seconds)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk
    except TimeoutError:
        return None
    finally:
        sock.close()


def test_slow_and_idle_clients_are_timed_out(server):
    """Issue 30: partial headers, a stalled body and an idle connection all stayed open after 20 s."""
    idle = socket.create_connection(server)
    partial = socket.create_connection(server)
    partial.sendall(b"POST /v1/new HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n")
    stalled = socket.create_connection(server)
    stalled.sendall(
        b"POST /v1/new HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"
    )
    kept = socket.create_connection(server)
    kept.sendall(b"GET /v1/hello HTTP/1.1\r\nhost: x\r\n\r\n")
    with ThreadPoolExecutor(4) as pool:
        idle_out, partial_out, stalled_out, kept_out = pool.map(
            _closed_within, (idle, partial, stalled, kept), (8, 8, 8, 8)
        )
    assert idle_out == b""
    assert partial_out is not None and partial_out.startswith(b"HTTP/1.1 408")
    assert stalled_out is not None and stalled_out.startswith(b"HTTP/1.1 408") and b"connection: close" in stalled_out
    assert b'"request_timeout"' in stalled_out
    assert kept_out is not None and kept_out.startswith(b"HTTP/1.1 200")  # answered, then closed when idle


def test_a_refused_oversized_body_closes_the_connection(server):
    sock = socket.create_connection(server)
    sock.sendall(
        b"POST /v1/new HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 99999999\r\n\r\n"
    )
    out = _closed_within(sock, 8)
    assert out is not None and out.startswith(b"HTTP/1.1 413") and b"connection: close" in out


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e9"])
def test_serve_refuses_a_timeout_that_is_not_a_time(value, capsys):
    """``serve --http --timeout inf`` was accepted and /v1/go then failed with OverflowError."""
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--http", "--timeout", value])
    assert "--timeout must be a number of seconds" in str(exc.value.code)
    with pytest.raises(ValueError, match="timeout_s"):
        create_app(timeout_s=float(value))


def test_the_load_tools_client_plays_games_over_one_connection_and_reconnects_after_a_close(server):
    """tools/load_http.py's hand-written HTTP client (its figures are in docs/embedding.md): full games over one
    keep-alive connection, every request answered 200; a connection the service closed is an error, then it
    reconnects."""
    import importlib.util

    tool = Path(__file__).resolve().parents[1] / "tools" / "load_http.py"
    spec = importlib.util.spec_from_file_location("load_http", tool)
    load_http = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load_http)
    url = f"http://{server[0]}:{server[1]}"
    results: list[tuple[float, int, str | None]] = []
    load_http.play(url, 1.5, ["random", "random"], 7, results)
    assert len(results) > 20 and {status for _, status, _ in results} == {200}
    client = load_http.Client(url)
    status, reply, _ = client.post("nope", {})
    assert status == 404 and reply["error"]["code"] == "unknown_command" and client.sock is not None  # kept
    time.sleep(1.5)  # past the fixture's keep-alive limit: the service closes the idle connection
    status, reply, _ = client.post("new", {"config": "core-2p", "seed": 1})
    assert status == -1 and client.sock is None  # counted as an error, and the next request reconnects
    status, reply, _ = client.post("new", {"config": "core-2p", "seed": 1})
    assert status == 200 and reply["game"]["player"] == 0
