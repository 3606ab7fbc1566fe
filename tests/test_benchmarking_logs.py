"""Logs under abuse (issue 30, items 6-8): a resume never joins lines, a record whose replay does not reproduce
it is refused by every reader (rate, replay --game, report, resume), non-finite numbers are refused, and the
SPRT's bounds are checked before any game is played."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import benchmarking.runner as runner
from balance_control.cli import main
from bc_env.rules import RulesConfig
from benchmarking import TournamentError, TournamentLogError
from benchmarking.runner import MatchFileError, play_match_file, read_match_file
from benchmarking.sprt import SPRT
from benchmarking.tournament import TournamentSpec, read_log, run_tournament

SPEC = TournamentSpec(("random", "heuristic"), (RulesConfig.preset("core-2p"),), 4, seed=3)


@pytest.fixture(scope="module")
def full_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("logs") / "full.jsonl"
    run_tournament(SPEC, path, workers=1)
    return path


def _copy(full_log: Path, tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    shutil.copy(full_log, path)
    return path


def _fail(argv: list[str], capsys) -> str:
    """The one-line error of a command that must refuse its input."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    capsys.readouterr()
    assert isinstance(exc.value.code, str) and exc.value.code.startswith("balance-control: error: ")
    return exc.value.code


# ---------------------------------------------------------------------------- 6: a resume never joins lines
def test_resume_after_the_final_newline_was_cut_completes_the_line_and_replays_nothing(full_log, tmp_path, monkeypatch):
    lines = full_log.read_text().splitlines()
    last = json.loads(lines[-1])["index"]
    path = tmp_path / "t.jsonl"
    # The log minus its last byte, the final newline, and minus one finished game, so the resume appends one.
    drop = lines[1]
    path.write_text("\n".join([x for x in lines if x != drop]))
    played = []
    real = runner.play_scheduled
    monkeypatch.setattr(runner, "play_scheduled", lambda g: played.append(g.index) or real(g))
    log = run_tournament(None, path, resume=True, workers=1)
    assert played == [json.loads(drop)["index"]] and last not in played
    assert sorted(path.read_text().splitlines()) == sorted(lines)  # every line whole, none joined
    assert path.read_text().endswith("\n") and len(log.games) == SPEC.total_games
    assert read_log(path).complete


def test_a_line_cut_mid_write_is_removed_before_the_resume_appends(full_log, tmp_path):
    lines = full_log.read_text().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines[:-1] + [lines[-1][:-7]]))
    run_tournament(None, path, resume=True, workers=1)
    assert sorted(path.read_text().splitlines()) == sorted(lines)


def test_open_log_for_append_repairs_or_drops_a_last_line_without_its_newline(tmp_path):
    path = tmp_path / "x.jsonl"
    for before, after in [
        ('{"a": 1}\n{"b": 2}', '{"a": 1}\n{"b": 2}\n{"c": 3}\n'),  # whole: its newline is restored
        ('{"a": 1}\n{"b": ', '{"a": 1}\n{"c": 3}\n'),  # cut: dropped
        ('{"a": 1}\n{"b": NaN}', '{"a": 1}\n{"c": 3}\n'),  # not a line any reader accepts: dropped
        ("", '{"c": 3}\n'),
    ]:
        path.write_text(before)
        with runner.open_log_for_append(path) as fh:
            fh.write('{"c": 3}\n')
        assert path.read_text() == after


def test_a_match_file_without_its_final_newline_resumes_without_joining_lines(tmp_path):
    path = tmp_path / "m.jsonl"
    play_match_file("core-2p", ["random", "random"], 5, 2, path)
    path.write_text(path.read_text()[:-1])
    play_match_file("core-2p", ["random", "random"], 5, 3, path)
    assert [r["i"] for r in read_match_file(path)] == [0, 1, 2]


# ---------------------------------------------------------------------------- 7: records that lie
def _tamper(path: Path, index: int, change) -> None:
    lines = path.read_text().splitlines()
    for k, line in enumerate(lines[1:], start=1):
        rec = json.loads(line)
        if rec["index"] == index:
            change(rec, {json.loads(x)["index"]: json.loads(x) for x in lines[1:]})
            lines[k] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")


