"""EXP-03 with EXP-01 (EXP-03-10, RULINGS R40, R52, R60) and the project's EXP-03 readings (docs/rulings.md
BC-60..BC-64) that the Measure scenarios do not already pin."""

from __future__ import annotations

import pytest
from exp01_support import act, events, legal_strings
from exp03_support import M3, C, Scenario3, incomplete_ok  # noqa: F401
from positions import res

from bc_env.rules import RulesConfig

pytestmark = pytest.mark.usefixtures("incomplete_ok")


def _settle(*effects_, tile="DOM-W2", infl=(0, 1, 0, 0)):
    sc = Scenario3()
    sc.put("8,7", tile, influence=list(infl))
    sc.put("6,7", "Committee")
    for id_, owner, until, data in effects_:
        sc.effect(id_, owner, until, **data)
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "place 6,7")  # P0 ends the round: settlement
    return game


def test_EXP_03_10_04_R40_doubling_first_then_reductions_then_the_supply_chain_cap():
    cap = (M3["M11"], 0, "owner_next_turn", {"target": 1})
    game = _settle(("EXP-01-M02", 2, "end_of_settlement", {"cell": C(8, 7)}), cap)
    assert res(game, 1)["DOM"] == 1 and game.noise[0] == 3  # 2 doubled = 4, capped at 1, 3 to Noise (R38)
    game = _settle(("EXP-01-M05", 2, "end_of_settlement", {"cell": C(8, 7)}), cap, tile="DOM-W3")
    assert res(game, 1)["DOM"] == 1 and game.noise[0] == 1  # 3 - 1 = 2, capped at 1
    game = _settle(("EXP-01-M02", 2, "end_of_settlement", {"cell": C(8, 7)}))
    assert res(game, 1)["DOM"] == 4 and game.noise[0] == 0  # control: no cap


def test_R52_the_pact_transfers_a_budget_deficit_component_too():
    sc = Scenario3()
    sc.put("8,7", "Committee")
    sc.effect("EXP-01-M06", 1, "consumed", target=0)  # Place costs P0 +1 Resource of any resort
    sc.effect(M3["M13"], 0, "consumed", player=0)
    sc.resources(3, INF=1)
    game = sc.game()
    act(game, "place 8,7")
    assert game.phase_name == "transfer" and legal_strings(game) == ["target-player P3"]
    act(game, "target-player P3")
    assert game.influence_on(C(8, 7))[0] == 1 and res(game, 3)["INF"] == 0
    assert "EXP-01-M06" not in [a.id for a in game.active_effects]  # Budget Deficit consumed by the action


def test_R60_v13_supplemental_budget_ignores_a_climate_component_for_one_resource_of_any_resort():
    sc = Scenario3(RulesConfig(players=4, exp01=True, exp01_edition="v1.3", exp03=True))
    sc.put("8,7", "FOR-W2")
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    sc.resources(0, INF=1)
    assert "place 8,7" not in legal_strings(sc.game())  # +1 CLM or DOM, P0 holds INF
    sc.effect("EXP-01-M10", 0, "end_of_turn")
    game = sc.game()
    act(game, "place 8,7")
    assert game.influence_on(C(8, 7))[0] == 1 and res(game, 0)["INF"] == 0


def test_bc64_future_investment_with_a_finite_bank_gives_what_the_bank_has():
    sc = Scenario3(RulesConfig(players=4, exp01=True, exp03=True, bank_stock=5))
    sc.put("8,7", "FOR-W2")
    sc.data["bank"]["FOR"], sc.data["noise"]["FOR"] = 0, 5  # all 5 FOR in Noise
    sc.resources(0, CLM=2)
    sc.hand(0, M3["M03"])
    game = sc.game()
    assert game.bank[1] == 0
    act(game, "play EXP-03-M03")  # a finite Bank gives what it has (BC-03)
    assert res(game, 0)["FOR"] == 0 and events(game, "future-investment")[-1]["amount"] == 0
    assert res(game, 0)["CLM"] == 0  # the card's cost is paid: a complete resolution with output 0 (R29, R60)


def _labor_market(*effects_, p2=None):
    sc = Scenario3(RulesConfig(players=4, exp01=True, exp01_edition="v1.3", exp03=True))
    sc.put("8,7", "Labor Market", influence=[0, 0, 2, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.resources(2, **(p2 or {}))
    sc.draws("Committee")
    for id_, owner in effects_:
        sc.effect(id_, owner, "owner_next_turn")
    game = sc.game()
    act(game, "place 8,6")
    before = game.supply[2]
    act(game, "place-tile 9,7")  # P1 closes the v1.3 Labor Market; P2 leads it
    return game, before


def test_R50_R51_v13_labor_market_influence_is_suppressed_and_replaceable():
    game, before = _labor_market()
    assert game.supply[2] == before + 1  # control: EXP-01-02-C-04 (v1.3)
    game, before = _labor_market((M3["M07"], 0))
    assert game.supply[2] == before and events(game, "influence-suppressed")[-1]["rule"] == "EXP-03-08-M07-04"
    game, before = _labor_market((M3["M05"], 0), p2={"CLM": 1})
    assert game.phase_name == "replacement" and game.current_player == 2
    act(game, "pay CLM")
    assert game.supply[2] == before + 1 and game.influence_on(C(8, 7)) == [0, 0, 2, 0]  # into the supply
