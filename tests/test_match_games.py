"""tools/match_games.py: the games of a match, one JSON line each, resumable, the same games as play_match."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from policies.arena import play_match

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

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
