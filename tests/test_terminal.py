"""The terminal tools (issue 28, item 2): ``watch --delay`` (the board after every turn), ``replay --to N`` and
``replay --step``, ``play --load``, ``serve --http`` printing its URL, ``--help`` in plain text and no control codes
where the output is not a terminal."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from balance_control import terminal
from balance_control.cli import build_parser, main
from bc_env.rules import Game, load_replay, replay
from policies import RandomPolicy

ROOT = Path(__file__).resolve().parents[1]
ESC = "\x1b"
ACTION = re.compile(r"^  P(\d) \[(\w+)\] (.+)$")


def _run(monkeypatch, capsys, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Exit status, stdout and stderr (a ``fail`` SystemExit becomes status 1 and its message on stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        rc, extra = main(argv), ""
    except SystemExit as exc:
        if not isinstance(exc.code, str):
            raise
        rc, extra = 1, exc.code + "\n"
    captured = capsys.readouterr()
    return rc, captured.out, captured.err + extra


def _random_game(config: str = "core-2p", seed: int = 1) -> tuple[Game, list[int]]:
    """The game ``watch --seed`` plays with random bots, and its actions."""
    game, bot, actions = Game.new(config, seed), RandomPolicy(seed=seed), []
    while not game.is_terminal():
        actions.append(bot.act(game))
        game.apply(actions[-1])
    return game, actions


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "game.json"
    assert main(["watch", "--config", "core-2p", "--seed", "1", "--final-only", "--save-replay", str(path)]) == 0
    return path


# ----------------------------------------------------------------------------------------------- watch --delay
def test_watch_delay_shows_the_board_after_every_turn(monkeypatch, capsys):
    waits: list[float] = []
    monkeypatch.setattr("balance_control.commands.watch.time.sleep", waits.append)
    rc, out, _ = _run(monkeypatch, capsys, ["watch", "--config", "core-2p", "--seed", "1", "--delay", "0.25"])
    assert rc == 0 and ESC not in out
    blocks = out.split("\n--- ")[1:]
    assert blocks[0].startswith("core-2p, seed 1: the start ---")
    game, turns = Game.new("core-2p", 1), 0
    assert game.render() in blocks[0]
    for block in blocks[1:]:
        title, *lines = block.splitlines()
        assert re.fullmatch(r"round \d+, turn [12]/2: P[01] \(\d+ actions so far\) ---", title), title
        before = game.turn
        moves = [ACTION.match(line) for line in lines]
        assert moves[0] is not None
        for m in moves:
            if m is None:
                break
            assert int(m.group(1)) == game.current_player and m.group(2) == game.phase_name
            game.apply(game.string_to_action(m.group(3)))
        # the board right after the turn's last action: one turn further (or the end of the game)
        assert game.turn == before + 1 or game.is_terminal()
        assert "\n".join(lines[sum(m is not None for m in moves) :]).startswith(game.render())
        turns += 1
    assert game.is_terminal() and game.on_board == _random_game()[0].on_board
    assert waits == [0.25] * turns and turns >= game.turn  # one wait per turn shown, none after the last board
    assert out.rstrip().endswith("(CORE-01-09-03)")  # then the bots and the result line, as without --delay


def test_watch_delay_on_a_terminal_redraws_in_place(monkeypatch, capsys):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    monkeypatch.setattr(sys, "stdout", tty)
    monkeypatch.setattr("balance_control.commands.watch.time.sleep", lambda s: None)
    assert main(["watch", "--config", "core-2p", "--seed", "2", "--delay", "0"]) == 0
    out = tty.getvalue()
    boards = out.count("influence on tiles (per seat):")
    assert out.count(terminal.CLEAR) == boards > 10  # each board replaces the previous one


@pytest.mark.parametrize(
    ("argv", "needle"),
    [(["--delay", "-1"], "--delay must be 0 or more"), (["--delay", "1", "--final-only"], "choose one")],
)
def test_watch_delay_refuses_bad_combinations(monkeypatch, capsys, argv, needle):
    rc, out, err = _run(monkeypatch, capsys, ["watch", "--config", "core-2p", *argv])
    assert rc == 1 and out == "" and needle in err


def test_piped_output_has_no_control_codes():
    """A real pipe: the boards follow each other without clearing the screen or colours."""
    proc = subprocess.run(
        [sys.executable, "-m", "balance_control", "watch", "--config", "core-2p", "--seed", "3", "--delay", "0"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ, "FORCE_COLOR": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert ESC not in proc.stdout and ESC not in proc.stderr
    assert proc.stdout.count("influence on tiles (per seat):") > 10


def test_control_codes_are_removed_from_streams_that_are_not_terminals(monkeypatch, capsys):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("RAY_COLOR_PREFIX", raising=False)
    with terminal.plain_when_piped():
        print("\x1b[1m\x1b[32mgreen\x1b[39m\x1b[22m and \x1b]0;title\x07plain")
        print("\x1b[33mwarning\x1b[0m", file=sys.stderr)
        assert os.environ["NO_COLOR"] == "1" and os.environ["RAY_COLOR_PREFIX"] == "0"  # for child processes
        assert not sys.stdout.isatty()
    captured = capsys.readouterr()
    assert captured.out == "green and plain\n" and captured.err == "warning\n"
    assert "NO_COLOR" not in os.environ and "RAY_COLOR_PREFIX" not in os.environ  # restored


# ----------------------------------------------------------------------------------------------- replay --to / --step
def test_replay_to_shows_the_position_after_n_actions(monkeypatch, capsys, replay_file):
    _, actions = _random_game()
    for n in (0, 7, len(actions)):
        rc, out, _ = _run(monkeypatch, capsys, ["replay", str(replay_file), "--to", str(n)])
        game = Game.new("core-2p", 1)
        for a in actions[:n]:
            game.apply(a)
        assert rc == 0
        header, board = out.split("\n", 1)
        assert header.startswith(f"after {n} of {len(actions)} actions")
        assert board == game.render() + "\n"
    assert "the game is over" in header
    rc, out, err = _run(monkeypatch, capsys, ["replay", str(replay_file), "--to", str(len(actions) + 1)])
    assert rc == 1 and out == "" and f"--to must be in 0..{len(actions)}" in err


def test_replay_without_options_still_prints_only_the_final_position(monkeypatch, capsys, replay_file):
    rc, out, _ = _run(monkeypatch, capsys, ["replay", str(replay_file)])
    assert rc == 0 and out == load_replay(replay_file).render() + "\n"


def _shown_positions(out: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^after (\d+) of \d+ actions", out, re.MULTILINE)]


def test_replay_step_moves_forwards_backwards_and_jumps(monkeypatch, capsys, replay_file):
    _, actions = _random_game()
    keys = "\n\nn\nb\n10\nb\nzz\nq\nnever read\n"
    rc, out, _ = _run(monkeypatch, capsys, ["replay", str(replay_file), "--step"], stdin=keys)
    assert rc == 0
    assert _shown_positions(out) == [0, 1, 2, 3, 2, 10, 9]
    assert "'zz': Enter or n: next action" in out  # an unknown key is explained, nothing moves
    game = Game.new("core-2p", 1)
    for a in actions[:9]:
        game.apply(a)
    assert game.render() in out.split("after 9 of")[1]
    assert f"[9/{len(actions)}]> q" in out  # piped keys are echoed after the prompt


def test_replay_step_stops_at_both_ends_and_at_the_end_of_input(monkeypatch, capsys, replay_file):
    _, actions = _random_game()
    end = len(actions)
    argv = ["replay", str(replay_file), "--step", "--to", str(end)]
    rc, out, _ = _run(monkeypatch, capsys, argv, stdin="\n0\nb\n")
    assert rc == 0  # the end of the input quits
    assert _shown_positions(out) == [end, 0]
    assert f"this is the end of the game ({end} actions)" in out and "this is the start of the game" in out


# ----------------------------------------------------------------------------------------------- play --load
def test_play_load_continues_a_replay_and_saves_the_whole_game(monkeypatch, capsys, tmp_path):
    first = tmp_path / "first.json"
    rc, out, _ = _run(
        monkeypatch, capsys,
        ["play", "--config", "core-2p", "--seed", "5", "--opponents", "random", "--save-replay", str(first)],
        stdin="1\n1\nquit\n",
    )  # fmt: skip
    assert rc == 0
    saved = json.loads(first.read_text(encoding="utf-8"))
    seat = load_replay(first).current_player
    second = tmp_path / "second.json"
    rc, out, _ = _run(
        monkeypatch, capsys,
        ["play", "--load", str(first), "--opponents", "random", "--save-replay", str(second)],
        stdin="1\nundo\n1\n1\nquit\n",
    )  # fmt: skip
    assert rc == 0
    assert out.startswith(f"core-2p, seed 5, continued after {len(saved['actions'])} actions: you are P{seat};")
    again = json.loads(second.read_text(encoding="utf-8"))
    assert again["seed"] == 5 and again["actions"][: len(saved["actions"])] == saved["actions"]
    assert len(again["actions"]) > len(saved["actions"])
    load_replay(second)  # a valid replay of the whole game


def test_play_load_continues_a_state_and_saves_a_state(monkeypatch, capsys, tmp_path):
    game = Game.new("core-4p", 2)
    for _ in range(9):
        game.apply(game.legal_actions()[0])
    state = tmp_path / "state.json"
    state.write_text(json.dumps(game.to_dict()), encoding="utf-8")
    later = tmp_path / "later.json"
    rc, out, _ = _run(
        monkeypatch, capsys, ["play", "--load", str(state), "--opponents", "random"], stdin=f"1\nsave {later}\nq\n"
    )
    assert rc == 0
    assert out.startswith(f"core-4p from a saved state (round {game.round}): you are P{game.current_player};")
    assert game.render() in out
    assert f"state saved to {later}" in out
    continued = Game.from_dict(json.loads(later.read_text(encoding="utf-8")))
    assert continued.config == game.config and continued.current_player == game.current_player


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--config", "core-4p"], "leave out --config"),
        (["--seed", "99"], "leave out --seed"),
        (["--seat", "7"], "--seat must be in 0..1"),
    ],
)
def test_play_load_refuses_conflicting_options(monkeypatch, capsys, tmp_path, extra, needle):
    path = tmp_path / "mid.json"
    _run(monkeypatch, capsys, ["play", "--seed", "5", "--opponents", "random", "--save-replay", str(path)], "q\n")
    rc, out, err = _run(monkeypatch, capsys, ["play", "--load", str(path), *extra], stdin="q\n")
    assert rc == 1 and needle in err


def test_play_load_refuses_a_finished_game_and_names_a_bad_file(monkeypatch, capsys, tmp_path, replay_file):
    rc, _, err = _run(monkeypatch, capsys, ["play", "--load", str(replay_file)])
    assert rc == 1 and "is over" in err and "nothing to continue" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "balance-control-replay", "version": 1}', encoding="utf-8")
    rc, _, err = _run(monkeypatch, capsys, ["play", "--load", str(bad)])
    assert rc == 1 and err.count("\n") == 1 and "bad.json" in err and "replay.config is missing" in err


# ----------------------------------------------------------------------------------------------- serve --http
def test_serve_http_prints_its_url_with_the_real_port():
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    proc = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "serve", "--http", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        m = re.search(r"at (http://127\.0\.0\.1:(\d+)/) ", line)
        assert m is not None, (line, proc.stderr.read() if proc.poll() is not None else "")
        assert int(m.group(2)) > 0
        with urllib.request.urlopen(m.group(1), timeout=30) as reply:
            assert reply.status == 200 and b"<html" in reply.read().lower()
        with urllib.request.urlopen(m.group(1) + "v1/hello", timeout=30) as reply:
            assert json.loads(reply.read())["ok"] is True
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_http_on_a_busy_port_is_one_error_line(monkeypatch, capsys):
    pytest.importorskip("uvicorn")
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        rc, out, err = _run(monkeypatch, capsys, ["serve", "--http", "--port", str(port)])
    assert rc == 1 and out == "" and f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1


# ----------------------------------------------------------------------------------------------- --help
RST = ("``", "::", ":class:", ":func:", ":mod:", ":data:", ":meth:")


def _commands() -> list[str]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return sorted(sub.choices)


@pytest.mark.parametrize("command", [None, *_commands()])
def test_help_is_plain_text(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"] if command is None else [command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: balance-control")
    for markup in RST:
        assert markup not in out, (command, markup)
    assert not re.search(r"^\s*\.\. ", out, re.MULTILINE)  # no directives
    if command is None:
        assert "Examples:" in out and "replay game.json --step" in out


def test_replay_step_on_a_terminal_redraws_each_position(replay_file):
    from balance_control.commands.replay import Timeline, step_loop

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    timeline = Timeline(json.loads(replay_file.read_text(encoding="utf-8")))
    out = Tty()
    assert step_loop(timeline, 0, io.StringIO("\n\nb\nq\n"), out) == 0
    text = out.getvalue()
    assert text.count(terminal.CLEAR) == 4  # each position replaces the previous one
    assert [int(k) for k in re.findall(re.escape(terminal.CLEAR) + r"after (\d+) of", text)] == [0, 1, 2, 1]


def test_replay_to_reads_a_game_of_a_tournament_log(monkeypatch, capsys, tmp_path):
    pytest.importorskip("openskill")
    from bc_env.rules import RulesConfig
    from benchmarking.tournament import TournamentSpec, run_tournament

    log = run_tournament(
        TournamentSpec(("random",), (RulesConfig.preset("core-2p"),), 2), tmp_path / "t.jsonl", workers=1
    )
    rec = log.games[1]
    rc, out, _ = _run(monkeypatch, capsys, ["replay", str(tmp_path / "t.jsonl"), "--game", "1", "--to", "4"])
    assert rc == 0
    first, second, board = out.split("\n", 2)
    assert first.startswith(f"game 1: core-2p, seed {rec['seed']}") and second.startswith("after 4 of ")
    doc = rec["replay"]
    assert board == replay(RulesConfig.from_dict(doc["config"]), doc["seed"], doc["actions"][:4]).render() + "\n"
