"""The Measure lifecycle (EXP-01-06-02..19, EXP-01-07-01..05 (v1.3)) and the two editions' turn shapes."""

from __future__ import annotations

import json

import pytest
from exp01_support import M, Scenario, act, events, finish_turn, legal_strings

from bc_env.rules import Game, StateError


def deck(game):
    d = game.to_dict()["measures"]
    return d["decks"]["EXP-01"], d


# ---------------------------------------------------------------------------- TakeMeasure and refill


def test_EXP_01_06_02_04_take_moves_a_card_to_the_hand_and_refills_from_the_draw_pile():
    game = Game.new("exp01-4p", seed=5)
    finish = game.action_to_string(game.legal_actions()[0])
    act(game, finish)  # place the drawn tile
    before, _ = deck(game)
    p = game.active
    card = before["open"][1]
    act(game, f"take {card}")
    after, d = deck(game)
    assert d["hands"][p] == [card]
    assert card not in after["open"] and len(after["open"]) == 3
    refilled = before["draw_pile"][-1]  # the top of the MeasureDrawPile
    assert refilled in after["open"] and after["draw_pile"] == before["draw_pile"][:-1]
    assert events(game, "take-measure")[-1]["card"] == card
    assert events(game, "measure-refill")[-1]["card"] == refilled
    assert game.active != p  # TakeMeasure was the turn's Political Action


def test_EXP_01_06_03_hand_limit_two():
    sc = Scenario()
    sc.hand(0, M["M01"])
    assert any(s.startswith("take ") for s in legal_strings(sc.game()))
    sc.hand(0, M["M02"])
    assert not any(s.startswith("take ") for s in legal_strings(sc.game()))
    sc.hand(0, M["M03"])
    with pytest.raises(StateError, match="more than 2"):
        sc.game()


def test_bc21_EXP_01_06_05_16_refill_shuffles_the_recycle_pile_when_the_draw_pile_runs_out():
    sc = Scenario()
    sc.hand(1, M["M09"], M["M10"])
    sc.counter(M["M04"], 1)
    sc.counter(M["M05"], 1)
    sc.counter(M["M06"], 1)
    # Draw pile: one card; recycle pile: three (an empty draw pile with cards in recycle cannot exist, BC-21).
    sc.zones([M["M07"]], [M["M01"], M["M02"], M["M03"]], [M["M04"], M["M05"], M["M06"]], [M["M08"]])
    sc.counter(M["M08"], 2)
    game = sc.game()
    act(game, "take EXP-01-M01")  # refill: M07 from the draw pile; then it is empty -> recycle
    z, d = deck(game)
    assert M["M07"] in z["open"] and z["recycle_pile"] == []
    assert sorted(z["draw_pile"]) == [M["M04"], M["M05"], M["M06"]]
    assert events(game, "measure-recycle")[-1]["cards"] == 3
    assert d["play_counts"][M["M04"]] == 1  # EXP-01-06-17: recycling keeps the counters
    assert z["final_discard"] == [M["M08"]]  # EXP-01-06-14: never re-enters


def test_EXP_01_06_06_no_refill_when_both_piles_are_empty():
    sc = Scenario()
    sc.hand(1, M["M09"], M["M10"])
    sc.hand(2, M["M04"], M["M05"])
    sc.hand(3, M["M06"], M["M07"])
    sc.zones([], [M["M01"], M["M02"], M["M03"]], [], [M["M08"]])
    sc.counter(M["M08"], 2)
    game = sc.game()
    act(game, "take EXP-01-M02")
    z, _ = deck(game)
    assert z["open"] == [M["M01"], M["M03"]] and z["draw_pile"] == [] and z["recycle_pile"] == []
    assert events(game, "measure-not-refilled")


# ---------------------------------------------------------------------------- PlayMeasure, counters, zones


def test_EXP_01_06_11_12_first_play_counts_and_recycles():
    sc = Scenario()
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    game = sc.game()
    act(game, "play EXP-01-M10")
    z, d = deck(game)
    assert d["play_counts"][M["M10"]] == 1 and z["recycle_pile"] == [M["M10"]] and d["hands"][0] == []
    assert d["last_play_round"][0] == 1
    assert [e["type"] for e in game.events[:4]] == ["pay", "play-measure", "measure-effect", "measure-recycled"]


