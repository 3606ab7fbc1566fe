"""tools/gate_release.py: when a bot releases the FormalizeInfluence gate, and what its 2-player games end in."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from bc_env.rules import Game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("gate_release", ROOT / "tools" / "gate_release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_slack_at_the_start_of_a_game(tool):
    """71 turns, the start player's 36 and the other's 35; cap 7, 4 Starting Influence each: the start player has
    35 turns after this one and needs 7 Places and 3 FormalizeInfluence (RULINGS R12): slack 25; the other 35 - 10."""
    g = Game.new("core-2p", 3)
    p = g.current_player
    assert (g.turns_left(p), g.turns_left(1 - p), g.cap, g.starting, g.on_board, g.created) == (
        36, 35, 7, [4, 4], [0, 0], [0, 0])  # fmt: skip
    assert tool.slack_after_turn(g, p) == 25 and tool.slack_after_turn(g, 1 - p) == 25


def test_every_game_is_counted_once_with_its_release(tool, capsys):
    assert tool.main(["--bot", "heuristic", "--opponent", "random", "--games", "6", "--seed", "500", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["game"] for r in rows] == list(range(6)) and [r["seat"] for r in rows] == [0, 1] * 3
    for r in rows:
        assert r["outcome"] in ("won alone", "shared", "lost")
        if r["held_last"] in ("bot", "opponent"):
            assert len(r["release"]) == 2
    # the heuristic holds the gate against random players (docs/policies.md, "Gate control")
    assert sum(r["held_last"] == "bot" for r in rows) >= 4
    assert tool.main(["--bot", "heuristic", "--games", "6", "--seed", "500"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("| bot's outcome | games |")
    outcomes = table[2 : table.index("")]
    assert sum(int(line.split("|")[2]) for line in outcomes) == 6
    # while it alone holds the gate, the heuristic moves Influence and places its last Starting Influence at slack 0
    holding = table[table.index("") + 3 : -2]
    assert holding and all(line.startswith("| ") for line in holding)
    alone = sum(r["outcome"] == "won alone" for r in rows)
    shared = sum(r["outcome"] == "shared" for r in rows)
    assert table[-1].startswith(f"6 games: {alone} won alone, {shared} shared, {6 - alone - shared} lost; ")
    assert f"the bot's score {(alone + shared / 2) / 6:.1%}" in table[-1] and "--hold-until" not in table[-1]
    kinds = {k for r in rows for _, k in r["holding"]}
    assert kinds <= {"move-from", "place", "convert"} and "move-from" in kinds


def test_a_configuration_of_more_players_is_refused(tool, capsys):
    with pytest.raises(SystemExit):
        tool.main(["--bot", "heuristic", "--config", "core-4p", "--games", "1"])
    assert "must be a 2-player configuration, core-4p has 4 players" in capsys.readouterr().err


def test_hold_until_moves_the_release_and_nothing_else(tool, capsys):
    """The heuristic lets go at slack 0 (docs/training.md): --hold-until 0 changes none of its games; --hold-until -1
    keeps its last Starting Influence one turn longer wherever it alone held the gate, so it lets go at slack -1 at
    the latest, one turn past what reaching the cap allows."""
    args = ["--bot", "heuristic", "--games", "8", "--seed", "500", "--json"]
    assert tool.main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert tool.main([*args, "--hold-until", "0"]) == 0
    assert json.loads(capsys.readouterr().out) == plain and all(r["held_longer"] == 0 for r in plain)
    assert tool.main([*args, "--hold-until", "-1"]) == 0
    later = json.loads(capsys.readouterr().out)
    held = [r for r in plain if r["held_last"] == "bot" and r["release"][0] == 0]
    assert held, "the heuristic let go at slack 0 in some of these games"
    for before, after in zip(plain, later):
        if before in held:
            assert after["held_longer"] >= 1 and after["release"][0] <= -1
        if after["held_longer"]:
            assert after["release"] != before["release"] or after["outcome"] != before["outcome"]


def test_hold_until_with_a_learned_bot_uses_its_network(tool, capsys):
    """zero-core-2p lets go at slack 0 (docs/training.md); with --hold-until -1 its place of the last Starting
    Influence becomes the move-from its network ranks first, and it lets go at slack -1 at the latest."""
    args = ["--bot", "zero-core-2p", "--games", "6", "--seed", "900000", "--json"]
    assert tool.main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert any(r["held_last"] == "bot" and r["release"][0] == 0 for r in plain)
    assert tool.main([*args, "--hold-until", "-1"]) == 0
    held = json.loads(capsys.readouterr().out)
    assert sum(r["held_longer"] for r in held) >= 1
    assert all(r["release"][0] <= -1 for r in held if r["held_last"] == "bot")
