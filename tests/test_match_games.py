"""tools/match_games.py: the games of a match, one JSON line each, resumable, the same games as play_match."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bc_env.rules.errors import ConfigError
from benchmarking.runner import play_match

TOOL = Path(__file__).resolve().parents[1] / "tools" / "match_games.py"
sys.path.insert(0, str(TOOL.parent))

import match_games  # noqa: E402


def test_games_resume_and_match_play_match(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    match_games.play("core-2p", ["expert", "random"], 5, 2, out)
    match_games.play("core-2p", ["expert", "random"], 5, 3, out)  # games 0 and 1 are in the file: only game 2 runs
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["i"] for r in rows] == [0, 1, 2] and [r["seat"] for r in rows] == [0, 1, 0]
    match = play_match("core-2p", ["expert", "random"], 3, 5)
    assert [r["winners"] for r in rows] == [g.winners for g in match.results]
    assert [r["influence"] for r in rows] == [g.influence for g in match.results]
    assert all(len(r["cpu"]) == len(r["wall"]) > 0 for r in rows)
    text = match_games.summary(out)
    assert "3 games" in text and "expert in core-2p vs random" in text


def test_bad_input_is_one_clear_error_and_leaves_the_file_alone(tmp_path: Path) -> None:
    out = tmp_path / "m.jsonl"
    match_games.play("core-2p", ["random", "random"], 5, 1, out)
    before = out.read_text()
    with pytest.raises(match_games.MatchFileError, match="holds the games of core-2p random,random seed 5"):
        match_games.play("core-2p", ["expert", "random"], 5, 2, out)  # another match's file: not mixed in
    with pytest.raises(ConfigError, match="has 2 seats: give 2 bots, got 3"):
        match_games.play("core-2p", ["random"] * 3, 5, 2, out)
    assert out.read_text() == before
    bad = tmp_path / "bad.jsonl"
    bad.write_text(before + "{not json\n")
    with pytest.raises(match_games.MatchFileError, match=r"bad.jsonl:2: not valid JSON"):
        match_games.summary(bad)
    bad.write_text('{"i": 0}\n')
    with pytest.raises(match_games.MatchFileError, match=r"bad.jsonl:1: not a game of tools/match_games.py"):
        match_games.play("core-2p", ["random", "random"], 5, 2, bad)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--config", "nope", "--bots", "random,random"], "unknown preset 'nope'"),
        (["--bots", "random,bogus"], "unknown policy 'bogus'"),
        (["--bots", "random,random", "--games", "0"], "--games must be at least 1, got 0"),
        (["--bots", "random,random", "--workers", "0"], "--workers must be at least 1, got 0"),
    ],
)
def test_the_command_line_reports_bad_values_without_a_traceback(tmp_path: Path, args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(TOOL), *args, "--out", str(tmp_path / "m.jsonl")], capture_output=True, text=True
    )
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "m.jsonl").exists()


def test_workers_play_the_same_games(tmp_path: Path) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    match_games.play("core-2p", ["expert", "random"], 7, 4, one)
    match_games.play("core-2p", ["expert", "random"], 7, 2, two)
    match_games.play("core-2p", ["expert", "random"], 7, 4, two, workers=2)  # resumes games 2 and 3 in 2 processes

    def games(path: Path) -> list[tuple]:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return sorted((r["i"], r["seat"], r["winners"], r["influence"], len(r["cpu"])) for r in rows)

    assert games(one) == games(two) and [g[0] for g in games(two)] == [0, 1, 2, 3]