def test_EXP_01_06_13_15_second_play_goes_to_the_final_discard():
    sc = Scenario()
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    sc.counter(M["M10"], 1)
    game = sc.game()
    act(game, "play EXP-01-M10")
    z, d = deck(game)
    assert d["play_counts"][M["M10"]] == 2 and z["final_discard"] == [M["M10"]]
    assert events(game, "measure-final-discard")[-1]["card"] == M["M10"]


def test_bc21_EXP_01_06_16_a_played_card_is_recycled_at_once_when_the_draw_pile_is_empty():
    sc = Scenario()
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    sc.hand(1, M["M09"], M["M08"])
    sc.hand(2, M["M04"], M["M05"])
    sc.hand(3, M["M06"], M["M07"])
    sc.zones([], [M["M01"], M["M02"], M["M03"]], [], [])
    game = sc.game()
    act(game, "play EXP-01-M10")
    z, _ = deck(game)
    assert z["draw_pile"] == [M["M10"]] and z["recycle_pile"] == []
    assert z["open"] == [M["M01"], M["M02"], M["M03"]]  # no refill after a PlayMeasure


def test_bc21_state_with_empty_draw_pile_and_full_recycle_pile_is_rejected():
    sc = Scenario()
    sc.zones([], [M["M01"], M["M02"], M["M03"]], [M["M04"]], [])
    sc.counter(M["M04"], 1)
    for p, cards in enumerate(((M["M05"], M["M06"]), (M["M07"], M["M08"]), (M["M09"], M["M10"]))):
        sc.hand(p, *cards)
    with pytest.raises(StateError, match="EXP-01-06-16"):
        sc.game()


def test_counters_and_zones_must_agree():
    sc = Scenario()
    sc.counter(M["M01"], 2)  # an open card cannot have been played twice
    with pytest.raises(StateError, match="play counter"):
        sc.game()
    sc = Scenario()
    sc.data["measures"]["hands"][0].append(sc.deck["open"][0])  # in two zones
    with pytest.raises(StateError, match="two zones"):
        sc.game()


def test_EXP_01_06_18_19_one_play_measure_per_round_take_does_not_count():
    sc = Scenario()
    sc.resources(0, ECO=2)
    sc.hand(0, M["M10"])
    sc.data["measures"]["last_play_round"][0] = 1
    assert "play EXP-01-M10" not in legal_strings(sc.game())
    sc.data["measures"]["last_play_round"][0] = 0
    game = sc.game()
    assert "play EXP-01-M10" in legal_strings(game)
    act(game, "take " + game.measures[game.ext["measures"].open[0][0]].key)
    assert game.ext["measures"].last_round[0] == 0  # TakeMeasure does not count


def test_bc20_a_measure_without_a_legal_target_is_not_offered():
    sc = Scenario()
    sc.resources(0, ECO=2, FOR=2, INF=2, DOM=2)
    sc.hand(0, M["M02"], M["M01"])  # no ResortTile, no Hotspot on the Board
    legal = legal_strings(sc.game())
    assert "play EXP-01-M02" not in legal and "play EXP-01-M01" not in legal
    sc.put("8,7", "ECO-W1")
    legal = legal_strings(sc.game())
    assert "play EXP-01-M02" in legal and "play EXP-01-M01" not in legal


def test_bc20_standalone_play_measure_ends_the_turn():
    sc = Scenario()
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    game = sc.game()
    act(game, "play EXP-01-M10")
    assert game.active == 1 and game.phase_name == "place_tile" and not game.ext["measures"].extra


# ---------------------------------------------------------------------------- v1.3 turn shape


def test_bc20_EXP_01_06_05_v13_one_additional_action_that_is_not_play_measure():
    sc = Scenario("exp01-v1.3-4p")
    sc.put("8,7", "DOM-W1")
    sc.resources(0, ECO=2)
    sc.hand(0, M["M10"], M["M03"])
    game = sc.game()
    act(game, "play EXP-01-M10")
    assert game.active == 0 and game.phase_name == "political" and game.ext["measures"].extra
    assert events(game, "additional-action")
    legal = legal_strings(game)
    assert "place 8,7" in legal and not any(s.startswith("play ") for s in legal)  # (c)
    assert any(s.startswith("take ") for s in legal)
    again = Game.from_dict(game.to_dict())  # the flag round-trips
    assert again.ext["measures"].extra and legal_strings(again) == legal
    act(game, "place 8,7")
    assert game.active == 1 and not game.ext["measures"].extra  # (d): no further additional action


