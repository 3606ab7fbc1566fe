"""Paired deals (benchmarking/paired.py, ``match --paired``, ``tournament --paired``): the schedule, the last-turn
seat, and the per-seat rates, conversion and pentanomial counts on hand-built games with known answers."""

from __future__ import annotations

import json
import math

import pytest

from balance_control.cli import main
from bc_env.rules import Game, RulesConfig
from benchmarking.paired import DealGame, summarize, summarize_match
from benchmarking.runner import EntrantStats, entrant_seats, last_turn_seat, match_schedule, play_match
from policies import RandomPolicy


def _games() -> list[DealGame]:
    """Three deals of A against B, each with the seats swapped (seat 0 starts on deals 0-1, seat 1 on deal 2)."""
    return [
        DealGame(0, ("A", "B"), (0,), 0, 0),  # A converts from the last-turn seat
        DealGame(0, ("B", "A"), (0, 1), 0, 0),  # shared: A's pair scores 1 + 1/2 -> 3/4
        DealGame(1, ("A", "B"), (0, 1), 0, 0),
        DealGame(1, ("B", "A"), (0, 1), 0, 0),  # two shared victories -> 1/2
        DealGame(2, ("A", "B"), (1,), 1, 1),  # B converts from the last-turn seat (seat 1 started)
        DealGame(2, ("B", "A"), (1,), 1, 1),  # A converts -> 0 + 1 -> 1/2
    ]


def test_known_answers_on_hand_built_deals():
    s = summarize(_games())
    assert (s.players, s.deals, s.games) == (2, 3, 6)
    a, b = s.bots
    assert a.name == "A" and b.name == "B"
    # A on the last-turn seat: deal 0 outright, deal 1 shared, deal 2 outright: conversion 2/3.
    assert (a.last_turn.games, a.last_turn.outright, a.last_turn.shared, a.last_turn.lost) == (3, 2, 1, 0)
    # A on the other seat: shared, shared, lost: loss rate 1/3.
    assert (a.other.games, a.other.outright, a.other.shared, a.other.lost) == (3, 0, 2, 1)
    d = s.to_dict()["bots"][0]
    assert d["conversion_from_last_turn"] == pytest.approx(2 / 3, abs=1e-6)
    assert d["loss_rate_from_other_seat"] == pytest.approx(1 / 3, abs=1e-6)
    # Position 0 is the start player: A started in deals 0-1 game 1 and deal 2 game 2.
    assert a.by_position[0].games == 3 and a.by_position[0].outright == 2
    assert float(a.total.score) == pytest.approx(3.5) and float(b.total.score) == pytest.approx(2.5)
    assert a.deal_scores == [0.75, 0.5, 0.5]
    (pair,) = s.pairs
    assert (pair.a, pair.b, pair.counts) == ("A", "B", [0, 0, 2, 1, 0])
    assert pair.score == pytest.approx(7 / 12)
    # Pentanomial variance: 2/3 (1/2 - 7/12)^2 + 1/3 (3/4 - 7/12)^2 = 1/72 per pair; stderr sqrt(1/72 / 3).
    assert pair.stderr == pytest.approx(math.sqrt(1 / 216))
    assert "conversion from the last-turn seat 66.7%" in s.table()


def test_a_mirror_pair_is_not_counted_and_player_counts_are_not_mixed():
    s = summarize([DealGame(0, ("A", "A"), (0,), 0, 0), DealGame(0, ("A", "A"), (1,), 0, 0)])
    assert s.pairs == [] and s.bots[0].total.games == 4
    with pytest.raises(ValueError, match="one player count"):
        summarize([DealGame(0, ("A", "B"), (0,), 0, 0), DealGame(1, ("A", "B", "C"), (0,), 0, 0)])


def test_the_paired_schedule_plays_each_deal_in_every_rotation():
    cfg = RulesConfig.preset("core-4p")
    games = match_schedule(cfg, ["a", "b", "c", "d"], 8, 10, paired=True)
    assert [g.seed for g in games] == [10, 10, 10, 10, 11, 11, 11, 11]
    for deal in (games[:4], games[4:]):
        assert sorted(g.seats.index("a") for g in deal) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="multiple of 4"):
        match_schedule(cfg, ["a", "b", "c", "d"], 6, 10, paired=True)


@pytest.mark.parametrize(("preset", "offset"), [("core-2p", 0), ("core-4p", 2)])
def test_the_last_turn_is_turn_71_of_the_start_player_order(preset, offset):
    """71 tiles, one drawn per turn (CORE-01-04-04): the seat (start + 70) mod n takes the last turn when no
    tile was discarded: the start player in 2 players, the third in turn order in 4."""
    cfg = RulesConfig.preset(preset)
    for seed in range(3):
        game = Game.new(cfg, seed)
        bot = RandomPolicy(seed=seed)
        while not game.is_terminal():
            game.apply(bot.act(game))
        draws = sum(e["type"] == "draw" for e in game.events)
        start = next(e["player"] for e in game.events if e["type"] == "start-player")
        assert draws == 71
        assert last_turn_seat(game) == (start + offset) % cfg.players == (start + draws - 1) % cfg.players


