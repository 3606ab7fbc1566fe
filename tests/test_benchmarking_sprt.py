"""The sequential test (benchmarking/sprt.py): stops on synthetic bots of known strength with the right verdict
and error rates near alpha / beta; on real bots through the command line it stops and says why."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from balance_control.cli import main
from benchmarking import TournamentError
from benchmarking.sprt import SPRT, elo_to_score, llr, llr_pentanomial, score_to_elo


def synthetic_run(true_elo: float, seed: int, draw_rate: float = 0.1, **kwargs) -> SPRT:
    """Bot A against bot B with a known Elo difference: each game a draw with ``draw_rate``, else A wins with the
    probability that gives the score of ``true_elo``; games come two per deal."""
    test = SPRT(**kwargs)
    rng = random.Random(seed)
    s = elo_to_score(true_elo)
    p_win = (s - draw_rate / 2) / (1 - draw_rate)
    for i in itertools.count():
        if rng.random() < draw_rate:
            result = 0.5
        else:
            result = 1.0 if rng.random() < p_win else 0.0
        if test.add(result, deal=i // 2):
            return test
    raise AssertionError("unreachable")


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


@pytest.mark.parametrize("model", ["pentanomial", "trinomial"])
def test_error_rates_stay_near_alpha_and_beta(model):
    runs = 100
    false_h1 = sum(synthetic_run(0, seed=s, elo0=0, elo1=100, model=model).verdict == "H1" for s in range(runs))
    false_h0 = sum(
        synthetic_run(100, seed=10_000 + s, elo0=0, elo1=100, model=model).verdict == "H0" for s in range(runs)
    )
    assert false_h1 / runs <= 0.05 + 0.05 and false_h0 / runs <= 0.05 + 0.05  # 5% each, with sampling slack


def test_pentanomial_moves_when_a_deal_is_complete():
    test = SPRT(elo0=0, elo1=50)
    test.add(1.0, deal="a")
    test.add(0.5, deal="b")
    assert test.history == [] and test.pairs == [0] * 5
    test.add(0.5, deal="a")  # deal a: 1 + 1/2 -> a pair scoring 3/4
    test.add(0.0, deal="b")  # deal b: 1/2 + 0 -> 1/4
    assert test.pairs == [0, 1, 0, 1, 0] and len(test.history) == 2
    assert (test.wins, test.draws, test.losses) == (1, 2, 1)
    assert test.llr == pytest.approx(llr_pentanomial([0, 1, 0, 1, 0], 0, 50))
    with pytest.raises(TournamentError, match="pass deal="):
        test.add(1.0)


def test_trinomial_moves_on_every_game():
    test = SPRT(elo0=0, elo1=50, model="trinomial")
    test.add(1.0)
    test.add(0.5)
    assert len(test.history) == 2 and test.llr == pytest.approx(llr(1, 1, 0, 0, 50))


def test_max_games_ends_inconclusive_and_later_results_are_ignored():
    test = SPRT(elo0=0, elo1=5, max_games=20)
    for i in range(30):
        test.add(float(i % 2), deal=i // 2)
    assert test.verdict == "inconclusive" and test.games == 20
    assert "inconclusive: reached max_games 20" in test.reason()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"elo0": 10, "elo1": 5}, "elo1 must be greater"),
        ({"alpha": 0.7}, "alpha must be"),
        ({"max_games": 0}, "max_games"),
        ({"model": "binomial"}, "model must be one of pentanomial, trinomial"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(TournamentError, match=match):
        SPRT(**kwargs)
    with pytest.raises(TournamentError, match="1, 0.5 or 0"):
        SPRT().add(0.3, deal=0)


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
