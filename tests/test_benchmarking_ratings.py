"""Ratings (benchmarking/ratings.py) on hand-made results: OpenSkill Plackett-Luce updates, shared victories as
ties, a bot in several seats ranked by its best seat, the pairwise score matrix."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from benchmarking.ratings import bot_ranks, leaderboard, pairwise, rate, seat_ranks
from benchmarking.runner import wilson_interval


def game(seats, influence):
    best = max(influence)
    return {"seats": seats, "influence": influence, "winners": [s for s, x in enumerate(influence) if x == best]}


def test_seat_ranks_follow_influence_with_ties_sharing():
    assert seat_ranks([7, 3, 7, 5]) == [1, 4, 1, 3]
    assert bot_ranks(game(["a", "b", "a", "c"], [2, 7, 5, 1])) == {"a": 2, "b": 1, "c": 4}


def test_one_game_matches_openskill_plackett_luce():
    ratings = {r.name: r for r in rate([game(["a", "b", "c"], [7, 3, 5])])}
    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a2], [b2], [c2]] = model.rate([[a], [b], [c]], ranks=[1, 3, 2])
    assert ratings["a"].mu == pytest.approx(a2.mu) and ratings["a"].sigma == pytest.approx(a2.sigma)
    assert ratings["b"].mu == pytest.approx(b2.mu) and ratings["c"].mu == pytest.approx(c2.mu)
    assert ratings["a"].mu > ratings["c"].mu > ratings["b"].mu
    assert all(r.sigma < 25 / 3 for r in ratings.values())  # every game makes the ratings surer


def test_a_shared_victory_is_a_tie():
    ratings = {r.name: r for r in rate([game(["a", "b", "c"], [7, 7, 2])])}
    assert ratings["a"].mu == pytest.approx(ratings["b"].mu)
    assert ratings["a"].mu > 25 > ratings["c"].mu
    assert ratings["a"].wins == pytest.approx(0.5) and ratings["c"].wins == 0


def test_stronger_bot_leads_and_intervals_shrink_with_games():
    games = [game(["strong", "weak"], [7, 4]) if i % 4 else game(["weak", "strong"], [7, 5]) for i in range(40)]
    few = {r.name: r for r in rate(games[:4])}
    many = rate(games)
    assert [r.name for r in many] == ["strong", "weak"]
    assert many[0].sigma < few["strong"].sigma
    assert many[0].win_rate == pytest.approx(30 / 40)
    assert many[0].win_ci == wilson_interval(30, 40)
    table = leaderboard(many)
    assert table.splitlines()[2].startswith("| 1 | strong |") and "75.0%" in table


def test_rating_order_depends_only_on_the_records_given():
    games = [game(["a", "b", "c"], [i % 3, (i + 1) % 3, 2]) for i in range(9)]
    assert [(r.name, r.mu) for r in rate(games)] == [(r.name, r.mu) for r in rate(list(games))]
    assert {r.name for r in rate([], bots=["x"])} == {"x"}


def test_pairwise_matrix_scores_and_intervals():
    games = [
        game(["a", "b", "c"], [7, 3, 5]),  # a>c>b
        game(["b", "a", "c"], [7, 7, 1]),  # a=b>c
        game(["a", "b"], [2, 6]),  # b>a
    ]
    m = pairwise(games, ["a", "b", "c"])
    ab = m.get("a", "b")
    assert (ab.games, ab.score, ab.wins, ab.draws, ab.losses) == (3, 1.5, 1, 1, 1)
    assert m.get("b", "a").score == 1.5
    assert m.get("a", "c").mean == 1.0 and m.get("c", "b").mean == 0.5
    assert m.get("a", "c").ci95 == wilson_interval(2, 2)
    rows = m.table().splitlines()
    assert rows[0] == "| row vs column | a | b | c |"
    assert rows[2].startswith("| a | — | 50.0% (")
