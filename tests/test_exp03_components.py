"""EXP-03 components, setup, production of CLM, the Transformationsdruck and the CountdownMarkers
(EXP-03-00..05, RULINGS R36, R37, R57, R58)."""

from __future__ import annotations

import random

import pytest
from exp01_support import act, events
from exp03_support import E3, E13, Scenario3, incomplete_ok  # noqa: F401

from bc_env.rules import ConfigError, Game, RulesConfig, StateError
from bc_env.rules.components import HOTSPOT, RESORT, TRANSFORMATIONSDRUCK
from bc_env.rules.expansions.exp03 import CountdownState, countdown_cost, is_transformationsdruck
from bc_env.rules.expansions.measure_system import zones

pytestmark = pytest.mark.usefixtures("incomplete_ok")


def C(x: int, y: int) -> int:
    return y * 15 + x


@pytest.mark.parametrize("preset", ["exp03-2p", "exp03-4p", "exp03-6p", "exp0103-4p"])
def test_the_exp03_presets_play_without_the_test_switch(preset):
    from bc_env.rules.expansions.base import _INCOMPLETE_OK

    _INCOMPLETE_OK[0] = False
    try:
        config = RulesConfig.preset(preset)
        assert config.exp03 and config.exp01 == (preset == "exp0103-4p")
        game = Game.new(preset, 1)
        rng = random.Random(1)
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
        assert game.winners()
    finally:
        _INCOMPLETE_OK[0] = True


@pytest.mark.parametrize("players, w1, w2", [(2, 2, 2), (4, 2, 2), (5, 3, 3), (6, 3, 3)])
def test_EXP_03_02_A_climate_resort_tiles_and_R57_for_5_6_players(players, w1, w2):
    game = Game.new(RulesConfig(players=players, exp03=True), 0)
    clm = game.config.resorts.index("CLM")
    names = [t.name for t in game.catalogue if t.kind == RESORT and t.resort == clm]
    assert names.count("CLM-W1") == w1 and names.count("CLM-W2") == w2 and len(names) == w1 + w2
    assert all(t.value == int(t.name[-1]) for t in game.catalogue if t.resort == clm)  # EXP-03-02-A-03/04
    tdh = [t for t in game.catalogue if t.special == TRANSFORMATIONSDRUCK]
    assert len(tdh) == 1 and tdh[0].kind == HOTSPOT  # EXP-03-02-B-01
    # EXP-03-03-01/04: every one of them is shuffled into the DrawPile
    ids = {t.id for t in game.catalogue if t.resort == clm or t.special}
    assert ids <= set(game.draw_pile) | {game.drawn}


def test_EXP_03_01_clm_is_a_distinct_resort_only_while_exp03_is_active():
    assert RulesConfig(exp03=True).resorts == ("DOM", "FOR", "INF", "CLM")
    assert RulesConfig(exp01=True, exp03=True).resorts == ("DOM", "FOR", "INF", "ECO", "CLM")
    assert "CLM" not in RulesConfig(exp01=True).resorts  # EXP-03-01-07, EXP-03-10-01


def test_core_and_exp01_tile_ids_are_unchanged_by_exp03():
    base = Game.new(RulesConfig(exp01=True), 0).catalogue
    both = Game.new(E13, 0).catalogue
    assert [(t.kind, t.name) for t in both[: len(base)]] == [(t.kind, t.name) for t in base]


def test_EXP_03_03_setup_its_own_deck_three_open_and_R36_without_exp01():
    game = Game.new(E13, 3)
    d = game.decks.index("EXP-03")
    assert game.decks == ("EXP-01", "EXP-03")  # EXP-03-07-00-01: its own zones
    z = zones(game)
    assert len(z.open[d]) == 3 and len(z.draw[d]) == 12  # EXP-03-03-02/03: 15 cards
    assert all(game.measures[k].deck == "EXP-03" for k in z.open[d] + z.draw[d])
    alone = Game.new(E3, 3)
    keys = [m.key for m in alone.measures]
    assert len(keys) == 11 and not {"EXP-03-M06", "EXP-03-M09", "EXP-03-M11", "EXP-03-M15"} & set(keys)  # R36
    assert [e["amount"] for e in events(alone, "starting-influence")] == [2, 2, 2, 2]  # EXP-03-03-05


def test_EXP_03_08_printed_costs_in_the_configurations_resort_indices():
    game = Game.new(E13, 0)
    by_key = {m.key: m for m in game.measures}
    res = game.config.resorts
    assert [res[s[2].bit_length() - 1] for s in by_key["EXP-03-M09"].cost] == ["DOM", "ECO", "CLM"]
    alone = Game.new(E3, 0)
    assert [alone.config.resorts[s[2].bit_length() - 1] for s in alone.measures[0].cost] == ["CLM", "CLM"]


def test_EXP_03_05_clm_resort_tiles_produce_clm_by_core_rules():
    sc = Scenario3()
    sc.put("8,7", "CLM-W2", influence=[1, 0, 0, 0])
    sc.put("9,7", "CLM-W1", influence=[0, 1, 1, 0])  # a tie: split, the remainder to Noise (R14)
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    clm = game.config.resorts.index("CLM")
    act(game, "place 8,7")  # P0 ends the round
    assert game.res[0 * game.num_resorts + clm] == 2  # EXP-03-05-01, EXP-03-02-A-04
    assert game.noise[clm] == 1


