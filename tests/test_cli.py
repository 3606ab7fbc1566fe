"""The command line: play (stdin), watch and match; the older watch/--final-only keeps its output."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from balance_control.cli import main
from bc_env.rules import PHASE_NAMES, Game
from policies import RandomPolicy

ROOT = Path(__file__).resolve().parents[1]
ACTION_LINE = re.compile(r"^P(\d) \[(" + "|".join(PHASE_NAMES[:-1]) + r")\] (.+)$")


def _run(monkeypatch, capsys, argv: list[str], stdin: str = "") -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(argv)
    return rc, capsys.readouterr().out


# ------------------------------------------------------------------------------------------ play
def test_play_reprompts_on_bad_input_then_accepts_a_number(monkeypatch, capsys):
    rc, out = _run(
        monkeypatch,
        capsys,
        ["play", "--config", "core-2p", "--seat", "0", "--opponents", "heuristic", "--seed", "0"],
        stdin="banana\n0\n999\nplace-tile 0,0\n2\nquit\n",
    )
    assert rc == 0
    assert "you are P0; P1 heuristic" in out
    assert "your decision (place_tile)" in out
    assert "  1) place-tile " in out  # numbered options with readable action strings
    assert "invalid input: cannot parse action 'banana'" in out
    assert "invalid input: 0 is not an option: enter a number from 1 to" in out
    assert "invalid input: 999 is not an option" in out
    assert "invalid input: 'place-tile 0,0' is not legal now (place_tile)" in out
    # Option 2 of the first decision was taken, then the next decision was offered, then quit.
    taken = [m.group(3) for m in map(ACTION_LINE.match, out.splitlines()) if m and m.group(1) == "0"]
    assert len(taken) == 1 and taken[0].startswith("place-tile ")
    assert "your decision (political)" in out
    assert out.rstrip().endswith("bye")


def test_play_accepts_action_strings(monkeypatch, capsys):
    game = Game.new("core-2p", 1)
    # Seat 1 moves second; find what P0 (the bot) will not influence: the string of the first legal option.
    rc, out = _run(
        monkeypatch,
        capsys,
        ["play", "--config", "core-2p", "--seat", str(game.current_player), "--opponents", "random", "--seed", "1"],
        stdin=f"{game.action_to_string(game.legal_actions()[-1])}\nquit\n",
    )
    assert rc == 0
    assert f"P{game.current_player} [place_tile] {game.action_to_string(game.legal_actions()[-1])}" in out


def test_play_a_whole_game_from_a_pipe_to_the_result(monkeypatch, capsys):
    """Always choosing option 1 plays a full 4-player game against random bots (CORE-01-09-01..04)."""
    rc, out = _run(
        monkeypatch,
        capsys,
        ["play", "--config", "core-4p", "--seat", "2", "--opponents", "random", "--seed", "3"],
        stdin="1\n" * 2000,
    )
    assert rc == 0
    assert "game over" in out
    assert re.search(r"result: (winner|shared victory) P\d", out)
    seats = {int(m.group(1)) for m in map(ACTION_LINE.match, out.splitlines()) if m}
    assert seats == {0, 1, 2, 3}


def test_play_end_of_input_leaves_with_an_error_code(monkeypatch, capsys):
    rc, out = _run(monkeypatch, capsys, ["play", "--config", "core-2p", "--opponents", "random"], stdin="")
    assert rc == 1
    assert "end of input" in out


def test_play_rejects_unknown_bots_and_seats(monkeypatch, capsys):
    with pytest.raises(SystemExit, match="unknown bot 'nobody'; available bots: .*heuristic.*random"):
        _run(monkeypatch, capsys, ["play", "--opponents", "nobody"])
    with pytest.raises(SystemExit, match=r"--seat must be in 0\.\.1"):
        _run(monkeypatch, capsys, ["play", "--config", "core-2p", "--seat", "2"])
    with pytest.raises(SystemExit, match="--opponents needs 1 or 3 names"):
        _run(monkeypatch, capsys, ["play", "--config", "core-4p", "--opponents", "random,heuristic"])


def test_play_reads_a_real_pipe():
    """The installed entry point reads moves from a pipe (no terminal needed)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "balance_control",
            "play",
            "--config",
            "core-2p",
            "--opponents",
            "random",
            "--seed",
            "2",
        ],
        input="x\n1\nquit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "invalid input" in proc.stdout
    assert "bye" in proc.stdout


