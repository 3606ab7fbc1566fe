#!/usr/bin/env python
"""Differential test of the two builds of the engine: the mypyc-compiled one and the pure-Python one.

Plays the same seeded random games on both (each in its own process: ``BC_PURE_PYTHON=1`` selects the pure
build, bc_env/_build.py) and compares, at every decision, the whole state (``to_dict()``, as canonical bytes) and
the legal actions, and at the end the winners and returns. Each process reports one SHA-256 per game over that
sequence; a game whose digests differ is replayed step by step to name the first decision where they part.

    python tools/differential.py --games 1000                      # every preset (docs/benchmarks.md)
    python tools/differential.py --games 20 --presets core-4p exp01-4p

Exit status 0: identical on every game; 1: a difference (printed); 2: the compiled build is not installed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import pickle
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def canonical(value: object) -> bytes:
    """The bytes of plain data, by value only: pickle without its memo (``fast``), so that two equal values give
    the same bytes whether or not they share objects (4x quicker than JSON; dict order and int/bool/float types
    count, which only makes the comparison stricter). Never unpickled: only hashed."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.fast = True
    pickler.dump(value)
    return buffer.getvalue()


def game_steps(preset: str, seed: int) -> Iterator[bytes]:
    """Canonical bytes of each decision of one seeded random game: state and legal actions, then the result."""
    from bc_env.rules import Game

    rng = random.Random(seed)
    game = Game.new(preset, seed)
    while not game.is_terminal():
        legal = game.legal_actions()
        yield canonical((game.to_dict(), legal))
        game.apply(legal[rng.randrange(len(legal))])
    yield canonical((game.to_dict(), game.winners(), game.returns()))


def game_digest(preset: str, seed: int) -> tuple[str, int]:
    """SHA-256 over every decision of the game, and the number of decisions."""
    h = hashlib.sha256()
    steps = 0
    for step in game_steps(preset, seed):
        h.update(step)
        h.update(b"\n")
        steps += 1
    return h.hexdigest(), steps - 1  # the last step is the result


def worker(presets: list[str], games: int, seed: int) -> None:
    """One build: a JSON line per game (preset, seed, digest, decisions), after a header naming the build."""
    import bc_env.rules

    print(json.dumps({"compiled": bc_env.rules.COMPILED}), flush=True)
    for preset in presets:
        for s in range(seed, seed + games):
            digest, n = game_digest(preset, s)
            print(json.dumps({"preset": preset, "seed": s, "digest": digest, "decisions": n}), flush=True)


def spawn(pure: bool, args: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("BC_PURE_PYTHON", None)
    if pure:
        env["BC_PURE_PYTHON"] = "1"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", *args]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)


def step_lists(pure: bool, preset: str, seed: int) -> list[str]:
    """The per-decision hashes of one game in one build (to find the first difference)."""
    code = (
        "import hashlib, json, sys; sys.path.insert(0, 'tools'); from differential import game_steps; "
        f"print(json.dumps([hashlib.sha256(s).hexdigest() for s in game_steps({preset!r}, {seed})]))"
    )
    env = dict(os.environ)
    env.pop("BC_PURE_PYTHON", None)
    if pure:
        env["BC_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout)


def compare(presets: list[str], games: int, seed: int) -> tuple[dict[str, int], list[str]]:
    """Run both builds side by side; games and decisions compared per preset, and the differences found."""
    args = ["--games", str(games), "--seed", str(seed), "--presets", *presets]
    procs = {"compiled": spawn(False, args), "pure": spawn(True, args)}
    streams = {name: iter(p.stdout) for name, p in procs.items() if p.stdout is not None}
    headers = {name: json.loads(next(s)) for name, s in streams.items()}
    if headers["compiled"] != {"compiled": True} or headers["pure"] != {"compiled": False}:
        for p in procs.values():
            p.kill()
        raise SystemExit(f"differential: need the compiled and the pure build, got {headers}")
    decisions: dict[str, int] = {}
    problems: list[str] = []
    total = len(presets) * games
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="game", desc="differential")
    except ImportError:
        bar = None
    for _ in range(total):
        a, b = (json.loads(next(streams[name])) for name in ("compiled", "pure"))
        if a != b:
            first = _first_difference(a["preset"], a["seed"])
            problems.append(f"{a['preset']} seed {a['seed']}: {a} vs {b}; first differing decision: {first}")
        decisions[a["preset"]] = decisions.get(a["preset"], 0) + a["decisions"]
        if bar is not None:
            bar.update()
        if a["seed"] == seed + games - 1:  # a preset done: say so now (a long run leaves partial results)
            state = "differences" if any(line.startswith(f"{a['preset']} ") for line in problems) else "identical"
            print(f"{a['preset']}: {games} games, {decisions[a['preset']]:,} decisions: {state}", flush=True)
    if bar is not None:
        bar.close()
    for p in procs.values():
        if p.wait() != 0:
            problems.append(f"a worker exited with status {p.returncode}")
    return decisions, problems


def _first_difference(preset: str, seed: int) -> int:
    a, b = step_lists(False, preset, seed), step_lists(True, preset, seed)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="seeded random games per preset")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--presets", nargs="+", default=None, help="default: every preset")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.presets is None:
        from bc_env.rules import preset_names

        args.presets = preset_names()
    if args.worker:
        worker(args.presets, args.games, args.seed)
        return 0
    import bc_env.rules

    if not bc_env.rules.COMPILED:
        print("differential: the compiled engine is not installed (bash scripts/setup.sh with a C compiler)")
        return 2
    start = time.perf_counter()
    decisions, problems = compare(args.presets, args.games, args.seed)
    print(f"{sum(decisions.values()):,} decisions compared")
    print(f"{len(args.presets) * args.games} games in {time.perf_counter() - start:.0f} s wall: ", end="")
    if problems:
        print(f"{len(problems)} DIFFERENCES")
        for line in problems:
            print("  " + line)
        return 1
    print("identical states and legal actions at every decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
