"""tools/exp02_bot_usage.py: a small match prints its usage table; bad values are one clear error, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "exp02_bot_usage.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=300)


def test_one_game_prints_a_row_per_entrant() -> None:
    proc = run("--bots", "heuristic,random,random,random", "--games", "1", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ") and "entrant" not in line]
    assert len(rows) == 4 and rows[0].startswith("| heuristic")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--config", "nope"], "unknown preset 'nope'"),
        (["--bots", "heuristic,bogus,random,random"], "unknown policy 'bogus'"),
        (["--bots", "heuristic,random"], "exp02-4p has 4 seats: give 4 bots, got 2"),
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--bots", "random@old,random,random,random"], "only heuristic@old and expert@old have a baseline"),
    ],
)
def test_bad_values_are_one_clear_error(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
