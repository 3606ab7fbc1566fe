#!/usr/bin/env python
"""Fuzz the state loader (``Game.from_dict``) and the action-string parser with seeded random mutations.

States: mid-game states of every preset, each mutated once at a random place in the JSON (a key deleted or
added, a value replaced by junk of another type or out of range, a number nudged, a list element duplicated or
dropped). The event log is not mutated: it is the record of how the state came about (the loader checks its
shape and bounds), and the harness's history checks compare it with the counters. Every case must end in one of:

* ``rejected``: a ``BalanceControlError`` (the project's error, naming the field);
* ``accepted``: a game that then plays to the end under the invariant harness (``tests/invariants.py``:
  conservation of every object, caps, derived data) with random legal actions.

Anything else (another exception type, a hang, an invariant broken after loading) is a finding.

Strings: legal action strings mutated one character at a time (Unicode digits, NBSP, signs, spaces, case);
``string_to_action`` must either raise ``IllegalActionError`` or return an action whose canonical string is the
input.

    python tools/fuzz_states.py --cases 10000 --seed 0            # states
    python tools/fuzz_states.py --strings --cases 10000 --seed 0  # action strings
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bc_env.rules import BalanceControlError, Game, IllegalActionError, preset_names  # noqa: E402

JUNK: tuple[Any, ...] = (None, True, False, -1, 0, 1, 2, 7, 99, 10**9, 10**18, 1.5, float("nan"), "", "x", "0,0",
                         "DOM", [], [0], [None], {}, {"x": 1}, [[[[[[[[1]]]]]]]])  # fmt: skip


def sample_states(rng: random.Random, per_preset: int = 3) -> list[dict[str, Any]]:
    """Mid-game states of every preset the invariant harness covers (random play, stopped at a random decision)."""
    from invariants import OTHER_HARNESS_PRESETS  # tests/ is on the path (see play_out)

    out = []
    for preset in [p for p in preset_names() if p not in OTHER_HARNESS_PRESETS]:
        for _ in range(per_preset):
            game = Game.new(preset, rng.randrange(10**6))
            stop = rng.randrange(5, 250)
            for _ in range(stop):
                if game.is_terminal():
                    break
                legal = game.legal_actions()
                game.apply(legal[rng.randrange(len(legal))])
            out.append(game.to_dict())
    return out


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "events":  # the event log is a record of the history, checked for its shape only
                out.extend(_paths(v, (*path, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node[:12]):
            out.extend(_paths(v, (*path, i)))
    return out


def mutate(state: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """One random mutation of a copy of ``state`` and a description of it."""
    data = copy.deepcopy(state)
    paths = [p for p in _paths(data) if p]
    path = rng.choice(paths)
    parent: Any = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    op = rng.choice(("junk", "junk", "nudge", "delete", "add", "dup"))
    if op == "nudge" and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = value + rng.choice((-2, -1, 1, 2, 10**6))
    elif op == "delete" and isinstance(parent, dict):
        del parent[key]
    elif op == "delete" and isinstance(parent, list):
        parent.pop(key)
    elif op == "add" and isinstance(value, dict):
        value[rng.choice(("extra", "rounds", "Supply", "phase ", "x"))] = rng.choice(JUNK)
    elif op == "dup" and isinstance(value, list) and value:
        value.append(copy.deepcopy(rng.choice(value)))
    else:
        op = "junk"
        parent[key] = copy.deepcopy(rng.choice(JUNK))
    return data, f"{op} at {'.'.join(map(str, path))}"


def play_out(game: Game, rng: random.Random) -> None:
    """Random legal play to the end under the invariant harness (raises InvariantError) for the presets it models
    (``invariants.PRESETS``), else under the checks every configuration has (``generic_check``)."""
    from invariants import PRESETS, check_state, check_terminal

    check = check_state if game.config.name in PRESETS else generic_check
    steps = 0
    while not game.is_terminal():
        check(game)
        legal = game.legal_actions()
        if not legal:
            raise AssertionError("no legal action before the end")
        game.apply(legal[rng.randrange(len(legal))])
        steps += 1
        if steps > 5000:
            raise AssertionError("the game did not end within 5,000 decisions")
    check(game)
    if check is check_state:
        check_terminal(game)


def generic_check(game: Game) -> None:
    """What holds in every configuration (``state_check``), and the JSON state round-trips."""
    state_check(game)
    data = game.to_dict()
    if Game.from_dict(data).to_dict() != data:
        raise AssertionError("the JSON state does not round-trip")


def state_check(game: Game) -> None:
    """Each expansion state's own check (ExpansionState.check), Resources conserved (CORE-01-00-01), Influence
    within the cap (RULINGS R12) and on the Board as counted."""
    for name, state in game.ext.items():
        problems = state.check(game)
        if problems:
            raise AssertionError(f"{name}: {problems}")
    nr, np_ = game.num_resorts, game.num_players
    for r in range(nr):
        total = sum(game.res[p * nr + r] for p in range(np_)) + game.bank[r] + game.noise[r]
        if total != (game.config.bank_stock or 0):
            raise AssertionError(f"resort {r} not conserved: {total}")
    for p in range(np_):
        board = sum(game.infl[c * np_ + p] for c in game.board)
        if board != game.on_board[p] or game.supply[p] < 0 or game.supply[p] + board > game.cap:
            raise AssertionError(f"player {p}: Influence supply {game.supply[p]}, board {board} / {game.on_board[p]}")


def state_case(states: list[dict[str, Any]], rng: random.Random) -> tuple[str, str]:
    base = rng.choice(states)
    data, what = mutate(base, rng)
    try:
        game = Game.from_dict(data)
    except BalanceControlError as exc:
        return "rejected", f"{type(exc).__name__}"
    except Exception as exc:  # noqa: BLE001 - a foreign error type is the finding
        return "FOREIGN", f"{what}: {type(exc).__name__}: {exc}"
    try:
        play_out(game, rng)
    except Exception as exc:  # noqa: BLE001
        return "BROKEN", f"{what}: {type(exc).__name__}: {exc}"
    return "accepted", "plays to the end"


_SWAPS = ("\u0661", "\u00a0", "\u00b2", "+", "-", " ", "  ", "0", "07", "P", ",", ";", "\t", "D", "e", "\u200b")


def string_case(games: list[Game], rng: random.Random) -> tuple[str, str]:
    game = rng.choice(games)
    legal = game.legal_actions()
    text = game.action_to_string(legal[rng.randrange(len(legal))])
    i = rng.randrange(len(text) + 1)
    op = rng.randrange(3)
    if op == 0:
        text = text[:i] + rng.choice(_SWAPS) + text[i:]
    elif op == 1 and i < len(text):
        text = text[:i] + text[i + 1 :]
    else:
        text = text[:i] + rng.choice(_SWAPS) + text[i + 1 :]
    try:
        action = game.string_to_action(text)
    except IllegalActionError:
        return "rejected", ""
    except Exception as exc:  # noqa: BLE001
        return "FOREIGN", f"{text!r}: {type(exc).__name__}: {exc}"
    if game.action_to_string(action) != text:
        return "NON-CANONICAL", f"{text!r} parsed as {game.action_to_string(action)!r}"
    return "accepted", ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strings", action="store_true", help="fuzz action strings instead of states")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    outcomes: Counter[str] = Counter()
    details: Counter[str] = Counter()
    findings: list[str] = []
    if args.strings:
        games = [Game.new(p, s) for p in preset_names() for s in range(2)]
        case = lambda: string_case(games, rng)  # noqa: E731
    else:
        states = sample_states(rng)
        case = lambda: state_case(states, rng)  # noqa: E731
    for _ in range(args.cases):
        outcome, detail = case()
        outcomes[outcome] += 1
        if outcome == "rejected":
            details[detail] += 1
        elif outcome not in ("accepted",):
            findings.append(detail)
    seconds = time.perf_counter() - start
    kind = "action strings" if args.strings else "states"
    print(
        f"{args.cases} {kind}, seed {args.seed}, {seconds:.0f} s: " + ", ".join(f"{k} {v}" for k, v in outcomes.items())
    )
    if details:
        print("rejected with: " + ", ".join(f"{k} {v}" for k, v in details.most_common()))
    for f in findings[:20]:
        print("FINDING", f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