def _tdh_scenario(**kw):
    sc = Scenario3()
    sc.put("8,7", "Transformationsdruck", influence=[0, 2, 0, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.draws("Committee")
    sc.at(player=0, turns_in_round=1, start_player=3)
    return sc


def test_EXP_03_02_B_transformationsdruck_resolves_by_core_majority_and_produces_nothing():
    sc = _tdh_scenario()
    sc.supply(1, 1)
    game = sc.game()
    act(game, "place 8,6")  # P0's turn ends; P1 draws the Committee and closes the Hotspot
    bank = list(game.bank)
    act(game, "place-tile 9,7")
    cell = C(8, 7)
    assert game.resolved[cell] and game.influence_on(cell) == [0, 3, 0, 0]  # EXP-03-02-B-02, CORE-01-06-05
    assert game.bank == bank  # EXP-03-02-B-03: no Resources
    state = game.ext["EXP-03"]
    assert state.attached == {} and state.supply == 10 and state.check(game) == []  # RULINGS R37: nothing placed


def test_R58_countdown_supply_is_a_configuration_value_written_only_with_exp03():
    assert RulesConfig().countdown_supply == 10
    assert "countdown_supply" not in RulesConfig(exp01=True).to_dict()  # core / EXP-01 states are unchanged
    assert RulesConfig(exp03=True, countdown_supply=4).to_dict()["countdown_supply"] == 4
    with pytest.raises(ConfigError, match="countdown_supply"):
        RulesConfig(exp03=True, countdown_supply=-1)


def _board_with_tdh():
    sc = Scenario3(RulesConfig(players=4, exp01=True, exp03=True, countdown_supply=2))
    sc.put("8,7", "Transformationsdruck")
    return sc.game()


def test_EXP_03_02_C_countdown_state_json_clone_and_conservation():
    game = _board_with_tdh()
    tdh = C(8, 7)
    assert is_transformationsdruck(game, tdh) and not is_transformationsdruck(game, C(7, 7))
    state = CountdownState(game.config.countdown_supply)
    assert state.check(game) == [] and state.to_json(game) == {"supply": 2, "attached": []}
    copy = state.clone()
    assert state.place(game, tdh) and state.place(game, tdh)  # EXP-03-04-B-02, C-07: they stack
    assert state.attached == {tdh: 2} and state.supply == 0 and copy.attached == {} and copy.supply == 2
    assert not state.place(game, tdh)  # EXP-03-04-B-03: empty supply, no partial effect
    assert state.attached == {tdh: 2} and events(game, "countdown-failed")[-1]["rule"] == "EXP-03-04-B-03"
    assert not copy.place(game, C(7, 7)) and copy.supply == 2  # only onto the Transformationsdruck (C-03)
    data = state.to_json(game)
    assert data == {"supply": 0, "attached": [{"cell": "8,7", "markers": 2}]}
    again = CountdownState(0)
    again.read_json(game, data, "state.countdown")
    assert again.attached == state.attached and again.supply == 0
    for bad, msg in (({"supply": 1, "attached": []}, "RULINGS R58"),
                     ({"supply": 1, "attached": [{"cell": "7,7", "markers": 1}]}, "Transformationsdruck"),
                     ({"supply": -1, "attached": []}, "supply"), ({"supply": 2}, "fields")):  # fmt: skip
        with pytest.raises(StateError, match=msg):
            CountdownState(0).read_json(game, bad, "state.countdown")
    state.supply = 5
    assert state.check(game) and "R58" in state.check(game)[0]


def test_bc60_R37_countdown_placement_runs_through_the_pipeline_and_climate_surcharges_apply():
    sc = Scenario3()
    sc.put("8,7", "Transformationsdruck")
    game = sc.game()
    assert countdown_cost(game, 0, C(8, 7)) == ()  # no cost of its own
    sc.effect("EXP-03-M14", 1, "owner_next_turn")
    sc.effect("EXP-03-M15", 2, "owner_next_turn")
    game = sc.game()
    assert len(countdown_cost(game, 0, C(8, 7))) == 2  # EXP-03-08-M14-04 + -M15-04, each "+1 CLM or +1 DOM"
    sc.effect("EXP-03-M10", 0, "owner_next_turn")  # Future Pact waives them for its owner (R55)
    game = sc.game()
    assert countdown_cost(game, 0, C(8, 7)) == () and len(countdown_cost(game, 1, C(8, 7))) == 2
    sc.effect("EXP-03-M08", 3, "owner_next_turn")  # Adaptation Strategy waives them for everybody (R34, R55)
    assert countdown_cost(sc.game(), 1, C(8, 7)) == ()


def test_random_games_run_and_round_trip_through_json():
    for seed, config in enumerate([E3, E13, RulesConfig(players=6, exp01=True, exp03=True),
                                   RulesConfig(players=2, exp03=True)]):  # fmt: skip
        rng = random.Random(seed)
        game = Game.new(config, seed)
        steps = 0
        while not game.is_terminal():
            game.apply(rng.choice(game.legal_actions()))
            steps += 1
            if steps % 97 == 0:
                assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
                assert game.clone().to_dict() == game.to_dict()
        assert game.winners()


def test_R36_option_keeps_the_eco_cards_as_dead_cards_without_exp01():
    config = RulesConfig(players=4, exp03=True, exp03_dead_eco_cards=True)
    assert "exp03_dead_eco_cards" not in RulesConfig(exp01=True).to_dict()
    sc = Scenario3(config)
    assert len(Game.new(config, 0).measures) == 15
    sc.resources(0, DOM=3, FOR=3, INF=3, CLM=3)
    sc.hand(0, "EXP-03-M06")
    sc.open("EXP-03-M09", "EXP-03-M01", "EXP-03-M02")
    game = sc.game()
    legal = [game.action_to_string(a) for a in game.legal_actions()]
    assert "take EXP-03-M09" in legal and "play EXP-03-M06" not in legal  # taken, never played
