"""Paired deals of one bot against the expert in every other seat (issue 27 goals), with decision times.

    python tools/paired_strength.py --config core-2p --bot champion --deals 200 --seed 27000 --workers 16 --out c2.jsonl
    python tools/paired_strength.py --config core-4p --bot champion --deals 200 --seed 27000 --workers 16 --out c4.jsonl

Deal ``d`` is engine seed ``seed + d``, played once per seat of the bot (``n`` games: the bot in seat ``r``, the
expert seeded ``seed + d + 7 * q`` in every other seat ``q``, the bot seeded ``seed + d``). Per game: the bot's
outcome (outright win, shared, loss; score 1/k for a victory shared by k), whether its seat had the game's last
turn (the seat of the last tile placement), and the CPU time (``time.process_time``) of each of its decisions.
The summary gives the score, the outcome rates by seat kind (last-turn seat: conversion = outright wins; the other
seats: loss rate) with Wilson 95% intervals, and the decision time median / p99 / max. ``benchmarking``'s
``match --paired`` (branch ``runner``) plays the same kind of deals for any pair of bots.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import policies  # noqa: E402
from bc_env.rules import Game  # noqa: E402


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def play(args: tuple[str, str, int, int, int]) -> dict:
    config, bot, seed, deal, seat = args
    g = Game.new(config, seed + deal)
    n = g.num_players
    bots = [policies.load("expert", seed=seed + deal + 7 * q) for q in range(n)]
    bots[seat] = policies.load(bot, seed=seed + deal)
    times: list[float] = []
    last = -1
    while not g.is_terminal():
        p = g.current_player
        if g.phase_name == "place_tile":
            last = g.active
        t = time.process_time()
        a = bots[p].act(g)
        if p == seat:
            times.append(time.process_time() - t)
        g.apply(a)
    w = g.winners()
    return {
        "deal": deal,
        "seat": seat,
        "influence": g.on_board,
        "winners": w,
        "score": 1 / len(w) if seat in w else 0.0,
        "outcome": "win" if w == [seat] else "shared" if seat in w else "loss",
        "last_turn": seat == last,
        "ms": [round(1000 * x, 2) for x in times],
    }


def summary(rows: list[dict]) -> dict:
    def rates(sel: list[dict]) -> dict:
        n = len(sel)
        out = {"games": n}
        for k in ("win", "shared", "loss"):
            c = sum(1 for r in sel if r["outcome"] == k)
            lo, hi = wilson(c, n)
            out[k] = f"{c} = {100 * c / max(n, 1):.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)"
        s = sum(r["score"] for r in sel)
        lo, hi = wilson(s, n)
        out["score"] = f"{s:g} = {100 * s / max(n, 1):.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)"
        return out

    ms = sorted(x for r in rows for x in r["ms"])
    return {
        "all": rates(rows),
        "last_turn_seat": rates([r for r in rows if r["last_turn"]]),
        "other_seats": rates([r for r in rows if not r["last_turn"]]),
        "decision_ms": {
            "decisions": len(ms),
            "median": statistics.median(ms) if ms else None,
            "p99": ms[min(len(ms) - 1, int(0.99 * len(ms)))] if ms else None,
            "max": ms[-1] if ms else None,
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="core-2p")
    ap.add_argument("--bot", default="champion")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="the first deal (to split a run)")
    ap.add_argument("--seed", type=int, default=27000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    n = Game.new(a.config, 0).num_players
    jobs = [(a.config, a.bot, a.seed, d, s) for d in range(a.first, a.first + a.deals) for s in range(n)]
    out = open(a.out, "a") if a.out else None  # noqa: SIM115
    rows = []
    with ProcessPoolExecutor(a.workers) as pool:
        for row in pool.map(play, jobs):
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
    print(json.dumps(summary(rows), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