def test_bc20_v13_additional_action_take_measure_ends_the_turn_and_pass_when_nothing_is_legal():
    sc = Scenario("exp01-v1.3-4p")
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    sc.put("8,7", "DOM-W1", influence=[2, 0, 0, 0])  # supply 0; one tile only: no Move (BC-13)
    game = sc.game()
    act(game, "play EXP-01-M10")
    act(game, "take " + game.measures[game.ext["measures"].open[0][0]].key)  # EXP-01-06-04 (v1.3)
    assert game.active == 1
    # No open Measure left (every card is in a hand or the final discard): no TakeMeasure; and no Place,
    # Move, Formalize or Convert either.
    sc.hand(0, M["M09"])
    sc.hand(1, M["M01"], M["M02"])
    sc.hand(2, M["M03"], M["M04"])
    sc.hand(3, M["M05"], M["M06"])
    sc.zones([], [], [], [M["M07"], M["M08"]])
    sc.counter(M["M07"], 2)
    sc.counter(M["M08"], 2)
    game = sc.game()
    act(game, "play EXP-01-M10")
    assert legal_strings(game) == ["pass"]  # RULINGS R7
    act(game, "pass")
    assert game.active == 1


def test_EXP_01_06_M06_v13_self_budget_deficit_hits_the_additional_action():
    sc = Scenario("exp01-v1.3-4p")
    sc.put("8,7", "DOM-W1")
    sc.resources(0, ECO=2, DOM=1)
    sc.hand(0, M["M06"])
    game = sc.game()
    act(game, "play EXP-01-M06", "target-player P0")
    act(game, "place 8,7")  # the next Political Action costs +1: DOM is the only option
    assert game.resources_of(0) == [0, 0, 0, 0] and not game.active_effects


def test_finish_turn_helper_is_deterministic():
    a, b = Game.new("exp01-4p", seed=2), Game.new("exp01-4p", seed=2)
    for _ in range(8):
        finish_turn(a)
        finish_turn(b)
    assert a.to_dict() == b.to_dict()


def _round_trip(game):
    data = json.loads(json.dumps(game.to_dict()))
    again = Game.from_dict(data)
    assert again.to_dict() == data and again.legal_actions() == game.legal_actions()
    assert again.phase_name == game.phase_name
    return data["pending"]


def test_every_new_pending_decision_round_trips_through_json():
    sc = Scenario()
    sc.put("8,7", "DOM-W1", influence=[1, 0, 0, 0])
    sc.put("9,7", "ECO-W1")
    sc.put("8,6", "Grassroots")
    sc.put("10,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.supply(0, 2)
    sc.resources(0, DOM=2, FOR=2, ECO=4)
    sc.hand(0, M["M02"])
    sc.effect(M["M06"], 1, "consumed", target=0)
    base = sc.game()
    # Place with a surcharge: a payment decision of a Place.
    g = base.clone()
    act(g, "place 8,7")
    assert _round_trip(g) == {"kind": "place", "tile": "8,7", "paid": []}
    # Move with a surcharge: destination, then payment.
    g = base.clone()
    act(g, "move-from 8,7")
    assert _round_trip(g) == {"kind": "move", "from": "8,7"}
    act(g, "move-to 9,7")
    assert _round_trip(g) == {"kind": "move", "from": "8,7", "tile": "9,7", "paid": []}
    act(g, "pay DOM")
    assert g.infl[(7 * 15 + 9) * 4] == 1 and g.resources_of(0) == [1, 2, 0, 4]
    # TakeMeasure with a surcharge.
    g = base.clone()
    key = g.measures[g.ext["measures"].open[0][0]].key
    act(g, f"take {key}")
    assert _round_trip(g) == {"kind": "take", "card": key, "tile": None, "paid": []}
    # PlayMeasure: target, then payment.
    g = base.clone()
    act(g, "play EXP-01-M02")
    assert _round_trip(g) == {"kind": "play", "card": "EXP-01-M02"}
    act(g, "target 9,7")
    assert _round_trip(g) == {"kind": "play", "card": "EXP-01-M02", "tile": "9,7", "target": None, "paid": []}
    # ConvertResources with the Investment Program: payment, gain, exchange.
    g = base.clone()
    act(g, "convert 8,6", "pay DOM", "pay DOM", "pay FOR", "gain INF")  # DOM, DOM converted; FOR the surcharge
    assert _round_trip(g) == {"kind": "convert", "tile": "8,6", "paid": ["DOM", "DOM", "FOR"], "gain": "INF"}
    assert g.phase_name == "exchange"
    act(g, "exchange FOR")
    assert g.resources_of(0) == [0, 2, 1, 2] and g.active == 1
