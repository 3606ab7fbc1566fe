"""What the seeded file fuzzes (tools/fuzz_replays.py, tools/fuzz_bot_files.py) share: the loop (each case gets its
own RNG drawn from the seed, corrupts something and says what and how it came out; an exception a case raises is a
finding, an error of a foreign type, counted and listed; the figures are what docs/replays.md and docs/policies.md
record) and the pieces of a corrupted JSON document (its key paths, random values)."""

from __future__ import annotations

import copy
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

#: A case: its RNG -> (what it corrupted, its outcome). It may add notes to what it raises (``exc.add_note``):
#: they are listed with the finding.
Case = Callable[[random.Random], tuple[str, str]]
#: Where a value sits in a JSON document: its keys and list indices from the top.
KeyPath = tuple[Any, ...]


def run_cases(cases: int, seed: int, case: Case, started: float, progress: bool = False) -> dict[str, Any]:
    """Run ``cases`` cases of ``case``; the figures: outcomes and corrupted targets counted, the foreign errors
    (``case N (notes): Type: message``, 300 characters at most) and the seconds since ``started``."""
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    by_target: Counter[str] = Counter()
    foreign: list[str] = []
    iterator: Any = range(cases)
    if progress:
        try:
            from tqdm import tqdm

            iterator = tqdm(iterator, unit="case")
        except ImportError:
            pass
    for i in iterator:
        case_rng = random.Random(rng.getrandbits(64))
        try:
            what, outcome = case(case_rng)
        except Exception as exc:  # noqa: BLE001 (the point of the fuzz: any foreign error is a finding)
            what, outcome = "?", f"FOREIGN {type(exc).__name__}"
            notes = "".join(f" ({note})" for note in getattr(exc, "__notes__", ()))
            foreign.append(f"case {i}{notes}: {type(exc).__name__}: {exc}"[:300])
        outcomes[outcome] += 1
        by_target[what] += 1
    return {
        "cases": cases,
        "seed": seed,
        "outcomes": dict(sorted(outcomes.items())),
        "corrupted": dict(sorted(by_target.items())),
        "foreign": foreign,
        "seconds": round(time.perf_counter() - started, 1),
    }


def report(figures: dict[str, Any]) -> int:
    """Print the figures (JSON) and the first 50 foreign errors; the exit status: 1 when there is one."""
    print(json.dumps({k: v for k, v in figures.items() if k != "foreign"}, indent=1))
    for line in figures["foreign"][:50]:
        print(line)
    return 1 if figures["foreign"] else 0


def key_paths(doc: Any, prefix: KeyPath = (), opaque: tuple[KeyPath, ...] = ()) -> list[KeyPath]:
    """Every key path into a JSON document (dict keys and list indices), the document's own ``()`` first; the
    lists at the paths in ``opaque`` are not entered (their items have mutations of their own)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += key_paths(v, (*prefix, k), opaque)
    elif isinstance(doc, list) and prefix not in opaque:
        for i, v in enumerate(doc):
            out += key_paths(v, (*prefix, i), opaque)
    return out


def random_value(
    rng: random.Random,
    weird: Sequence[Any],
    keys: Sequence[str],
    leaf: float,
    lists: float,
    entries: int,
    depth: int = 0,
) -> Any:
    """A value to put into a JSON document: one of ``weird`` (with probability ``leaf``; always below three levels
    of nesting), a list of up to 3 random values (``lists - leaf``), or an object of ``entries`` random values
    under ``keys`` (the rest)."""
    roll = rng.random()
    if roll < leaf or depth > 2:
        return copy.deepcopy(rng.choice(weird))
    if roll < lists:
        return [random_value(rng, weird, keys, leaf, lists, entries, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(keys): random_value(rng, weird, keys, leaf, lists, entries, depth + 1) for _ in range(entries)}
