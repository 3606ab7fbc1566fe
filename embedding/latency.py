"""Round-trip latency per move of the bot protocol, over stdio and over HTTP (a benchmark, not a test).

    python -m embedding.latency --games 2 --seed 0

For every bot it plays ``--games`` seeded games in which the bot takes every decision, one ``go`` with
``apply: true`` per move, and times each request from writing it to having parsed the reply, as a client sees it:

* stdio: a ``balance-control serve --stdio`` child process, one JSON line each way;
* HTTP: a ``balance-control serve --http`` child process on localhost, one keep-alive connection, the state
  sent with every request and the new state read back (stateless), so the state's size is part of the cost.

It prints one Markdown table (p50, p99, mean and the bot's own decision time ``elapsed_ms`` as the server
measured it), for docs/embedding.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

#: (bot, preset) pairs measured by default: the shipped bots.
DEFAULT = (("ppo-core-2p", "core-2p"), ("ppo-core-4p", "core-4p"), ("heuristic", "core-2p"), ("heuristic", "core-4p"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def stdio_moves(bot: str, preset: str, seeds: list[int]) -> tuple[list[float], list[float]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        proc.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        reply: dict[str, Any] = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        if not reply["ok"]:
            raise RuntimeError(reply["error"])
        return reply

    times, inner = [], []
    ask({"cmd": "hello", "protocol": 1})
    ask({"cmd": "bot", "name": bot, "seed": 0})
    for seed in seeds:
        game = ask({"cmd": "new", "config": preset, "seed": seed})["game"]
        while not game["terminal"]:
            t = time.perf_counter()
            reply = ask({"cmd": "go", "apply": True})
            times.append((time.perf_counter() - t) * 1000)
            inner.append(reply["elapsed_ms"])
            game = reply["game"]
    ask({"cmd": "quit"})
    proc.wait(timeout=30)
    return times, inner


def http_moves(bot: str, preset: str, seeds: list[int], port: int) -> tuple[list[float], list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def post(cmd: str, body: dict[str, Any]) -> dict[str, Any]:
        conn.request("POST", f"/v1/{cmd}", body=json.dumps(body), headers={"content-type": "application/json"})
        reply: dict[str, Any] = json.loads(conn.getresponse().read())
        if not reply["ok"]:
            raise RuntimeError(reply["error"])
        return reply

    times, inner = [], []
    for seed in seeds:
        reply = post("new", {"config": preset, "seed": seed})
        state, game = reply["state"], reply["game"]
        while not game["terminal"]:
            t = time.perf_counter()
            reply = post("go", {"state": state, "bot": bot, "bot_seed": 0, "apply": True})
            times.append((time.perf_counter() - t) * 1000)
            inner.append(reply["elapsed_ms"])
            state, game = reply["state"], reply["game"]
    conn.close()
    return times, inner


def start_http() -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen([sys.executable, "-m", "balance_control", "serve", "--http", "--port", str(port)])
    for _ in range(600):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/hello")
            if conn.getresponse().status == 200:
                return proc, port
        except OSError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the HTTP service did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per bot and transport (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    args = parser.parse_args(argv)
    seeds = list(range(args.seed, args.seed + args.games))
    server, port = start_http()
    rows = []
    try:
        for bot, preset in DEFAULT:
            for transport in ("stdio", "http"):
                if transport == "stdio":
                    times, inner = stdio_moves(bot, preset, seeds)
                else:
                    times, inner = http_moves(bot, preset, seeds, port)
                rows.append(
                    f"| {bot} | {preset} | {transport} | {len(times)} | {percentile(times, 50):.1f} | "
                    f"{percentile(times, 99):.1f} | {statistics.fmean(times):.1f} | {statistics.median(inner):.1f} |"
                )
                print(rows[-1], file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print("| bot | rules | transport | moves | p50 ms | p99 ms | mean ms | bot's own decision, median ms |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
