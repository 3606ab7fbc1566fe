"""The command line at its edges (issue 13): one-line errors instead of tracebacks, Ctrl-C, --version, the
board legend, hex tables drawn as hex, explained illegal inputs, replays from play / watch / match, undo and
hint in play, train's required --config and install hint, readable fractions and --json / --csv."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import policies
from balance_control.cli import main
from bc_env.rules import Game, RulesConfig, load_replay, preset_names
from bc_env.rules.components import RESORT, build_catalogue
from benchmarking.runner import format_wins

ROOT = Path(__file__).resolve().parents[1]


def _run(monkeypatch, capsys, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Exit status, stdout and stderr as the process would give them (``fail`` is a SystemExit whose message
    Python prints on stderr with status 1)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        rc = main(argv)
        extra = ""
    except SystemExit as exc:
        if not isinstance(exc.code, str):
            raise
        rc, extra = 1, exc.code + "\n"
    captured = capsys.readouterr()
    return rc, captured.out, captured.err + extra


def _one_error_line(err: str, *needles: str) -> None:
    assert err.startswith("balance-control: error: "), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


# ----------------------------------------------------------------------------------- one-line errors
@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b'{"format": ', "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"[1, 2, 3]", ""),
        (b'{"format": "balance-control-replay", "version": 1, "config": 7, "seed": 1, "actions": []}', ""),
        (b"1" * 5000, ""),  # an integer longer than Python's digit limit
    ],
)
def test_show_and_replay_on_a_bad_file_print_one_line(monkeypatch, capsys, tmp_path, command, content, needle):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    rc, out, err = _run(monkeypatch, capsys, [command, str(path)])
    assert rc == 1 and out == ""
    _one_error_line(err, needle, str(path))


@pytest.mark.parametrize("command", ["show", "replay"])
def test_a_missing_file_is_one_line(monkeypatch, capsys, tmp_path, command):
    rc, _, err = _run(monkeypatch, capsys, [command, str(tmp_path / "nope.json")])
    assert rc == 1
    _one_error_line(err, "No such file or directory", "nope.json")


def test_show_with_a_state_of_the_wrong_types_is_one_line(monkeypatch, capsys, tmp_path):
    state = Game.new("core-2p", 1).to_dict()
    for key in list(state)[:6]:
        bad = dict(state)
        bad[key] = {"nested": [1.5]}
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        rc, _, err = _run(monkeypatch, capsys, ["show", str(path)])
        assert rc == 1, key
        _one_error_line(err, "not a valid state")


def test_bench_rejects_an_unknown_preset_before_measuring_anything(monkeypatch, capsys):
    import bc_env.bench.engine as engine

    def no_bench(*_args):
        raise AssertionError("benchmarked before checking the presets")

    monkeypatch.setattr(engine, "bench_preset", no_bench)
    rc, out, err = _run(monkeypatch, capsys, ["bench", "--seconds", "0.01", "--presets", "core-2p", "nosuch"])
    assert rc == 1 and out == ""
    _one_error_line(err, "unknown preset 'nosuch'")


@pytest.mark.parametrize("seconds", ["-1", "0", "nan", "inf"])
def test_bench_rejects_a_duration_that_is_not_positive(monkeypatch, capsys, seconds):
    rc, out, err = _run(monkeypatch, capsys, ["bench", "--seconds", seconds, "--presets", "core-2p"])
    assert rc == 1 and out == ""
    _one_error_line(err, "--seconds must be a positive number")


def test_ctrl_c_in_play_exits_130_without_a_traceback(monkeypatch, capsys):
    class Interrupting(io.StringIO):
        def readline(self, *args):
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Interrupting())
    assert main(["play", "--config", "core-2p", "--opponents", "random"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


def test_ctrl_c_in_match_exits_130(monkeypatch, capsys):
    import benchmarking.runner

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(benchmarking.runner, "play_match", interrupted)
    rc, _, err = _run(monkeypatch, capsys, ["match", "--games", "2"])
    assert rc == 130 and "interrupted" in err


def test_ctrl_c_in_a_real_process_is_a_clean_exit():
    """SIGINT to ``play`` waiting for a move ends it with status 130, a short message and no traceback."""
    import signal

    proc = subprocess.Popen(
        [sys.executable, "-m", "balance_control", "play", "--config", "core-2p", "--opponents", "random"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A shell that runs the tests in the background ignores SIGINT, and children inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = proc.stdout.readline()  # the game has started: the process waits for input
    assert "you are P0" in first
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # before communicate(), which closes stdin (an end of input would end play too)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err


def test_a_multi_line_error_prints_as_one_line(monkeypatch, capsys):
    from bc_env.rules import StateError

    def broken(*_args):
        raise StateError("first line\nsecond line")

    monkeypatch.setattr("balance_control.commands.replay.load_replay", broken)
    rc, _, err = _run(monkeypatch, capsys, ["replay", "x.json"])
    assert rc == 1
    _one_error_line(err, "first line second line")


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("balance-control ")


# ----------------------------------------------------------------------------------- train
def test_train_requires_a_config(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["train"])
    assert exc.value.code == 2
    assert "--config" in capsys.readouterr().err


def test_train_without_the_extras_prints_an_install_hint(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "training.train", None)  # importing it raises ImportError
    rc = main(["train", "--config", "configs/train/tiny.toml"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("balance-control: error: training needs the [train] extra") and err.count("\n") == 1
    assert "training needs the [train] extra" in err and "pip install -e '.[train]'" in err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------------- legend and hex
def printable_codes(preset: str) -> set[str]:
    """Every cell code ``render_text`` can print for ``preset``: each tile's ``code`` (its catalogue), ``h*`` for a
    resolved Hotspot and ``..`` for a legal placement cell."""
    catalogue = build_catalogue(RulesConfig.preset(preset))
    return {spec.code for spec in catalogue} | {"..", "h*"}


def unexplained(legend: str, preset: str) -> list[str]:
    """The codes of ``preset`` that ``legend`` does not explain: a tile code or h*/.. on a line of its own, a resort
    tile's letter in the resorts line with its resort's name."""
    config = RulesConfig.preset(preset)
    resorts = re.search(r"^ +resorts: (.*)\.$", legend, re.M)
    assert resorts, legend
    missing = []
    for spec in build_catalogue(config):
        if spec.kind == RESORT:
            if f"{spec.code[0]} {config.resorts[spec.resort]}" not in resorts.group(1).split(", "):
                missing.append(spec.code)
        elif not re.search(rf"^  {re.escape(spec.code)}   \S", legend, re.M):
            missing.append(spec.code)
    missing += [code for code in ("h*", "..") if not re.search(rf"^  {re.escape(code)}   \S", legend, re.M)]
    return sorted(set(missing))


def test_the_board_prints_only_catalogue_codes():
    """What printable_codes derives is what the text board prints (a played all-6p game: every tile kind)."""
    game = Game.new("all-6p", 3)
    bot = policies.load("random", seed=3)
    while not game.is_terminal() and len(game.draw_pile) > 20:
        game.apply(bot.act(game))
    board = game.render().split("\n")
    rows = [line for line in board if re.match(r"^ {0,3}\d+ ", line)]
    cells = {cell.strip()[:2] for row in rows for cell in re.findall(r".{4}", row[5:].strip("\n")) if cell.strip()}
    assert len(cells) > 10 and cells <= printable_codes("all-6p"), cells - printable_codes("all-6p")


@pytest.mark.parametrize("preset", preset_names())
def test_legend_command_explains_every_code(monkeypatch, capsys, preset):
    """``legend`` explains every code any preset's board can print; ``legend --config`` those of its preset."""
    rc, out, _ = _run(monkeypatch, capsys, ["legend", "--config", preset])
    assert rc == 0 and unexplained(out, preset) == []
    rc, out, _ = _run(monkeypatch, capsys, ["legend"])
    assert rc == 0 and unexplained(out, preset) == []
    assert "D52 = DOM-W5 controlled by P2" in out and "controller" in out


