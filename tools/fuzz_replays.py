"""Seeded fuzz of replay files: a corrupted replay must load or raise the project's error, never another one.

Every case starts from a valid replay (a finished or unfinished seeded game of a random preset, random legal
moves, ``bc_env.rules.record``) and corrupts it one way: the file's bytes (truncated, flipped, not UTF-8), a
field of the document (deleted, or replaced by a value of another type or range: the format, the version, the
seed, the config and its options, the result), or the action list (an action dropped, duplicated, swapped,
replaced by another action string, an integer out of range, a float, a bool, ``null`` or a list). Then
``load_replay`` reads the file. Allowed outcomes: a ``BalanceControlError`` (``StateError``, ``ConfigError``,
``IllegalActionError``), or a game; a game that differs from the original replay is counted apart (a changed
action list that is still legal and, for a finished game, still gives the recorded result).

    python tools/fuzz_replays.py --cases 10000 --seed 0      # docs/replays.md records the figures

Exit status 1 when a case raised a foreign error (each is printed with its case number).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from fuzzing import key_paths, random_value, report, run_cases  # noqa: E402

from bc_env.rules import BalanceControlError, Game, load_replay, record  # noqa: E402

PRESETS = ("core-2p", "core-3p", "core-4p", "core-4p-hex", "core-4p-variants", "exp01-2p", "exp01-4p")
WEIRD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2, 7, 99, 2**63, -(2**63), 10**30, 1.5, -0.0, float("nan"), float("inf"), "",
    "x", "core-4p", "square", "hex", "pass", "place-tile 7,7", "7,7", [], [1], ["pass"], {}, {"a": 1},
    {"players": 9}, [[1, 2]], "balance-control-replay",
]  # fmt: skip


def _random_value(rng: random.Random) -> Any:
    return random_value(rng, WEIRD_VALUES, ["a", "players", "winners", "topology"], leaf=0.7, lists=0.85, entries=1)


def make_replay(rng: random.Random) -> tuple[dict, Game]:
    """A valid replay document of a random preset and its game (finished in about half the cases)."""
    preset = rng.choice(PRESETS)
    seed = rng.randrange(10**6)
    game = Game.new(preset, seed)
    limit = None if rng.random() < 0.5 else rng.randrange(1, 60)
    actions = []
    while not game.is_terminal() and (limit is None or len(actions) < limit):
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    return record(game, seed, actions), game


def _mutate_field(doc: dict, rng: random.Random) -> None:
    path = rng.choice([p for p in key_paths(doc, opaque=(("actions",),)) if p])
    parent: Any = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    roll = rng.random()
    if roll < 0.3 and isinstance(parent, dict):
        del parent[key]
    elif roll < 0.45 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] = parent[key] + rng.choice([-1, 1, 1000, -parent[key]])
    elif roll < 0.5 and isinstance(parent, dict):
        parent[rng.choice(["extra", "colour", "seeds"])] = _random_value(rng)
    else:
        parent[key] = _random_value(rng)


def _mutate_actions(doc: dict, rng: random.Random, pool: list[str]) -> None:
    actions = doc["actions"]
    if not actions:
        actions.append(rng.choice(pool))
        return
    i = rng.randrange(len(actions))
    roll = rng.randrange(7)
    if roll == 0:
        del actions[i]
    elif roll == 1:
        actions.insert(i, actions[i])
    elif roll == 2:
        j = rng.randrange(len(actions))
        actions[i], actions[j] = actions[j], actions[i]
    elif roll == 3:
        actions[i] = rng.choice(pool)
    elif roll == 4:
        actions[i] = rng.choice([-1, 10**6, 2**64, 1.0, True, None, ["pass"], {"a": 1}, 0])
    elif roll == 5:
        text = actions[i]
        actions[i] = text[: rng.randrange(len(text) + 1)] + rng.choice(["", " ", "x", "9", ",", "\u00a0"])
    else:
        actions.append(rng.choice(pool))  # an action after the end, or one more in an unfinished game


def _corrupt_bytes(data: bytes, rng: random.Random) -> bytes:
    roll = rng.randrange(4)
    if roll == 0:
        return data[: rng.randrange(len(data) + 1)]
    if roll == 1:
        return b"\xff" + data
    out = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        i = rng.randrange(len(out))
        out[i] = rng.randrange(256) if roll == 2 else rng.choice(b'{}[],:"0123456789-.etn ')
    return bytes(out)


def run_case(rng: random.Random, path: Path) -> tuple[str, str]:
    doc, original = make_replay(rng)
    pool = sorted({original.action_to_string(a) for a in range(original.num_actions)})
    target = rng.randrange(4)
    what = ("bytes", "field", "actions", "field+actions")[target]
    if target in (1, 3):
        _mutate_field(doc, rng)
    if target in (2, 3) and isinstance(doc.get("actions"), list):
        _mutate_actions(doc, rng, pool)
    data = json.dumps(doc).encode()
    if target == 0:
        data = _corrupt_bytes(data, rng)
    path.write_bytes(data)
    try:
        game = load_replay(path)
    except BalanceControlError as exc:
        return what, type(exc).__name__
    if game.to_dict() == original.to_dict():
        return what, "loaded, same game"
    finished = "finished" if "result" in doc else "unfinished"
    return what, f"loaded, different game ({finished} replay, {what} changed)"


def fuzz(cases: int, seed: int, progress: bool = False) -> dict[str, Any]:
    """Run ``cases`` seeded cases; returns the figures (outcomes by type, foreign errors, seconds)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "replay.json"
        return run_cases(cases, seed, lambda case_rng: run_case(case_rng, path), start, progress)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return report(fuzz(args.cases, args.seed, progress=sys.stderr.isatty()))


if __name__ == "__main__":
    sys.exit(main())
