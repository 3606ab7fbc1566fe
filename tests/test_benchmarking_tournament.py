"""Tournaments (benchmarking/tournament.py): the schedule permutes seats, a resumed tournament equals an
uninterrupted one, logs replay, malformed logs are rejected with a TournamentLogError naming file and line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import benchmarking.runner as runner
from balance_control.cli import main
from bc_env.rules import RulesConfig, load_replay
from bc_env.rules.errors import BalanceControlError
from benchmarking import TournamentError, TournamentLogError
from benchmarking.ratings import rate
from benchmarking.tournament import TournamentSpec, lineups, read_log, run_tournament, schedule

CORE2 = RulesConfig.preset("core-2p")
CORE4 = RulesConfig.preset("core-4p")
#: 6 core-2p games (3 lineups x 2 seats), ~1 s with one worker.
SMALL = TournamentSpec(("random", "heuristic", "expert"), (CORE2,), 6, seed=3)


# ------------------------------------------------------------------------------------------ schedule
def test_seats_are_permuted_so_every_bot_sits_in_every_seat_equally_often():
    bots = ("a", "b", "c", "d", "e")
    assert len(lineups(5, 4)) == 5
    spec = TournamentSpec(bots, (CORE4,), 20, seed=1)  # one full round: 5 lineups x 4 rotations
    games = schedule(spec)
    assert len(games) == 20
    per_seat = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert set(per_seat.values()) == {4}  # each bot: in 4 of the 5 lineups, every seat once per lineup
    for block in range(5):  # a block is one deal (one engine seed) played from every rotation
        part = games[4 * block : 4 * block + 4]
        assert len({g.seed for g in part}) == 1
        assert {g.seats[0] for g in part} == set(part[0].seats)


def test_fewer_bots_than_seats_repeat_each_bot_equally_often():
    spec = TournamentSpec(("x", "y", "z"), (CORE4,), 12, seed=0)
    games = schedule(spec)
    per_seat = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert len(per_seat) == 12 and len(set(per_seat.values())) == 1


def test_a_lineup_that_repeats_itself_plays_each_distinct_rotation_once():
    mirror = schedule(TournamentSpec(("x",), (CORE4,), 3, seed=0))
    assert [g.seats for g in mirror] == [("x",) * 4] * 3 and [g.seed for g in mirror] == [0, 1, 2]  # a deal each
    pairs = schedule(TournamentSpec(("x", "y"), (CORE4,), 16, seed=0))
    for seed in {g.seed for g in pairs}:
        block = [g.seats for g in pairs if g.seed == seed]
        assert len(set(block)) == len(block) in (2, 4)  # A,B,A,B has 2 distinct rotations; A,A,B,B has 4
        per_seat = Counter((name, s) for seats in block for s, name in enumerate(seats))
        assert set(per_seat.values()) == {len(block) // 2}


def test_schedule_is_a_function_of_the_spec_and_games_round_up_to_whole_blocks():
    spec = TournamentSpec(("a", "b", "c", "d"), (CORE4,), 5, seed=9)
    assert spec.total_games == 8
    assert schedule(spec) == schedule(TournamentSpec(("a", "b", "c", "d"), (CORE4,), 5, seed=9))
    other = schedule(TournamentSpec(("a", "b", "c", "d"), (CORE4,), 5, seed=10))
    assert [g.seats for g in other] != [g.seats for g in schedule(spec)]
    bot_seeds = [s for g in schedule(spec) for s in g.bot_seeds]
    assert len(set(bot_seeds)) == len(bot_seeds)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"bots": ()}, "at least one bot"), ({"games": 0}, "games must be"), ({"seed": -1}, "seed must be")],
)
def test_bad_specs_are_rejected(kwargs, match):
    args = {"bots": ("random",), "configs": (CORE2,), "games": 2, "seed": 0} | kwargs
    with pytest.raises(TournamentError, match=match):
        TournamentSpec(**args)


# ------------------------------------------------------------------------------------------ running and resuming
@pytest.fixture(scope="module")
def full_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("t") / "full.jsonl"
    run_tournament(SMALL, path, workers=1)
    return path


def _lines(path: Path) -> list[dict]:
    return sorted((json.loads(x) for x in path.read_text().splitlines()[1:]), key=lambda r: r["index"])


def test_log_has_header_and_every_game_with_a_replay(full_log):
    log = read_log(full_log)
    assert log.complete and log.spec == SMALL
    for rec in log.ordered():
        game = load_replay(rec["replay"])  # checks the recorded winners and returns
        assert game.winners() == rec["winners"]
        assert list(game.on_board) == rec["influence"]
        assert rec["decisions"] == len(rec["replay"]["actions"])
        assert sum(rec["rules"].values()) == len(game.events)
        assert rec["start_player"] == next(e["player"] for e in game.events if e["type"] == "start-player")


def test_resume_plays_only_missing_games_and_gives_the_same_results(full_log, tmp_path, monkeypatch):
    full = full_log.read_text().splitlines()
    # An interrupted parallel run: games 0, 1, 3 finished (out of order), game 4 cut off mid-write.
    partial = tmp_path / "partial.jsonl"
    rec4 = next(x for x in full[1:] if json.loads(x)["index"] == 4)
    kept = [x for x in full[1:] if json.loads(x)["index"] in (3, 0, 1)]
    partial.write_text("\n".join([full[0], *kept, rec4[: len(rec4) // 2]]))
    log = read_log(partial)
    assert sorted(log.games) == [0, 1, 3] and log.cut_tail

    played = []
    real = runner.play_scheduled

    def counting(g):
        played.append(g.index)
        return real(g)

    monkeypatch.setattr(runner, "play_scheduled", counting)
    resumed = run_tournament(None, partial, resume=True, workers=1)
    assert sorted(played) == [2, 4, 5]
    assert _lines(partial) == _lines(full_log)
    as_json = [json.dumps(r) for r in resumed.ordered()]
    assert as_json == [json.dumps(r) for r in read_log(full_log).ordered()]
    ratings = [(r.name, r.mu, r.sigma) for r in rate(resumed.ordered())]
    assert ratings == [(r.name, r.mu, r.sigma) for r in rate(read_log(full_log).ordered())]
    # A finished tournament resumes to itself without playing anything.
    played.clear()
    run_tournament(None, partial, resume=True, workers=1)
    assert played == []


def test_two_workers_give_the_same_records_as_one(full_log, tmp_path):
    path = tmp_path / "two.jsonl"
    run_tournament(SMALL, path, workers=2)
    assert _lines(path) == _lines(full_log)


def test_stop_sees_games_in_index_order_and_ends_the_run(tmp_path):
    seen = []

    def stop(rec):
        seen.append(rec["index"])
        return len(seen) == 3

    log = run_tournament(SMALL, tmp_path / "s.jsonl", workers=2, stop=stop)
    assert seen == [0, 1, 2]
    assert {0, 1, 2} <= set(log.games)


def test_existing_log_needs_resume_and_the_same_spec(full_log, tmp_path):
    with pytest.raises(TournamentLogError, match="exists: pass resume"):
        run_tournament(SMALL, full_log, workers=1)
    other = TournamentSpec(("random", "heuristic"), (CORE2,), 6, seed=3)
    with pytest.raises(TournamentLogError, match="another tournament"):
        run_tournament(other, full_log, resume=True, workers=1)
    with pytest.raises(TournamentLogError, match="nothing to resume"):
        run_tournament(None, tmp_path / "none.jsonl", resume=True, workers=1)


def test_unknown_bot_or_a_trained_bot_on_another_preset_is_refused(tmp_path):
    with pytest.raises(TournamentError, match="unknown policy 'nobody'"):
        run_tournament(TournamentSpec(("random", "nobody"), (CORE2,), 2), tmp_path / "a.jsonl", workers=1)
    with pytest.raises(TournamentError, match="trained for rules core-2p"):
        run_tournament(TournamentSpec(("random", "ppo-core-2p"), (CORE4,), 4), tmp_path / "b.jsonl", workers=1)
    assert not (tmp_path / "a.jsonl").exists() and not (tmp_path / "b.jsonl").exists()  # nothing left behind


# ------------------------------------------------------------------------------------------ malformed logs
def _mutate(full_log: Path, tmp_path: Path, change) -> Path:
    lines = full_log.read_text().splitlines()
    lines = change(lines)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _edit_game(n: int, **fields):
    def change(lines):
        rec = json.loads(lines[n])
        rec.update(fields)
        for k, v in fields.items():
            if v is None:
                del rec[k]
        lines[n] = json.dumps(rec)
        return lines

    return change


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda ls: ["not json", *ls[1:]], r"bad.jsonl:1: not a tournament log: header: not valid JSON"),
        (lambda ls: [json.dumps({"format": "x"}), *ls[1:]], r"bad.jsonl:1: not a tournament log"),
        (lambda ls: [ls[0].replace('"version": 1', '"version": 7'), *ls[1:]], "unsupported tournament log version 7"),
        (lambda ls: [ls[0].replace('"games": 6', '"games": "6"'), *ls[1:]], r"header.games is missing or not a int"),
        (lambda ls: [ls[0].replace('"players": 2', '"players": 9'), *ls[1:]], r"header: players must be in 2..6"),
        (lambda ls: [ls[0], "{broken", *ls[1:]], r"bad.jsonl:2: not valid JSON"),
        (lambda ls: [*ls, ls[2]], r"game \d appears twice"),
        (lambda ls: [ls[0], "[1, 2]", *ls[1:]], r"bad.jsonl:2: not a game record"),
        (_edit_game(1, winners=None), r"bad.jsonl:2: game record has no 'winners'"),
        (_edit_game(1, index=99), "game index 99 is not in this tournament's schedule"),
        (_edit_game(1, seats=["expert", "expert"]), r"seats \['expert', 'expert'\] does not match the schedule"),
        (_edit_game(1, seed=12345), "seed 12345 does not match the schedule"),
        (_edit_game(1, winners=[5]), "winners must be seats 0..1"),
        (_edit_game(1, influence=[1, 2, 3]), "influence and returns need 2 entries"),
        (_edit_game(1, influence=[0, 0], winners=[0]), r"winners \[0\] are not the seats with the most Influence"),
        (_edit_game(1, rounds="many"), "game.rounds has the wrong type"),
        (_edit_game(1, start_player=2), "start_player must be a seat 0..1"),
        (_edit_game(1, measures=[["steal-measure", 0, "EXP-01-M01"]]), "malformed Measure event"),
    ],
)
def test_malformed_logs_are_rejected_with_a_clear_error(full_log, tmp_path, change, match):
    path = _mutate(full_log, tmp_path, change)
    with pytest.raises(TournamentLogError, match=match) as info:
        read_log(path)
    assert isinstance(info.value, BalanceControlError)
    with pytest.raises(SystemExit) as exited:  # and the command line says so in one line
        main(["rate", str(path)])
    assert str(exited.value).startswith("balance-control: error: ") and "Traceback" not in str(exited.value)


def test_missing_empty_and_binary_logs(tmp_path):
    with pytest.raises(TournamentLogError, match="cannot read tournament log"):
        read_log(tmp_path / "missing.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(TournamentLogError, match="empty file"):
        read_log(tmp_path / "empty.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TournamentLogError, match="not UTF-8"):
        read_log(tmp_path / "bin.jsonl")


# ------------------------------------------------------------------------------------------ command line
def test_cli_tournament_resume_rate_and_replay(tmp_path, capsys):
    log = tmp_path / "cli.jsonl"
    argv = ["tournament", "--bots", "random,heuristic", "--config", "core-2p", "--games", "4", "--seed", "5"]
    assert main([*argv, "--log", str(log), "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "4 of 4 games" in out and "| 1 | heuristic |" in out and "Pairwise score" in out
    with pytest.raises(SystemExit, match="exists: pass resume"):
        main([*argv, "--log", str(log), "--workers", "1"])
    assert main(["tournament", "--log", str(log), "--resume", "--workers", "1"]) == 0
    assert "4 of 4 games" in capsys.readouterr().out
    assert main(["rate", str(log)]) == 0
    assert "## core-2p: 4 games" in capsys.readouterr().out
    assert main(["replay", str(log), "--game", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 2: core-2p, seed 6,")
    with pytest.raises(SystemExit, match=r"balance-control: error: .*pick a game with --game N"):
        main(["replay", str(log)])
    with pytest.raises(SystemExit, match="has no finished game 9"):
        main(["replay", str(log), "--game", "9"])
    with pytest.raises(SystemExit, match="--bots is required"):
        main(["tournament", "--log", str(tmp_path / "x.jsonl")])
    with pytest.raises(SystemExit, match="unknown policy 'nobody'"):
        main(["tournament", "--bots", "random,nobody", "--log", str(tmp_path / "y.jsonl"), "--workers", "1"])
