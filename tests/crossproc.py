"""Determinism across processes (not a test module).

A result computed twice in one process can agree for the wrong reason: ``hash()`` of a string, the iteration order
of a set of strings and any module-level state are the same both times. :func:`in_fresh_process` computes
``fn(*args)`` in a new interpreter whose ``PYTHONHASHSEED`` differs from this one's, so a test compares what one
seed gives in two processes::

    assert in_fresh_process(game_digest, "core-2p", 0) == jsonable(game_digest("core-2p", 0))

``fn`` is a module-level function of a module importable from the repository root, ``tests/`` or ``tools/``;
arguments and result travel as JSON (tuples come back as lists: compare with :func:`jsonable`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PATHS = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]
CODE = (
    "import importlib, json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "fn = getattr(importlib.import_module(sys.argv[2]), sys.argv[3]); "
    "print(json.dumps(fn(*json.loads(sys.argv[4]))))"
)


def other_hash_seed() -> str:
    """A ``PYTHONHASHSEED`` other than this process's (unset or ``random`` here: a fixed one, which differs)."""
    current = os.environ.get("PYTHONHASHSEED", "")
    return str(int(current) + 1) if current.isdigit() else "1"


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


def in_fresh_process(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` computed by a fresh interpreter with another hash seed, as JSON."""
    if "." in fn.__qualname__:
        raise ValueError(f"{fn.__qualname__} is not a module-level function")
    env = {**os.environ, "PYTHONHASHSEED": other_hash_seed()}
    argv = [sys.executable, "-c", CODE, json.dumps(PATHS), fn.__module__, fn.__name__, json.dumps(args)]
    out = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise AssertionError(f"{fn.__module__}.{fn.__name__}{args!r} failed in a fresh process:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])
