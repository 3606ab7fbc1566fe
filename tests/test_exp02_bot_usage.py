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
        (["--bots", "heuristic@old,random,random,random", "--baseline", "no-such-ref"], "--baseline no-such-ref"),
    ],
)
def test_bad_values_are_one_clear_error(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


TRACE = TOOL.parent / "exp02_card_trace.py"


def test_the_card_trace_prints_its_table() -> None:
    proc = subprocess.run(
        [sys.executable, str(TRACE), "--games", "1", "--seed", "3"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "Political Actions" in proc.stdout and "| a priced card in hand or face up |" in proc.stdout


def test_the_card_trace_refuses_zero_games() -> None:
    proc = subprocess.run([sys.executable, str(TRACE), "--games", "0"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "--games must be at least 1" in proc.stderr and "Traceback" not in proc.stderr
