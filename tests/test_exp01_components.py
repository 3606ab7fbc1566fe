"""EXP-01 components, setup, presets, action layout, Labor Market and the Investment Program."""

from __future__ import annotations

import re

import pytest
from exp01_support import M, Scenario, act, events, legal_strings

from bc_env.rules import Game, IllegalActionError, RulesConfig
from bc_env.rules.components import HOTSPOT, RESORT, SYSTEM, build_catalogue


def names(catalogue):
    return [t.name for t in catalogue]


@pytest.mark.parametrize(
    ("players", "eco"),
    [(2, {1: 2, 2: 1, 3: 1}), (4, {1: 2, 2: 1, 3: 1}), (5, {1: 3, 2: 2, 3: 2}), (6, {1: 3, 2: 2, 3: 2})],
)
def test_EXP_01_02_05_06_eco_tiles_labor_market_and_investment_program(players, eco):
    config = RulesConfig(players=players, exp01=True)
    cat = build_catalogue(config)
    core = build_catalogue(RulesConfig(players=players))
    assert names(cat[: len(core)]) == names(core)  # core tile ids unchanged
    extra = cat[len(core) :]
    got: dict[int, int] = {}
    for t in extra:
        if t.kind == RESORT:
            assert t.name == f"ECO-W{t.value}" and config.resorts[t.resort] == "ECO"  # EXP-01-02-07/08
            got[t.value] = got.get(t.value, 0) + 1
    assert got == eco  # EXP-01-02-05 (2-4 players), EXP-01-02-06 (5-6 players additionally W1, W2, W3)
    labor = [t for t in extra if t.name == "Labor Market"]
    invest = [t for t in extra if t.name == "Investment Program"]
    assert len(labor) == 1 and labor[0].kind == HOTSPOT  # EXP-01-02-03, -10
    assert len(invest) == 1 and invest[0].kind == SYSTEM  # EXP-01-02-04, -13/14
    assert len(extra) == sum(eco.values()) + 2


def test_EXP_01_03_02_03_setup_shuffles_the_measures_and_opens_three():
    game = Game.new("exp01-4p", seed=3)
    d = game.to_dict()["measures"]
    deck = d["decks"]["EXP-01"]
    assert len(deck["open"]) == 3 and len(deck["draw_pile"]) == 7
    assert deck["recycle_pile"] == [] and deck["final_discard"] == []
    assert sorted(deck["open"] + deck["draw_pile"]) == sorted(M.values())
    assert d["hands"] == [[], [], [], []] and set(d["play_counts"].values()) == {0}
    assert events(game, "measure-setup")[0]["open"] == deck["open"]
    # EXP-01-03-04: starting Influence unchanged; the ECO tiles are in the DrawPile (EXP-01-03-01).
    assert game.supply == [2, 2, 2, 2]
    pile_names = {game.catalogue[t].name for t in [*game.draw_pile, game.drawn]}
    assert {"ECO-W1", "ECO-W2", "ECO-W3", "Labor Market", "Investment Program"} <= pile_names
    other = Game.new("exp01-4p", seed=4).to_dict()["measures"]["decks"]["EXP-01"]
    assert other["draw_pile"] + other["open"] != deck["draw_pile"] + deck["open"]  # the seed shuffles


@pytest.mark.parametrize(
    ("preset", "players", "edition"),
    [("exp01-2p", 2, "standalone"), ("exp01-4p", 4, "standalone"), ("exp01-6p", 6, "standalone"),
     ("exp01-v1.3-4p", 4, "v1.3")],
)  # fmt: skip
def test_presets(preset, players, edition):
    config = RulesConfig.preset(preset)
    assert config.exp01 and config.players == players and config.exp01_edition == edition
    assert config.resorts == ("DOM", "FOR", "INF", "ECO")  # EXP-01-00-03, EXP-01-01-01..04


