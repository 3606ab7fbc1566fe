"""The sequential test (benchmarking/sprt.py): stops on synthetic bots of known strength with the right verdict
and error rates near alpha / beta; on real bots through the command line it stops and says why."""

from __future__ import annotations

import math
import random

import pytest

from balance_control.cli import main
from benchmarking import TournamentError
from benchmarking.sprt import SPRT, elo_to_score, llr, score_to_elo


def synthetic_run(true_elo: float, seed: int, draw_rate: float = 0.1, **kwargs) -> SPRT:
    """Bot A against bot B with a known Elo difference: each game a draw with ``draw_rate``, else A wins with the
    probability that gives the score of ``true_elo``."""
    test = SPRT(**kwargs)
    rng = random.Random(seed)
    s = elo_to_score(true_elo)
    p_win = (s - draw_rate / 2) / (1 - draw_rate)
    while True:
        if rng.random() < draw_rate:
            result = 0.5
        else:
            result = 1.0 if rng.random() < p_win else 0.0
        if test.add(result):
            return test


def test_elo_and_score_convert_both_ways():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(elo_to_score(123.0)) == pytest.approx(123.0)


def test_llr_is_near_zero_at_the_midpoint_and_grows_with_evidence():
    s0, s1 = elo_to_score(0), elo_to_score(50)
    mid = (s0 + s1) / 2
    assert abs(llr(mid * 1000, 0, (1 - mid) * 1000, 0, 50)) < 0.1  # ~0 halfway between the hypotheses
    assert llr(60, 0, 40, 0, 50) > 0 > llr(45, 0, 55, 0, 50)
    assert llr(600, 0, 400, 0, 50) > llr(60, 0, 40, 0, 50)
    assert math.isfinite(llr(5, 0, 0, 0, 50))


def test_a_clearly_stronger_bot_is_accepted_quickly():
    test = synthetic_run(200, seed=1, elo0=0, elo1=50)
    assert test.verdict == "H1" and test.games < 200
    assert "H1 accepted" in test.reason("A", "B") and f"over {test.games} games" in test.reason()


def test_an_equal_bot_is_rejected():
    test = synthetic_run(0, seed=2, elo0=0, elo1=50)
    assert test.verdict == "H0" and test.llr <= test.lower
    assert "H0 accepted" in test.reason()


def test_error_rates_stay_near_alpha_and_beta():
    runs = 120
    false_h1 = sum(synthetic_run(0, seed=s, elo0=0, elo1=100).verdict == "H1" for s in range(runs))
    false_h0 = sum(synthetic_run(100, seed=10_000 + s, elo0=0, elo1=100).verdict == "H0" for s in range(runs))
    assert false_h1 / runs <= 0.05 + 0.05 and false_h0 / runs <= 0.05 + 0.05  # 5% each, with sampling slack


def test_max_games_ends_inconclusive_and_later_results_are_ignored():
    test = SPRT(elo0=0, elo1=5, max_games=20)
    for i in range(30):
        test.add(float(i % 2))
    assert test.verdict == "inconclusive" and test.games == 20
    assert "inconclusive: reached max_games 20" in test.reason()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"elo0": 10, "elo1": 5}, "elo1 must be greater"),
        ({"alpha": 0.7}, "alpha must be"),
        ({"max_games": 0}, "max_games"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(TournamentError, match=match):
        SPRT(**kwargs)
    with pytest.raises(TournamentError, match="1, 0.5 or 0"):
        SPRT().add(0.3)


def test_cli_sprt_heuristic_against_random_stops_with_h1(tmp_path, capsys):
    log = tmp_path / "sprt.jsonl"
    argv = ["sprt", "--a", "heuristic", "--b", "random", "--elo0", "0", "--elo1", "100", "--max-games", "200"]
    assert main([*argv, "--log", str(log), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "H1 accepted: heuristic is stronger than random" in out
    used = int(out.split("games used: ")[1].split()[0])
    assert 2 <= used < 40
    # The same test on the log gives the same answer after the same games.
    assert main(["sprt", "--a", "heuristic", "--b", "random", "--elo1", "100", "--from-log", str(log)]) == 0
    assert f"games used: {used}" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="must be different bots"):
        main(["sprt", "--a", "random", "--b", "random"])