# ------------------------------------------------------------------------------------------ watch
def test_watch_prints_every_action_then_the_final_position_and_result(monkeypatch, capsys):
    rc, out = _run(
        monkeypatch, capsys, ["watch", "--config", "core-4p", "--bots", "heuristic,random,random,random", "--seed", "3"]
    )
    assert rc == 0
    lines = out.splitlines()
    actions = [ACTION_LINE.match(line) for line in lines]
    first_other = next(i for i, m in enumerate(actions) if m is None)
    assert first_other > 50
    # Replaying the printed action strings reproduces the game and its result.
    game = Game.new("core-4p", 3)
    for m in actions[:first_other]:
        assert m is not None
        assert int(m.group(1)) == game.current_player
        assert m.group(2) == game.phase_name
        game.apply(game.string_to_action(m.group(3)))
    assert game.is_terminal()
    assert game.render() in out
    assert "bots: P0 heuristic, P1 random, P2 random, P3 random" in out
    winners = ", ".join(f"P{p}" for p in game.winners())
    assert f"{winners}; Influence on the Board per seat {game.on_board}" in out


def test_watch_final_only_keeps_the_original_output(monkeypatch, capsys):
    """scripts/run.sh: ``watch --config core-4p --seed 1 --final-only`` prints only the final rendering of
    a game played by one random bot seeded with --seed for every seat."""
    rc, out = _run(monkeypatch, capsys, ["watch", "--config", "core-4p", "--seed", "1", "--final-only"])
    assert rc == 0
    game = Game.new("core-4p", 1)
    bot = RandomPolicy(seed=1)
    while not game.is_terminal():
        game.apply(bot.act(game))
    assert out == game.render() + "\n"


def test_watch_rejects_a_wrong_number_of_bots(monkeypatch, capsys):
    with pytest.raises(SystemExit, match="--bots needs 1 or 4 names, got 2"):
        _run(monkeypatch, capsys, ["watch", "--config", "core-4p", "--bots", "heuristic,random"])


# ------------------------------------------------------------------------------------------ match
def test_match_prints_the_table(monkeypatch, capsys):
    rc, out = _run(
        monkeypatch,
        capsys,
        ["match", "--config", "core-2p", "--bots", "heuristic,random", "--games", "4", "--seed", "7", "--no-progress"],
    )
    assert rc == 0
    assert "core-2p: 4 games, seed 7, seats rotated" in out
    rows = [line for line in out.splitlines() if line.startswith("| heuristic |") or line.startswith("| random |")]
    assert len(rows) == 2
    wins = [sum(Fraction(part) for part in row.split("|")[3].split()) for row in rows]  # "3 1/2"
    assert sum(wins) == pytest.approx(4)  # shared victories split one win (CORE-01-09-04)
    assert all(row.split("|")[2].strip() == "4" for row in rows)


def test_match_single_bot_name_fills_every_seat(monkeypatch, capsys):
    rc, out = _run(monkeypatch, capsys, ["match", "--config", "core-3p", "--bots", "random", "--games", "3"])
    assert rc == 0
    assert [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| random#")] == [
        "random#1",
        "random#2",
        "random#3",
    ]


def test_match_takes_the_path_of_an_exported_policy(monkeypatch, capsys):
    path = str(Path(__file__).resolve().parents[1] / "policies" / "bots" / "ppo-core-2p")
    args = ["match", "--config", "core-2p", "--bots", f"{path},random", "--games", "2", "--no-progress"]
    rc, out = _run(monkeypatch, capsys, args)
    assert rc == 0 and "core-2p: 2 games" in out
    with pytest.raises(SystemExit, match="or the path of an exported policy"):
        _run(monkeypatch, capsys, ["match", "--config", "core-2p", "--bots", "/no/such/policy,random"])
