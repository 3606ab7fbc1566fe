#!/usr/bin/env python
"""Many random games of one configuration under the checks every configuration has (issue #15's 10,000 all-6p games).

After every decision: each expansion state's own check (``ExpansionState.check``: Regulations, Countdown, Measure
zones, Investment Program), Resources conserved per resort (CORE-01-00-01), Influence within the cap and on the
Board as counted (RULINGS R12), a non-empty sorted legal-action list; with EXP-02 also every Regulation on a tile
it may attach to (RULINGS R41) and placed - returned = attached (EXP-02-02-A-03). Every ``--every`` decisions and at
the end: the JSON state round-trips, a clone equals the original, a fifth of the legal actions apply (on clones) and
an illegal action is refused with the engine's "not legal" error and changes nothing.

``--steer`` plays as tests/test_exp02_invariants.py does (the same code): every other game (even seeds) gives each
seat 8 SEC to spend, and 60% of the decisions prefer a Measure or Regulation action, so Regulations are placed,
moved and removed; an unedited game (odd seeds) is then replayed from its actions and must end in the same state.

    python tools/invariant_games.py --preset all-6p --games 10000 --workers 2     # docs/benchmarks.md
    python tools/invariant_games.py --preset exp02-4p --games 100 --steer         # docs/benchmarks.md

Exit status 0: no violation; 1: a violation (printed with preset, seed and decision).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_states import generic_check, state_check  # noqa: E402

from bc_env.rules import Game, IllegalActionError  # noqa: E402

#: The events counted per game (what steered EXP-02 play must reach).
COUNTED = ("regulation-placed", "regulation-moved", "regulation-removed", "play-measure")


def exp02_check(game: Game) -> None:
    """EXP-02-02-A-03: placed - returned = attached; RULINGS R41: every attachment on a tile it may attach to."""
    from bc_env.rules.expansions.exp02 import attachable

    st = game.ext["EXP-02"]
    if st.count() != st.placed - st.returned:
        raise AssertionError(f"Regulations: {st.count()} attached, placed {st.placed} - returned {st.returned}")
    for cell, counts in st.on.items():
        if game.tile_at[cell] < 0 or cell == game.topo.centre:
            raise AssertionError(f"a Regulation on cell {cell}, which holds no tile or the Start Committee")
        for t in (0, 3):  # SecurityLevel and Blockade: any non-SC tile (R41)
            if counts[t] and not attachable(game, t, cell):
                raise AssertionError(f"Regulation type {t} on cell {cell}, where it may not attach (R41)")


def _full_check(game: Game, legal: list[int]) -> None:
    generic_check(game)
    data = game.to_dict()
    if game.clone().to_dict() != data:
        raise AssertionError("a clone differs from its original")
    for a in legal[:: max(1, len(legal) // 5)]:
        game.clone().apply(a)  # a legal action applies
    illegal = next(a for a in range(game.num_actions) if a not in legal)
    try:
        game.apply(illegal)
        raise AssertionError(f"illegal action {illegal} accepted")
    except IllegalActionError as exc:
        if " is not legal in decision " not in str(exc):
            raise AssertionError(f"illegal action {illegal} refused for another reason: {exc}") from None
    if game.to_dict() != data:
        raise AssertionError("a refused action changed the state")


def play(preset: str, seed: int, every: int, steer: bool = False) -> tuple[int, str | None, Counter[str]]:
    """One game; returns (decisions, violation or None, counts of the ``COUNTED`` events)."""
    rng = random.Random(seed)
    game = Game.new(preset, seed)
    rich = steer and seed % 2 == 0 and "SEC" in game.config.resorts
    if rich:  # each seat starts with 8 SEC to spend (taken from the net-balance Bank)
        sec = game.config.resorts.index("SEC")
        for p in range(game.num_players):
            game.res[p * game.num_resorts + sec] += 8
            game.bank[sec] -= 8
        game._legal = None
    exp02 = "EXP-02" in game.ext
    history: list[int] = []
    try:
        while not game.is_terminal():
            legal = game.legal_actions()
            if not legal or legal != sorted(set(legal)):
                raise AssertionError(f"legal actions {legal}")
            if len(history) % every == 0:
                _full_check(game, legal)
            else:
                state_check(game)
            if exp02:
                exp02_check(game)
            pref = [a for a in legal if a >= game.layout.take] if steer else []
            action = rng.choice(pref if pref and rng.random() < 0.6 else legal)
            game.apply(action)
            history.append(action)
        generic_check(game)
        if steer and not rich:  # replays are deterministic (a rich game was edited after setup)
            again = Game.new(preset, seed)
            for a in history:
                again.apply(a)
            if again.to_dict() != game.to_dict():
                raise AssertionError("the replay of the game's actions ends in another state")
    except AssertionError as exc:
        return len(history), f"{preset} seed {seed} decision {len(history)}: {exc}", Counter()
    kinds = Counter(e["type"] for e in game.events)
    return len(history), None, Counter({k: kinds[k] for k in COUNTED})


def _batch(args: tuple[str, list[int], int, bool]) -> tuple[int, int, list[str], Counter[str]]:
    preset, seeds, every, steer = args
    decisions, bad, events = 0, [], Counter[str]()
    for s in seeds:
        n, problem, counted = play(preset, s, every, steer)
        decisions += n
        events += counted
        if problem:
            bad.append(problem)
    return len(seeds), decisions, bad, events


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="all-6p")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument("--every", type=int, default=25, help="full checks every N decisions")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--steer", action="store_true", help="EXP-02 steering: SEC to spend, Measures preferred")
    args = parser.parse_args(argv)
    import bc_env.rules

    start = time.perf_counter()
    chunks = [(args.preset, list(range(s, min(s + 100, args.seed + args.games))), args.every, args.steer)
              for s in range(args.seed, args.seed + args.games, 100)]  # fmt: skip
    games = decisions = 0
    problems: list[str] = []
    events: Counter[str] = Counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for g, d, bad, counted in pool.map(_batch, chunks):
            games, decisions, problems, events = games + g, decisions + d, problems + bad, events + counted
            print(f"\r{games}/{args.games} games, {decisions:,} decisions, {len(problems)} violations",
                  end="", file=sys.stderr, flush=True)  # fmt: skip
    print(file=sys.stderr)
    elapsed = time.perf_counter() - start
    build = "compiled" if bc_env.rules.COMPILED else "pure-Python"
    print(f"{args.preset}: {games} games, {decisions:,} decisions, {len(problems)} violations, "
          f"{elapsed:.0f} s ({build} engine, {args.workers} workers{', steered' if args.steer else ''})")  # fmt: skip
    print("events: " + ", ".join(f"{k} {events[k]:,}" for k in COUNTED))
    for p in problems[:20]:
        print("VIOLATION", p)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