def _swap_result(rec: dict, _all: dict) -> None:
    """Winners, Influence and returns swapped between the two seats: consistent with each other."""
    for key in ("influence", "returns"):
        rec[key] = rec[key][::-1]
    rec["winners"] = sorted(1 - w for w in rec["winners"])


def test_a_consistently_swapped_result_is_refused_by_rate_replay_report_and_resume(full_log, tmp_path, capsys):
    path = _copy(full_log, tmp_path)
    index = next(i for i, r in read_log(full_log).games.items() if len(r["winners"]) == 1)
    _tamper(path, index, _swap_result)
    message = f"game {index}: the record says winners"
    assert message in _fail(["rate", str(path)], capsys)
    assert message in _fail(["replay", str(path), "--game", str(index)], capsys)
    assert message in _fail(["report", str(path), "--out", str(tmp_path / "r")], capsys)
    with pytest.raises(TournamentLogError, match=message):
        run_tournament(None, path, resume=True, workers=1)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("other", [1, 2])  # 1: the same deal, the seats swapped; 2: another deal
def test_a_record_carrying_another_games_replay_is_refused(full_log, tmp_path, capsys, other):
    path = _copy(full_log, tmp_path)
    _tamper(path, 0, lambda rec, recs: rec.update(replay=recs[other]["replay"]))
    err = _fail(["replay", str(path), "--game", "0"], capsys)
    assert "game 0: " in err and ("its replay is of another game" in err or "its replay gives" in err)


def test_an_edited_replay_is_refused(full_log, tmp_path):
    path = _copy(full_log, tmp_path)
    _tamper(path, 0, lambda rec, _: rec["replay"]["actions"].pop())
    with pytest.raises(TournamentLogError, match="game 0: its replay does not load"):
        read_log(path)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_in_a_log_are_refused(full_log, tmp_path, number):
    path = _copy(full_log, tmp_path)
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"returns": [', f'"returns": [{number}, ', 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        TournamentLogError,
        match=rf"t.jsonl:2\.returns\[0\]: {re.escape(number)} is (not a JSON number|out of the range)",
    ):
        read_log(path)
    match_file = tmp_path / "m.jsonl"
    match_file.write_text(f'{{"i": 0, "wall": [{number}]}}\n')
    with pytest.raises(
        MatchFileError, match=rf"m.jsonl:1\.wall\[0\]: {re.escape(number)} is (not a JSON number|out of the range)"
    ):
        read_match_file(match_file)


# ---------------------------------------------------------------------------- 8: SPRT bounds
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--elo1", "100000"], "elo1 must be within +-1000 Elo"),
        (["--elo1", "inf"], "elo1 must be a finite number of Elo, got inf"),
        (["--elo1", "nan"], "elo1 must be a finite number of Elo, got nan"),
        (["--elo0=-inf"], "elo0 must be a finite number of Elo"),
        (["--elo0", "30", "--elo1", "30"], "elo1 must be greater than elo0"),
        (["--elo0", "50", "--elo1", "10"], "elo1 must be greater than elo0"),
        (["--alpha", "nan"], "alpha must be in (0, 0.5)"),
        (["--beta", "0.5"], "beta must be in (0, 0.5)"),
        (["--max-games", "0"], "max_games must be >= 1"),
    ],
)
def test_sprt_bounds_are_checked_before_any_game(tmp_path, capsys, options, message):
    log = tmp_path / "s.jsonl"
    err = _fail(["sprt", "--a", "random", "--b", "heuristic", "--log", str(log), "--workers", "1", *options], capsys)
    assert message in err
    assert not log.exists()


def test_the_largest_allowed_bounds_give_a_finite_ratio():
    test = SPRT(-1000, 1000)
    for deal in range(3):
        test.add(1.0, deal=deal)
        test.add(0.0, deal=deal)
    assert test.verdict is None or test.verdict in ("H0", "H1", "inconclusive")
    assert abs(test.llr) < 1e6
    with pytest.raises(TournamentError, match="elo0 must be within"):
        SPRT(-1000.5, 0)
