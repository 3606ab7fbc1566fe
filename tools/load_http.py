"""Bounded load and flood checks of the HTTP service on 127.0.0.1 (a measurement, not a test: docs/embedding.md,
"Limits and guarantees", records its results).

    python tools/load_http.py load --clients 48 --seconds 30          # keep-alive clients playing full games
    python tools/load_http.py flood --searches 40                      # a flood of go(mcts) and a bystander
    python tools/load_http.py refused                                  # refused and abandoned work stops

Each starts its own ``balance-control serve --http`` on a free port of 127.0.0.1 (with the options of ``--server``),
unless ``--url`` names a running one (then the server's memory and CPU are not measured).

* ``load``: ``--clients`` keep-alive connections (spread over ``--procs`` client processes) each play seeded
  ``core-2p`` games for ``--seconds``: ``legal`` before every decision, then ``go`` with ``apply: true`` for the
  bot of the seat (``--bots``, default ``ppo-core-2p,random``: seat 0 and seat 1), a new game when one ends.
  Prints requests/s, p50/p99 latency, errors by kind, and the service's memory (its process and its workers) at
  the start and the end.
* ``flood``: ``--searches`` concurrent ``go(mcts)`` (no movetime) from as many connections; a second later a
  bystander sends ``go(random)`` and ``/v1/new``. Prints the flood's statuses and the bystander's latencies.
* ``refused``: (1) 30 concurrent ``go(mcts, movetime_ms=1)``, then one ``go(mcts, movetime_ms=2000)``; (2) an
  ``all-6p`` position where the expert bot needs about a second, asked with ``movetime_ms=50``; (3) a ``go(mcts)``
  whose client disconnects after 0.2 s. For each: the replies, and how long the workers kept using CPU after the
  refusal (from /proc; a worker is a process under the service).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context
from typing import Any
from urllib.parse import urlparse

import orjson  # the clients' JSON: with the standard library's, the 48 clients took a third of the machine's CPU

TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- the service and its processes
def start_server(extra: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    cmd = [sys.executable, "-m", "balance_control", "serve", "--http", "--port", str(port), *extra]
    proc = subprocess.Popen(cmd)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/hello")
            if conn.getresponse().status == 200:
                time.sleep(1.0)  # the workers start beside the first answers
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the service did not start")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it (from /proc)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    parents[int(name)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(c for c, parent in parents.items() if parent == p)
    return out


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def rss_mib(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def busy_until_idle(pids: list[int], limit_s: float = 5.0) -> float:
    """Seconds from now until the processes stop using CPU (no CPU tick in 50 ms), at most ``limit_s``."""
    start = time.perf_counter()
    last = cpu_seconds(pids)
    while time.perf_counter() - start < limit_s:
        time.sleep(0.05)
        now = cpu_seconds(pids)
        if now == last:
            return max(0.0, time.perf_counter() - start - 0.05)
        last = now
    return limit_s


# ---------------------------------------------------------------- clients
class Client:
    """One keep-alive HTTP/1.1 connection, written and read by hand on a socket: ``http.client`` parses each
    response's headers with the ``email`` package, and the 48 clients then took a third of the machine's CPU
    (a load generator should measure the service, not itself). It reads what this service sends: a status line,
    headers with ``content-length``, the body."""

    def __init__(self, url: str, timeout: float = 60.0) -> None:
        u = urlparse(url)
        self.host, self.port, self.timeout = u.hostname or "127.0.0.1", u.port or 80, timeout
        self.sock: socket.socket | None = None
        self.buf = b""

    def post(self, cmd: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        t = time.perf_counter()
        data = orjson.dumps(body)
        head = f"POST /v1/{cmd} HTTP/1.1\r\nhost: {self.host}\r\ncontent-type: application/json\r\n"
        try:
            if self.sock is None:
                self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
                self.buf = b""
            self.sock.sendall(b"%scontent-length: %d\r\n\r\n%s" % (head.encode(), len(data), data))
            status, headers, reply = self._response()
            if headers.get(b"connection", b"").lower() == b"close":
                self.reconnect()
        except (OSError, ValueError) as exc:
            self.reconnect()
            return -1, {"error": {"code": type(exc).__name__}}, (time.perf_counter() - t) * 1000
        return status, orjson.loads(reply), (time.perf_counter() - t) * 1000

    def _response(self) -> tuple[int, dict[bytes, bytes], bytes]:
        assert self.sock is not None
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        size = int(headers[b"content-length"])
        while len(self.buf) < size:
            self._more()
        body, self.buf = self.buf[:size], self.buf[size:]
        return status, headers, body

    def _more(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionResetError("the service closed the connection")
        self.buf += chunk

    def reconnect(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock = None


def play(url: str, seconds: float, bots: list[str], seed: int, out: Any) -> None:
    """One keep-alive client playing core-2p games until the time is up; appends (latency_ms, status, code)."""
    client, rng = Client(url), random.Random(seed)
    end = time.perf_counter() + seconds
    state: dict[str, Any] | None = None
    while time.perf_counter() < end:
        if state is None:
            status, reply, ms = client.post("new", {"config": "core-2p", "seed": rng.randrange(1 << 30)})
            out.append((ms, status, None if status == 200 else reply.get("error", {}).get("code")))
            state = reply.get("state") if status == 200 else None
            continue
        status, reply, ms = client.post("legal", {"state": state})
        out.append((ms, status, None if status == 200 else reply.get("error", {}).get("code")))
        if status != 200:
            state = None
            continue
        bot = bots[reply["player"] % len(bots)]
        status, reply, ms = client.post("go", {"state": state, "bot": bot, "bot_seed": 1, "apply": True})
        out.append((ms, status, None if status == 200 else reply.get("error", {}).get("code")))
        state = reply["state"] if status == 200 and not reply["game"]["terminal"] else None


def _client_process(url: str, seconds: float, bots: list[str], seeds: list[int], queue: Any) -> None:
    results: list[tuple[float, int, str | None]] = []
    threads = [threading.Thread(target=play, args=(url, seconds, bots, s, results)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(results)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def run_load(url: str, server_pids: Any, args: argparse.Namespace) -> None:
    ctx = get_context("spawn")
    queue = ctx.Queue()
    seeds = list(range(args.clients))
    groups = [seeds[i :: args.procs] for i in range(args.procs)]
    bots = args.bots.split(",")
    rss0 = rss_mib(server_pids()) if server_pids else float("nan")
    cpu0, t0 = (cpu_seconds(server_pids()) if server_pids else float("nan")), os.times()
    procs = [ctx.Process(target=_client_process, args=(url, args.seconds, bots, g, queue)) for g in groups if g]
    start = time.perf_counter()
    for p in procs:
        p.start()
    samples: list[tuple[float, float]] = []  # (seconds since the start, MiB)
    results: list[tuple[float, int, str | None]] = []
    pending = len(procs)
    while pending:
        try:
            results.extend(queue.get(timeout=5))
            pending -= 1
        except Exception:  # queue.Empty: sample the memory meanwhile
            if server_pids:
                samples.append((time.perf_counter() - start, round(rss_mib(server_pids()), 1)))
    wall = time.perf_counter() - start
    for p in procs:
        p.join()
    rss1 = rss_mib(server_pids()) if server_pids else float("nan")
    service_cpu = (cpu_seconds(server_pids()) if server_pids else float("nan")) - cpu0
    t1 = os.times()
    client_cpu = t1.children_user + t1.children_system - t0.children_user - t0.children_system
    lat = [r[0] for r in results]
    errors: dict[str, int] = {}
    for _, status, code in results:
        if status != 200:
            errors[f"{status} {code}"] = errors.get(f"{status} {code}", 0) + 1
    print(f"load: {args.clients} keep-alive clients in {args.procs} processes, bots {args.bots}, {args.seconds:g} s")
    print(f"  requests {len(results)}, {len(results) / wall:.0f}/s over {wall:.1f} s (clients' start included)")
    print(f"  latency ms: p50 {percentile(lat, 50):.1f}, p99 {percentile(lat, 99):.1f}, max {max(lat):.1f}")
    print(f"  errors: {errors or 0}")
    print(
        f"  CPU-s: service {service_cpu:.1f} ({1000 * service_cpu / len(results):.2f} ms a request), "
        f"clients {client_cpu:.1f}, over {wall:.1f} s wall on {os.cpu_count()} cores"
    )
    warm = [mib for t, mib in samples if t >= args.warmup]
    print(f"  service memory (process + workers) MiB: start {rss0:.1f}, end {rss1:.1f}; every 5 s: "
          f"{[mib for _, mib in samples]}")  # fmt: skip
    if warm:
        print(f"  growth after the first {args.warmup:g} s (warm-up: caches, threads, bots loaded): "
              f"{rss1 - warm[0]:+.1f} MiB over {wall - args.warmup:.0f} s")  # fmt: skip


def run_flood(url: str, args: argparse.Namespace) -> None:
    from bc_env.rules import Game

    game = Game.new("core-4p", 3)
    for _ in range(30):
        game.apply(game.legal_actions()[0])
    state = game.to_dict()
    statuses: dict[str, int] = {}
    flood_ms: list[float] = []

    def search(_: int) -> None:
        status, reply, ms = Client(url).post("go", {"state": state, "bot": "mcts", "bot_seed": 1})
        key = f"{status} {reply.get('error', {}).get('code', 'ok')}"
        statuses[key] = statuses.get(key, 0) + 1
        flood_ms.append(ms)

    bystander: dict[str, float] = {}

    def watch() -> None:
        time.sleep(1.0)
        c = Client(url)
        for label, cmd, body in (
            ("go(random)", "go", {"state": state, "bot": "random", "bot_seed": 1}),
            ("new", "new", {"config": "core-4p", "seed": 1}),
            ("go(ppo-core-4p)", "go", {"state": state, "bot": "ppo-core-4p"}),
        ):
            status, _, ms = c.post(cmd, body)
            bystander[f"{label} {status}"] = round(ms, 1)

    with ThreadPoolExecutor(args.searches + 1) as pool:
        side = pool.submit(watch)
        list(pool.map(search, range(args.searches)))
        side.result()
    print(f"flood: {args.searches} concurrent go(mcts) on core-4p: {statuses}")
    low, mid, high = min(flood_ms), statistics.median(flood_ms), max(flood_ms)
    print(f"  flood reply ms: min {low:.0f}, median {mid:.0f}, max {high:.0f}")
    print(f"  bystander one second in (ms): {bystander}")


def run_refused(url: str, server_pids: Any) -> None:
    from bc_env.rules import Game

    game = Game.new("core-4p", 3)
    for _ in range(30):
        game.apply(game.legal_actions()[0])
    state = game.to_dict()
    statuses: dict[str, int] = {}

    def tiny(_i: int) -> None:
        status, reply, _ms = Client(url).post("go", {"state": state, "bot": "mcts", "movetime_ms": 1})
        key = f"{status} {reply.get('error', {}).get('code', 'ok')}"
        statuses[key] = statuses.get(key, 0) + 1

    t = time.perf_counter()
    with ThreadPoolExecutor(30) as pool:
        list(pool.map(tiny, range(30)))
    took = time.perf_counter() - t
    idle = busy_until_idle(server_pids()) if server_pids else float("nan")
    status, reply, ms = Client(url).post("go", {"state": state, "bot": "mcts", "movetime_ms": 2000})
    print(f"refused (1): 30 concurrent go(mcts, movetime_ms=1) in {took:.2f} s: {statuses}")
    print(f"  the service's processes used CPU for {idle:.2f} s after the last reply")
    print(f"  then go(mcts, movetime_ms=2000): {status} in {ms:.0f} ms, nodes {reply.get('nodes')}")

    big, rng = Game.new("all-6p", 1), random.Random(1)
    widest: tuple[int, dict[str, Any]] = (0, {})
    for _ in range(150):  # the position with the most legal actions among the first 150 decisions
        legal = big.legal_actions()
        if len(legal) > widest[0]:
            widest = (len(legal), big.to_dict())
        big.apply(legal[rng.randrange(len(legal))])
    big = Game.from_dict(widest[1])
    big_state = widest[1]
    for movetime in (50, 200):
        status, reply, ms = Client(url).post("go", {"state": big_state, "bot": "expert", "movetime_ms": movetime})
        idle = busy_until_idle(server_pids()) if server_pids else float("nan")
        code = reply.get("error", {}).get("code", f"ok, elapsed {reply.get('elapsed_ms')} ms")
        print(f"refused (2): go(expert, movetime_ms={movetime}) on all-6p ({len(big.legal_actions())} legal): {status} "
              f"{code} after {ms:.0f} ms; CPU used for {idle:.2f} s after")  # fmt: skip

    u = urlparse(url)
    sock = socket.create_connection((u.hostname, u.port))
    body = json.dumps({"state": state, "bot": "mcts", "bot_seed": 1}).encode()
    head = f"POST /v1/go HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)
    time.sleep(0.2)
    sock.close()
    idle = busy_until_idle(server_pids()) if server_pids else float("nan")
    print(f"refused (3): go(mcts) abandoned after 0.2 s: CPU used for {idle:.2f} s after the disconnect")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("load", "flood", "refused"))
    parser.add_argument("--url", help="a running service (default: start one)")
    parser.add_argument("--clients", type=int, default=48)
    parser.add_argument("--procs", type=int, default=4, help="client processes (default 4)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before the memory baseline (default 10)")
    parser.add_argument("--bots", default="ppo-core-2p,random", help="the bots of seat 0 and seat 1")
    parser.add_argument("--searches", type=int, default=40)
    parser.add_argument("--server", default="", help="options for the serve --http it starts ('--queue 48')")
    args = parser.parse_args(argv)
    proc = None
    if args.url:
        url, server_pids = args.url, None
    else:
        proc, url = start_server(shlex.split(args.server))
        server_pids = lambda: descendants(proc.pid)  # noqa: E731
    try:
        if args.mode == "load":
            run_load(url, server_pids, args)
        elif args.mode == "flood":
            run_flood(url, args)
        else:
            run_refused(url, server_pids)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