def test_legend_follows_the_config(monkeypatch, capsys):
    _, out, _ = _run(monkeypatch, capsys, ["legend", "--config", "core-2p"])
    assert "Labor Market" not in out and "Lobbyist" in out


@pytest.mark.parametrize("argv", [["watch", "--config", "core-2p", "--final-only", "--legend"]])
def test_legend_option(monkeypatch, capsys, argv):
    rc, out, _ = _run(monkeypatch, capsys, argv)
    assert rc == 0 and "Board legend" in out


def test_show_with_legend(monkeypatch, capsys, tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(Game.new("core-2p", 3).to_dict()), encoding="utf-8")
    rc, out, _ = _run(monkeypatch, capsys, ["show", str(path), "--legend"])
    assert rc == 0 and "Board legend" in out and "core-2p" in out


def test_play_help_points_to_the_legend(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert "legend" in out and "--save-replay" in out


def test_hex_tables_are_drawn_with_offset_rows():
    game = Game.new("core-4p-hex", 3)
    for _ in range(60):
        legal = game.legal_actions()
        game.apply(legal[len(legal) // 2])
    text = game.render()
    assert "hex table" in text
    rows = [line for line in text.splitlines()[3:] if line[:4].strip().isdigit()]
    assert len(rows) >= 3
    y0 = int(rows[0][:4])
    for line in rows:  # row y starts 2 characters (half a 4-character cell) right of row y-1
        assert line[5:].startswith(" " * (2 * (int(line[:4]) - y0)))
    square = Game.new("core-4p", 3).render()
    assert "hex table" not in square


def test_hex_cells_are_drawn_where_the_offset_layout_puts_them():
    """Reading the drawing back with the hex layout (cell x, y at 4x + 2y characters) finds exactly the Board
    tiles, so each cell sits between its two axial neighbours of the row above and of the row below."""
    game = Game.new("core-4p-hex", 5)
    for _ in range(80):
        legal = game.legal_actions()
        game.apply(legal[-1])
    while game.phase_name == "place_tile":  # no '..' placement marks in the drawing
        game.apply(game.legal_actions()[0])
    lines = game.render().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("     ") and line.split()[0].isdigit())
    x0 = int(lines[header].split()[0])
    rows = []
    for line in lines[header + 1 :]:
        if not line[:4].strip().isdigit():
            break
        rows.append(line)
    y0 = int(rows[0][:4])
    drawn = set()
    for line in rows:
        y = int(line[:4])
        body = line[5 + 2 * (y - y0) :]
        for k in range(0, len(body), 4):
            if body[k : k + 4].strip():
                drawn.add((x0 + k // 4, y))
    board = {tuple(int(v) for v in entry["cell"].split(",")) for entry in game.to_dict()["board"]}
    assert len(board) > 10 and drawn == board


# ----------------------------------------------------------------------------------- play
def test_an_illegal_action_string_is_explained(monkeypatch, capsys):
    rc, out, _ = _run(
        monkeypatch,
        capsys,
        ["play", "--config", "core-2p", "--opponents", "random"],
        stdin="pass\nplace-tile 0,0\nquit\n",
    )
    assert rc == 0
    first = next(line for line in out.splitlines() if "'pass' is not legal now" in line)
    assert "the decision now is place_tile (place the drawn tile" in first
    assert "which takes 'place-tile' actions" in first and "e.g. place-tile " in first
    second = next(line for line in out.splitlines() if "'place-tile 0,0' is not legal now" in line)
    assert "'place-tile' options are legal" in second


def test_hint_names_the_heuristic_bots_choice(monkeypatch, capsys):
    from policies import load

    game = Game.new("core-2p", 4)
    seat = game.current_player
    expected = game.action_to_string(load("heuristic", seed=4).act(game))
    rc, out, _ = _run(
        monkeypatch,
        capsys,
        ["play", "--config", "core-2p", "--seat", str(seat), "--opponents", "random", "--seed", "4"],
        stdin="hint\nquit\n",
    )
    assert rc == 0
    assert "hint: the heuristic bot would play option" in out and expected in out


def test_undo_goes_back_to_the_previous_decision_and_the_replay_forgets_it(monkeypatch, capsys, tmp_path):
    path = tmp_path / "game.json"
    argv = ["play", "--config", "core-2p", "--opponents", "random", "--seed", "6", "--save-replay", str(path)]
    rc, out, _ = _run(monkeypatch, capsys, argv, stdin="undo\n1\n1\nundo\nundo\n2\nquit\n")
    assert rc == 0
    assert "nothing to undo" in out
    assert out.count("undo: back to your decision before") == 2
    # Replaying the saved file: P0 took exactly one decision, option 2 of its first decision.
    doc = json.loads(path.read_text(encoding="utf-8"))
    game = Game.new("core-2p", 6)
    mine = []
    for text in doc["actions"]:
        action = game.string_to_action(text)
        if game.current_player == 0:
            mine.append((game.legal_actions().index(action), game.phase_name))
        game.apply(action)
    assert mine == [(1, "place_tile")]
    assert game.current_player == 0 and game.phase_name == "political"


def test_play_saves_a_replay_that_replays_the_same_game(monkeypatch, capsys, tmp_path):
    path = tmp_path / "full.json"
    argv = ["play", "--config", "core-2p", "--opponents", "random", "--seed", "3", "--save-replay", str(path)]
    rc, out, _ = _run(monkeypatch, capsys, argv, stdin="1\n" * 2000)
    assert rc == 0 and "result:" in out
    game = load_replay(path)
    assert game.is_terminal()
    assert game.render() in out


def test_play_save_command(monkeypatch, capsys, tmp_path):
    path = tmp_path / "mid.json"
    rc, out, _ = _run(
        monkeypatch, capsys, ["play", "--config", "core-2p", "--opponents", "random"], stdin=f"1\nsave {path}\nquit\n"
    )
    assert rc == 0 and f"replay saved to {path}" in out
    game = load_replay(path)
    assert not game.is_terminal() and game.current_player == 0


# ----------------------------------------------------------------------------------- watch and match
def test_watch_saves_a_replay(monkeypatch, capsys, tmp_path):
    path = tmp_path / "w.json"
    rc, out, _ = _run(
        monkeypatch, capsys, ["watch", "--config", "core-2p", "--seed", "2", "--final-only", "--save-replay", str(path)]
    )
    assert rc == 0
    assert load_replay(path).render().strip() == out.strip()


def test_match_saves_one_replay_per_game_in_a_directory(monkeypatch, capsys, tmp_path):
    folder = tmp_path / "replays"
    rc, _, _ = _run(monkeypatch, capsys, ["match", "--games", "3", "--seed", "4", "--save-replay", str(folder)])
    assert rc == 0
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["game-00000.json", "game-00001.json", "game-00002.json"]
    for i, f in enumerate(files):
        doc = json.loads(f.read_text(encoding="utf-8"))
        assert doc["seed"] == 4 + i
        assert load_replay(doc).is_terminal()


def test_match_saves_a_jsonl_file(monkeypatch, capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    rc, _, _ = _run(monkeypatch, capsys, ["match", "--games", "3", "--save-replay", str(path), "--bots", "random"])
    assert rc == 0
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [d["seed"] for d in docs] == [0, 1, 2]
    assert all(load_replay(d).is_terminal() for d in docs)


def test_match_json_and_csv(monkeypatch, capsys):
    base = ["match", "--config", "core-3p", "--bots", "heuristic,random,random", "--games", "6", "--seed", "0"]
    rc, out, _ = _run(monkeypatch, capsys, [*base, "--json"])
    data = json.loads(out)
    assert rc == 0 and data["games"] == 6 and data["config"] == "core-3p"
    assert [e["entrant"] for e in data["entrants"]] == ["heuristic", "random#1", "random#2"]
    assert sum(e["wins"] for e in data["entrants"]) == pytest.approx(6)
    rc, out, _ = _run(monkeypatch, capsys, [*base, "--csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and [r["entrant"] for r in rows] == ["heuristic", "random#1", "random#2"]
    assert [r["wins_fraction"] for r in rows] == [e["wins_fraction"] for e in data["entrants"]]
    assert sum(Fraction(float(r["wins"])).limit_denominator(60) for r in rows) == 6


@pytest.mark.parametrize(
    ("wins", "text"),
    [(Fraction(214), "214"), (Fraction(643, 3), "214 1/3"), (Fraction(1, 2), "1/2"), (Fraction(0), "0")],
)
def test_wins_print_as_readable_fractions(wins, text):
    assert format_wins(wins) == text


def test_match_table_shows_fractions(monkeypatch, capsys):
    rc, out, _ = _run(
        monkeypatch, capsys, ["match", "--config", "core-3p", "--bots", "heuristic,random,random", "--games", "6"]
    )
    assert rc == 0
    assert "| heuristic | 6 | 5 1/2 |" in out and "| random#1 | 6 | 1/2 |" in out


# ----------------------------------------------------------------------------------- replay files
@pytest.fixture
def replay_doc():
    from bc_env.rules import record

    game = Game.new("core-2p", 5)
    actions = []
    for _ in range(12):
        a = game.legal_actions()[0]
        game.apply(a)
        actions.append(a)
    return record(game, 5, actions)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xc3\x28", "not UTF-8 text"),
        (b'{"format": "balance-control-replay",', "not valid JSON"),
        (b"[" * 50_000, "nested too deeply"),
        (b"9" * 5000, "not a readable JSON document"),
    ],
)
def test_load_replay_raises_state_error_on_a_bad_file(tmp_path, content, message):
    from bc_env.rules import StateError

    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(StateError, match=message) as exc:
        load_replay(path)
    assert str(path) in str(exc.value)


@pytest.mark.parametrize(
    ("edit", "error", "message"),
    [
        (lambda d: d.update(config=[1]), "StateError", r"replay\.config must be an object"),
        (lambda d: d.update(result={"winners": "P0"}), "StateError", r"replay\.result\.winners must be a list"),
        (lambda d: d.update(result={"returns": 1.0}), "StateError", r"replay\.result\.returns must be a list"),
        (lambda d: d["actions"].__setitem__(0, True), "IllegalActionError", r"#0 \(True\).*not bool"),
        (lambda d: d["actions"].__setitem__(1, 3.0), "IllegalActionError", r"#1 \(3\.0\).*not float"),
        (lambda d: d["actions"].__setitem__(2, None), "IllegalActionError", r"#2 \(None\).*not NoneType"),
        (lambda d: d["actions"].__setitem__(3, ["place 7,6"]), "IllegalActionError", r"#3 .*not list"),
    ],
)
def test_load_replay_names_wrong_types(replay_doc, edit, error, message):
    import bc_env.rules as rules

    edit(replay_doc)
    with pytest.raises(getattr(rules, error), match=message):
        load_replay(replay_doc)