def test_a_paired_match_swaps_the_seats_on_every_deal():
    match = play_match("core-2p", ["random", "heuristic"], 3, 4, paired=True)
    assert match.games == 4 and [r.seed for r in match.results] == [4, 4, 5, 5]
    assert [r.seats for r in match.results] == [["random", "heuristic"], ["heuristic", "random"]] * 2
    s = summarize_match(match)
    assert s.deals == 2 and sum(b.total.games for b in s.bots) == 8 and s.pairs[0].pairs == 2


def test_match_paired_json_and_errors(capsys, tmp_path):
    assert main(["match", "--bots", "random,heuristic", "--games", "2", "--seed", "1", "--paired", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    bots = {b["bot"]: b for b in doc["paired"]["bots"]}
    assert doc["paired"]["deals"] == 1 and set(bots) == {"random", "heuristic"}
    assert {"conversion_from_last_turn", "loss_rate_from_other_seat", "by_position"} <= set(bots["heuristic"])
    h = bots["heuristic"]
    assert h["conversion_from_last_turn_ci95"] == h["last_turn_seat"]["outright_ci95"]
    assert h["loss_rate_from_other_seat_ci95"] == h["other_seats"]["lost_ci95"]
    times = [{k: e[k] for k in e if k.startswith("decision_cpu_ms_")} for e in doc["entrants"]]
    assert all(t["decision_cpu_ms_median"] <= t["decision_cpu_ms_p99"] <= t["decision_cpu_ms_max"] for t in times)
    with pytest.raises(SystemExit, match="--paired rotates the seats"):
        main(["match", "--games", "2", "--paired", "--fixed-seats"])


def test_tournament_paired_prints_the_paired_evaluation(capsys, tmp_path):
    log = tmp_path / "t.jsonl"
    argv = ["tournament", "--bots", "random,heuristic", "--games", "4", "--seed", "2", "--log", str(log)]
    assert main([*argv, "--workers", "1", "--paired"]) == 0
    out = capsys.readouterr().out
    assert "## core-2p [t.jsonl]: paired deals" in out and "random vs heuristic: 2 pairs" in out
    assert "conversion from the last-turn seat" in out
    assert main(["rate", str(log), "--paired"]) == 0  # the same tables from the log
    head = "## core-2p [t.jsonl]: paired deals"
    assert capsys.readouterr().out.split(head)[1] == out.split(head)[1]


def test_cpu_time_quantiles_per_entrant():
    e = EntrantStats("x", cpu=[k / 1000 for k in range(200, 0, -1)])  # 1 .. 200 ms, unsorted
    assert (e.cpu_ms(0.5), e.cpu_ms(0.99), e.cpu_ms(1.0)) == pytest.approx((100.5, 199.0, 200.0))
    assert math.isnan(EntrantStats("y").cpu_ms(0.5))


def test_a_paired_4p_match_reports_the_bot_against_the_rest_with_its_cpu_times():
    """What issue 27's measurements read: one bot against the same bot in every other seat, on paired deals."""
    match = play_match("core-4p", ["heuristic", "random", "random", "random"], 4, 9, paired=True)
    seat_of = [entrant_seats(r.index, 4)[0] for r in match.results]
    assert sorted(seat_of) == [0, 1, 2, 3]
    mine = [t for r, s in zip(match.results, seat_of) for t in r.cpu[s]]
    row = match.rows()[0]
    assert row["entrant"] == "heuristic" and row["decision_cpu_ms_max"] == pytest.approx(1000 * max(mine), abs=1e-4)
    assert "decision CPU ms (median / p99 / max)" in match.table()
    s = summarize_match(match)
    assert [b.name for b in s.bots] == ["heuristic", "random#1", "random#2", "random#3"]
    h = s.bots[0]
    assert (h.last_turn.games, h.other.games) == (
        sum(r.last_turn == s_ for r, s_ in zip(match.results, seat_of)),
        4 - h.last_turn.games,
    )
    d = s.to_dict()["bots"][0]
    assert d["conversion_from_last_turn"] == pytest.approx(h.last_turn.rate("outright"), abs=1e-6)
    assert d["loss_rate_from_other_seat_ci95"] == [pytest.approx(x, abs=1e-6) for x in h.other.ci("lost")]
    assert "heuristic: deal score" in s.table() and "loss rate from the other seats" in s.table()