def test_EXP_01_07_04_Rule_Interaction_without_exp01_no_eco_and_no_measures():
    game = Game.new("core-4p", seed=1)
    assert game.config.resorts == ("DOM", "FOR", "INF") and not game.measures
    assert "measures" not in game.to_dict()
    assert game.num_actions == 6 * 225 + 1 + 2 * 3  # the core layout is unchanged
    with pytest.raises(IllegalActionError, match="^cannot parse action 'take EXP-01-M01': unknown verb 'take'; verbs"):
        game.string_to_action("take EXP-01-M01")


def test_action_layout_with_measures_round_trips_every_action():
    game = Game.new("exp01-4p", seed=0)
    n = 225
    assert game.num_actions == 6 * n + 1 + 2 * 4 + 2 * 10 + n + 4 + 4 + 1
    lay = game.layout
    seen = set()
    for a in range(game.num_actions):
        text = game.action_to_string(a)
        assert game.string_to_action(text) == a
        seen.add(text)
    assert len(seen) == game.num_actions
    assert game.action_to_string(lay.take) == "take EXP-01-M01"
    assert game.action_to_string(lay.play + 9) == "play EXP-01-M10"
    assert game.action_to_string(lay.target + 7 * 15 + 8) == "target 8,7"
    assert game.action_to_string(lay.target_player + 2) == "target-player P2"
    assert game.action_to_string(lay.exchange) == "exchange DOM"
    assert game.action_to_string(lay.decline) == "decline"
    for bad, reason in (
        ("take EXP-01-M11", "card must be one of EXP-01-M01, "),
        ("target-player P4", "player must be P0..P3"),
        ("exchange XYZ", "resort must be one of DOM, FOR, INF, ECO"),
        ("play", "expected '<verb> <argument>'"),
    ):
        with pytest.raises(
            IllegalActionError, match=f"^cannot parse action {re.escape(repr(bad))}: {re.escape(reason)}"
        ):
            game.string_to_action(bad)


def test_EXP_01_02_08_EXP_01_04_01_eco_tiles_produce_eco_at_settlement():
    sc = Scenario()
    sc.put("8,7", "ECO-W3", influence=[1, 0, 0, 0])
    sc.at(player=0, turns_in_round=3, start_player=1)  # P0 is the last player of round 1
    game = sc.game()
    act(game, "place 8,7")  # Round Settlement follows (CORE-01-07-02)
    assert game.resources_of(0) == [0, 0, 0, 3]
    assert game.resources_of(1) == [0, 0, 0, 0]


# ---------------------------------------------------------------------------- Labor Market


def _labor_market(preset: str, supply: int = 1) -> Game:
    sc = Scenario(preset)
    sc.put("8,7", "Labor Market", influence=[0, 2, 0, 0])
    sc.put("9,7", "DOM-W1")
    sc.put("8,6", "FOR-W1")
    sc.supply(1, supply)
    sc.draws("Committee")
    game = sc.game()
    act(game, "place 9,7")  # P0's turn ends; P1 draws the Committee
    return game


def test_EXP_01_02_11_labor_market_standalone_resolves_as_a_core_hotspot():
    game = _labor_market("exp01-4p")
    act(game, "place-tile 8,8")  # closes the Labor Market
    cell = 7 * 15 + 8
    assert game.influence_on(cell) == [0, 3, 0, 0]  # CORE-01-06-05/06: one Influence from the supply
    assert game.supply[1] == 0 and game.created[1] == 1
    assert events(game, "hotspot-resolved")[-1]["cell"] == cell


def test_bc32_EXP_01_02_C_04_labor_market_v13_leader_gains_one_new_influence():
    game = _labor_market("exp01-v1.3-4p")
    act(game, "place-tile 8,8")
    cell = 7 * 15 + 8
    assert game.influence_on(cell) == [0, 2, 0, 0]  # nothing placed on the tile
    assert game.supply[1] == 2 and game.created[1] == 2  # a new Influence in the supply (1 before)
    assert events(game, "labor-market")[-1]["player"] == 1
    assert game.resolved[cell]


