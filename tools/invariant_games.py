#!/usr/bin/env python
"""Many random games of one configuration under the checks every configuration has (issue #15's 10,000 all-6p games).

After every decision: each expansion state's own check (``ExpansionState.check``: Regulations, Countdown, Measure
zones, Investment Program), Resources conserved per resort (CORE-01-00-01), Influence within the cap and on the
Board as counted (RULINGS R12), a non-empty sorted legal-action list. Every ``--every`` decisions and at the end:
the JSON state round-trips and a clone equals the original; an illegal action is refused and changes nothing.

    python tools/invariant_games.py --preset all-6p --games 10000 --workers 2     # docs/benchmarks.md

Exit status 0: no violation; 1: a violation (printed with preset, seed and decision).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_states import generic_check, state_check  # noqa: E402

from bc_env.rules import Game, IllegalActionError  # noqa: E402


def play(preset: str, seed: int, every: int) -> tuple[int, str | None]:
    """One game; returns (decisions, violation or None)."""
    rng = random.Random(seed)
    game = Game.new(preset, seed)
    steps = 0
    try:
        while not game.is_terminal():
            legal = game.legal_actions()
            if not legal or legal != sorted(set(legal)):
                raise AssertionError(f"legal actions {legal}")
            if steps % every == 0:
                generic_check(game)
                clone = game.clone()
                if clone.to_dict() != game.to_dict():
                    raise AssertionError("a clone differs from its original")
                illegal = next(a for a in range(game.num_actions) if a not in legal)
                before = game.to_dict()
                try:
                    game.apply(illegal)
                    raise AssertionError(f"illegal action {illegal} accepted")
                except IllegalActionError:
                    pass
                if game.to_dict() != before:
                    raise AssertionError("a refused action changed the state")
            else:
                state_check(game)
            game.apply(legal[rng.randrange(len(legal))])
            steps += 1
        generic_check(game)
    except AssertionError as exc:
        return steps, f"{preset} seed {seed} decision {steps}: {exc}"
    return steps, None


def _batch(args: tuple[str, list[int], int]) -> tuple[int, int, list[str]]:
    preset, seeds, every = args
    decisions, bad = 0, []
    for s in seeds:
        n, problem = play(preset, s, every)
        decisions += n
        if problem:
            bad.append(problem)
    return len(seeds), decisions, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="all-6p")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument("--every", type=int, default=25, help="full checks every N decisions")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    import bc_env.rules

    start = time.perf_counter()
    chunks = [(args.preset, list(range(s, min(s + 100, args.seed + args.games))), args.every)
              for s in range(args.seed, args.seed + args.games, 100)]  # fmt: skip
    games = decisions = 0
    problems: list[str] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for g, d, bad in pool.map(_batch, chunks):
            games, decisions, problems = games + g, decisions + d, problems + bad
            print(f"\r{games}/{args.games} games, {decisions:,} decisions, {len(problems)} violations",
                  end="", file=sys.stderr, flush=True)  # fmt: skip
    print(file=sys.stderr)
    elapsed = time.perf_counter() - start
    build = "compiled" if bc_env.rules.COMPILED else "pure-Python"
    print(f"{args.preset}: {games} games, {decisions:,} decisions, {len(problems)} violations, "
          f"{elapsed:.0f} s ({build} engine, {args.workers} workers)")  # fmt: skip
    for p in problems[:20]:
        print("VIOLATION", p)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
