"""EXP-03's Political Action interaction, Measure system and restrictions (EXP-03-06-01/02, EXP-03-07,
EXP-03-09, EXP-03-10-06; RULINGS R37, R39, R59): what EXP-03 leaves unchanged, pinned by scenarios."""

from __future__ import annotations

import random

import pytest
from exp01_support import Scenario, act, events, legal_strings
from exp03_support import E13, Scenario3, incomplete_ok  # noqa: F401

from bc_env.rules import Game

pytestmark = pytest.mark.usefixtures("incomplete_ok")

#: The durations of the EXP-03 cards (RULINGS R39): "until the beginning of your next turn", "until the end of the
#: next round", "during the target player's next turn" / Technology Initiative's window (R31), "until consumed".
EXP03_WINDOWS = {"owner_next_turn", "end_of_next_round", "end_of_player_turn", "consumed"}


def _board(sc: Scenario) -> Scenario:
    sc.put("8,7", "Committee")
    sc.put("6,7", "Committee")
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2  # FormalizeInfluence is open (CORE-01-08-02)
    sc.resources(0, CLM=1, DOM=1, FOR=1)
    return sc


def _political(strings: list[str]) -> list[str]:
    return [s for s in strings if not s.startswith(("take ", "play "))]


def test_EXP_03_06_01_political_actions_are_those_of_core_and_exp01():
    plain = _board(Scenario("exp01-4p"))
    plain.resources(0, DOM=1, FOR=1)
    climate = _board(Scenario3(E13))
    assert _political(legal_strings(climate.game())) == _political(legal_strings(plain.game()))
    assert _political(legal_strings(climate.game())) == ["place 6,7", "place 8,7", "formalize 6,7", "formalize 8,7"]


def test_EXP_03_06_02_EXP_03_07_01_a_climate_measure_is_played_by_playmeasure_in_the_exp01_lifecycle():
    sc = _board(Scenario3(E13))
    sc.hand(0, "EXP-03-M07")
    game = sc.game()
    act(game, "play EXP-03-M07")  # Protest Movement: CLM
    measures = game.to_dict()["measures"]
    assert measures["hands"][0] == [] and measures["decks"]["EXP-03"]["recycle_pile"] == ["EXP-03-M07"]
    assert measures["play_counts"]["EXP-03-M07"] == 1 and measures["last_play_round"][0] == 1  # EXP-01-06-18
    assert game.resources_of(0)[4] == 0 and game.phase_name == "place_tile"  # the turn's Political Action


def test_EXP_03_07_02_to_05_windows_no_usage_flags_and_no_hidden_state_in_random_games():
    """Every EXP-03 duration is one of its card windows (07-02/04, R39), none carries a usage flag (EXP-03-07-03,
    printed with an EXP-01 number; R59), and the JSON state holds everything: a reloaded game offers the same actions
    (07-05)."""
    seen: set[str] = set()
    for seed in range(3):
        rng = random.Random(seed)
        game = Game.new("exp0103-4p", seed)
        while not game.is_terminal():
            legal = game.legal_actions()
            measure = [a for a in legal if game.action_to_string(a).startswith(("play EXP-03", "take EXP-03"))]
            game.apply(rng.choice(measure if measure and rng.random() < 0.7 else legal))
            data = game.to_dict()
            for active in data["active_effects"]:
                if active["id"].startswith("EXP-03"):
                    seen.add(active["id"])
                    assert active["until"] in EXP03_WINDOWS and "used" not in active["data"], active
            if game.turn % 7 == 0:
                assert Game.from_dict(data).legal_actions() == game.legal_actions()
    assert len(seen) >= 5  # the check saw several cards in force


def _countdown(sc: Scenario, markers: int) -> None:
    attached = [{"cell": "8,7", "markers": markers}] if markers else []
    sc.data["countdown"] = {"supply": 10 - markers, "attached": attached}


def test_EXP_03_09_03_04_EXP_03_10_06_countdown_markers_change_no_control_and_never_move():
    def settled(markers: int) -> Game:
        sc = Scenario3(E13)
        sc.put("8,7", "Transformationsdruck", influence=[0, 1, 0, 0])
        sc.put("6,7", "Committee")
        _countdown(sc, markers)
        sc.at(player=0, turns_in_round=3, start_player=1)
        game = sc.game()
        act(game, "place 6,7")  # P0 ends the round: the Round Settlement
        return game

    plain, marked = settled(0), settled(3)
    assert marked.controller(7 * 15 + 8) == plain.controller(7 * 15 + 8) == 1  # EXP-03-09-03
    assert marked.round == 2 and marked.to_dict()["countdown"] == {
        "supply": 7,
        "attached": [{"cell": "8,7", "markers": 3}],
    }  # EXP-03-09-04, EXP-03-04-B-05, EXP-03-10-06: nothing moves or resolves them (R37)
    assert not [e for e in marked.events if e["type"].startswith("countdown")]


def test_EXP_03_09_01_02_clm_changes_neither_the_influence_cap_nor_majority():
    sc = _board(Scenario3(E13))
    sc.put("9,7", "FOR-W2", influence=[0, 2, 1, 0])
    sc.resources(0, CLM=5, DOM=1, FOR=1)
    sc.supply(0, 7)  # supply + Board = 7: the cap (CORE-01-08-01, RULINGS R12)
    game = sc.game()
    assert "formalize 8,7" not in legal_strings(game)  # CLM held does not raise the cap
    sc.supply(0, 6)
    assert "formalize 8,7" in legal_strings(sc.game())
    assert sc.game().controller(7 * 15 + 9) == 1
    sc.resources(2, CLM=9)
    assert sc.game().controller(7 * 15 + 9) == 1  # P2's CLM counts for nothing in the majority


def test_EXP_03_09_05_06_no_implicit_climate_effect_and_no_upkeep():
    """Without Climate Measures in force, a settlement with CLM held and a CLM ResortTile producing changes only
    what the core rules change: no Climate effect fires, nobody pays anything for holding CLM."""
    sc = Scenario3(E13)
    sc.put("8,7", "CLM-W2", influence=[0, 1, 0, 0])
    sc.put("6,7", "Committee")
    sc.resources(1, CLM=3)
    sc.resources(2, CLM=2)
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "place 6,7")
    assert game.round == 2 and game.resources_of(1)[4] == 5 and game.resources_of(2)[4] == 2
    assert not events(game, "measure-applied") and not [e for e in game.events if "EXP-03-08" in e["rule"]]