def test_bc32_R12_labor_market_v13_creates_nothing_at_the_cap():
    game = _labor_market("exp01-v1.3-4p", supply=5)  # 5 in supply + 2 on the Board = 7 = the cap
    act(game, "place-tile 8,8")
    assert game.supply[1] == 5 and game.created[1] == 5  # unchanged by the resolution
    assert events(game, "labor-market-capped")
    assert game.resolved[7 * 15 + 8]


# ---------------------------------------------------------------------------- Investment Program


def _convert_scenario(controls_program: bool, eco: int = 2, preset: str = "exp01-4p") -> Scenario:
    sc = Scenario(preset)
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0] if controls_program else [0, 1, 0, 0])
    sc.resources(0, DOM=2, ECO=eco)
    return sc


def test_bc31_EXP_01_05_03_investment_program_exchange_after_convert():
    game = _convert_scenario(True).game()
    act(game, "convert 8,7", "pay DOM", "gain FOR")
    assert game.phase_name == "exchange"
    assert legal_strings(game) == ["exchange DOM", "exchange FOR", "exchange INF", "decline"]
    act(game, "exchange INF")  # EXP-01-05-03/05: 2 ECO to the Bank, 1 INF from it, in the same action
    assert game.resources_of(0) == [0, 1, 1, 0]
    assert events(game, "investment-exchange")[-1]["gain"] == 2
    assert game.active == 1


def test_bc31_EXP_01_05_04_the_exchange_is_optional():
    game = _convert_scenario(True).game()
    act(game, "convert 8,7", "pay DOM", "gain FOR", "decline")
    assert game.resources_of(0) == [0, 1, 0, 2]
    assert events(game, "investment-declined")


def test_bc31_EXP_01_05_06_exchange_needs_control_of_the_program():
    game = _convert_scenario(False).game()
    act(game, "convert 8,7", "pay DOM", "gain FOR")
    assert game.active == 1 and not events(game, "investment-exchange")  # no exchange decision


def test_bc31_exchange_needs_two_eco_after_the_conversion():
    game = _convert_scenario(True, eco=3).game()
    act(game, "convert 8,7", "pay ECO")  # pays ECO, ECO: 1 ECO left
    assert game.phase_name == "gain"
    act(game, "gain FOR")
    assert game.active == 1 and game.resources_of(0) == [2, 1, 0, 1]
    game = _convert_scenario(True, eco=1).game()
    act(game, "convert 8,7", "gain ECO")  # DOM, DOM paid; ECO gained -> 2 ECO: the exchange is offered
    assert game.phase_name == "exchange"


def test_bc31_BC_03_exchange_only_what_a_finite_bank_can_give():
    config = RulesConfig(players=4, exp01=True, bank_stock=4)
    sc = _convert_scenario(True, preset=config)
    # Finite stock 4 per resort: supplies + Bank + Noise = 4 (P0 holds DOM 2, ECO 2).
    sc.data["bank"] = {"DOM": 2, "FOR": 1, "INF": 4, "ECO": 2}
    sc.data["noise"] = {"DOM": 0, "FOR": 3, "INF": 0, "ECO": 0}
    game = sc.game()
    act(game, "convert 8,7", "pay DOM", "gain FOR")  # the Bank gives its last FOR
    assert legal_strings(game) == ["exchange DOM", "exchange INF", "decline"]  # no FOR left to give


def test_bc24_collective_bargaining_forbids_the_exchange():
    sc = _convert_scenario(True)
    sc.effect(M["M03"], 1, "end_of_round")
    game = sc.game()
    act(game, "convert 8,7")  # ECO, ECO is no longer a payment: DOM, DOM is determined
    assert game.phase_name == "gain"
    act(game, "gain FOR")
    assert game.active == 1 and game.resources_of(0) == [0, 1, 0, 2]
