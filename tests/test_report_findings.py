"""The balance report's findings (benchmarking/report.py) computed from hand-made logs with known answers, and
the economy and turns read from a real game's events."""

from __future__ import annotations

import pytest

from bc_env.rules import Game, RulesConfig
from benchmarking.report import build_report, collect, findings, game_facts, seat_findings
from benchmarking.runner import match_schedule, run_games
from benchmarking.tournament import game_record


def record(config: RulesConfig, winners, start=0, measures=(), influence=None, rules=None):
    """A log record without actions: everything the report reads but the economy."""
    n = config.players
    return {
        "config": config.name,
        "seats": ["random"] * n,
        "winners": list(winners),
        "influence": influence or [7 if s in winners else 5 for s in range(n)],
        "start_player": start,
        "rounds": 36,
        "decisions": 150,
        "rules": rules or {"CORE-01-09-03": 1},
        "measures": [list(m) for m in measures],
        "replay": {"config": config.to_dict()},
    }


CORE2 = RulesConfig.preset("core-2p")


def titles(recs) -> list[str]:
    return [f.title for f in findings(collect(recs, None, economy=False), None)]


def test_a_significant_seat_advantage_is_flagged_and_parity_is_not():
    # 70 of 100 games won by the start player (seat 0 starts): Wilson interval 60.4% .. 78.1%, above 50%.
    skewed = [record(CORE2, [0] if i < 70 else [1]) for i in range(100)]
    assert "core-2p: the start player (position 0) wins more than parity" in titles(skewed)
    assert "core-2p: position 1 wins less than parity" in titles(skewed)
    even = [record(CORE2, [0] if i < 50 else [1]) for i in range(100)]
    assert not [t for t in titles(even) if "parity" in t]


def test_the_turn_count_is_named_as_the_cause_when_the_advantaged_position_has_more_turns():
    st = collect([record(CORE2, [0] if i < 70 else [1]) for i in range(100)], None, economy=False)
    g = st.by_config["core-2p"]
    g.turns = [3600, 3500]  # 36 turns against 35 per game
    high = seat_findings("core-2p", g)[0]
    assert "Cause: the turn count" in high.evidence and "36.0 turns" in high.evidence
    assert "equal_turns" in high.advice
    g.turns = [3550, 3550]
    assert "does not explain it" in seat_findings("core-2p", g)[0].evidence
    g.turns = [3500, 3600]  # the position ahead has the fewer turns
    assert "takes 35.0 turns per game, the most is 36.0" in seat_findings("core-2p", g)[0].evidence


def test_shared_victories_and_the_cap_are_reported_with_intervals():
    recs = [record(CORE2, [0, 1] if i < 60 else [0]) for i in range(100)]
    found = {f.title: f for f in findings(collect(recs, None, economy=False), None)}
    shared = found["Shared victories: 60% of the games"]
    assert shared.level == "alert" and "60 of 100" in shared.evidence and "50.2% .. 69.1%" in shared.evidence
    assert "Winners at the Influence cap: 100% of the games" in found  # every winner has 7 = the 2p cap


def test_cards_taken_but_never_played_and_cards_far_from_parity():
    cfg = RulesConfig.preset("exp01-2p")
    recs = [record(cfg, [0], measures=[("take-measure", 1, "M-A")]) for _ in range(22)]
    # M-B: played 30 times, its player won 28 times (93.3%, interval 78.7% .. 98.2% > 50%).
    recs += [record(cfg, [0] if i < 28 else [1], measures=[("play-measure", 0, "M-B")]) for i in range(30)]
    t = titles(recs)
    assert "Measure M-A is taken but never played" in t
    assert "Measure M-B: its players win more than parity" in t
    assert not [x for x in t if "M-B is taken" in x]


def test_a_comparison_of_two_options_at_once_is_flagged_as_confounded():
    core4 = RulesConfig.preset("core-4p")
    both = core4.replace(tile_recycling=True, first_player_handicap=True, name="both")
    one = core4.replace(first_player_handicap=True, name="one")
    t = titles([record(c, [i % 4]) for c in (core4, both) for i in range(8)])
    assert "Confounded comparison: core-4p and both differ in 2 options at once" in t
    # With "one" (FirstPlayerHandicap alone) in between, each step is one option: nothing is confounded.
    t = titles([record(c, [i % 4]) for c in (core4, both, one) for i in range(8)])
    assert not [x for x in t if "Confounded" in x]
    other = core4.replace(tile_recycling=True, name="other")
    t = titles([record(c, [i % 4]) for c in (core4, one, other) for i in range(8)])
    assert not [x for x in t if "Confounded" in x]  # one and other are each one option from core-4p
    # The design options are left out of to_dict() at their default: they still count as options.
    equal = core4.replace(equal_turns=True, tie_break="resources", name="equal")
    st = collect([record(c, [0]) for c in (core4, equal)], None, economy=False)
    assert ("equal_turns", "true") in st.by_option and ("equal_turns", "false") in st.by_option
    assert "Confounded comparison: core-4p and equal differ in 2 options at once" in titles(st.records)


def test_first_player_handicap_overcorrection():
    fph = CORE2.replace(first_player_handicap=True, name="fph")
    recs = [record(CORE2, [0] if i < 50 else [1]) for i in range(100)]
    recs += [record(fph, [0] if i < 10 else [1]) for i in range(100)]  # 10%: interval 5.5% .. 17.4% < 50%
    t = titles(recs)
    assert "FirstPlayerHandicap overcorrects (fph against core-2p)" in t
    assert "fph: the start player (position 0) wins less than parity" not in t  # told once, by the FPH finding
    second = next(
        f for f in findings(collect(recs, None, economy=False), None) if f.title.startswith("fph: position 1")
    )
    assert "FirstPlayerHandicap (VAR-01-02) is on" in second.evidence


@pytest.fixture(scope="module")
def played():
    games = list(run_games(match_schedule(CORE2, ["random", "random"], 2, seed=5)))
    return [game_record(r, CORE2) for r in games]


def test_economy_and_turns_come_from_the_games_events(played):
    for rec in played:
        facts = game_facts(rec)
        assert facts.turns == [36, 35]  # 71 tiles in 2 players: the start player takes the last turn
        assert facts.last_turn == 0
        game = Game.new(CORE2, rec["seed"])
        for a in rec["replay"]["actions"]:
            game.apply(game.string_to_action(a))
        produced = sum(e["share"] * len(e["players"]) for e in game.events if e["type"] == "produce")
        assert sum(facts.produced.values()) == produced > 0
        held = sum(sum(game.resources_of(p)) for p in range(2))
        assert sum(facts.held.values()) == held
        assert all(v >= 0 for v in facts.spent.values())
    report = build_report(played, ["t"], rules_doc=None)
    g = report.stats.by_config["core-2p"]
    assert g.turns == [72, 70] and sum(g.produced.values()) > 0
    assert "Players spend" in report.html and "<details>" in report.html
