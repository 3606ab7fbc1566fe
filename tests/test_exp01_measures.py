"""A scenario per EXP-01 Measure: effect, cost, failure when unpaid, and the moment its duration ends.

Cells: the Start Committee is at 7,7 (cell 112); ``C(x, y)`` is the cell number of ``"x,y"``.
"""

from __future__ import annotations

from exp01_support import M, Scenario, act, events, finish_turn, legal_strings, unpaid
from positions import refused

from bc_env.rules import Game, RulesConfig
from bc_env.rules.decisions import Resolution


def C(x: int, y: int) -> int:
    return y * 15 + x


def ids(game):
    return [a.id for a in game.active_effects]


def produced(game, cell):
    return [e for e in events(game, "produce") if e["cell"] == cell]


# ---------------------------------------------------------------------------- M01 Budget Compromise


def _m01(last_in_round: bool = False, play: bool = True):
    sc = Scenario()
    sc.put("8,7", "Hotspot", influence=[0, 2, 0, 0])
    sc.supply(1, 1)
    sc.put("9,7", "DOM-W1")
    sc.put("8,6", "FOR-W1")
    sc.resources(0, DOM=1, ECO=1, INF=1)
    sc.hand(0, M["M01"])
    sc.draws("Committee")
    if last_in_round:
        sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    if play:
        act(game, "play EXP-01-M01")  # the only unresolved Hotspot: the target is determined (BC-20)
    else:
        act(game, "place 9,7")
    return game


def test_EXP_01_06_M01_budget_compromise_the_hotspot_does_not_resolve_this_round():
    game = _m01()
    assert game.resources_of(0) == [0, 0, 0, 0]  # EXP-01-06-M01-01: DOM + ECO + INF to the Bank
    assert events(game, "play-measure")[-1]["tile"] == C(8, 7)
    act(game, "place-tile 8,8")  # P1 closes the Hotspot in the same round
    assert game.resolved[C(8, 7)] and game.influence_on(C(8, 7)) == [0, 2, 0, 0]
    applied = events(game, "measure-applied")[-1]
    assert applied["id"] == M["M01"] and applied["rule"] == "EXP-01-06-M01-04"


def test_EXP_01_06_M01_control_without_the_measure_the_hotspot_resolves():
    game = _m01(play=False)
    act(game, "place-tile 8,8")
    assert game.influence_on(C(8, 7)) == [0, 3, 0, 0]


def test_bc23_EXP_01_06_M01_03_budget_compromise_ends_with_the_round():
    game = _m01(last_in_round=True)
    assert M["M01"] not in ids(game)  # expired when the Round Settlement began
    assert any(e["id"] == M["M01"] for e in events(game, "effect-expired"))
    act(game, "place-tile 8,8")  # round 2: the Hotspot resolves normally
    assert game.influence_on(C(8, 7)) == [0, 3, 0, 0]


def test_bc23_budget_compromise_targets_only_unresolved_hotspots_and_needs_its_cost():
    sc = Scenario()
    sc.put("8,7", "Hotspot", resolved=True)
    sc.put("9,7", "Hotspot")
    sc.resources(0, DOM=1, ECO=1, INF=1)
    sc.hand(0, M["M01"])
    game = sc.game()
    act(game, "play EXP-01-M01")
    assert events(game, "play-measure")[-1]["tile"] == C(9, 7)  # the resolved one is no target
    sc.resources(0, DOM=1, ECO=1)  # INF missing
    unpaid(sc.game(), "play EXP-01-M01")


# ---------------------------------------------------------------------------- M02 Economic Stimulus


def _settlement_scenario(hand: str, edition: str = "exp01-4p", **res):
    sc = Scenario(edition)
    sc.put("8,7", "DOM-W2", influence=[1, 0, 0, 0])
    sc.put("9,7", "ECO-W2", influence=[0, 1, 0, 0])
    sc.put("8,6", "ECO-W1", influence=[0, 1, 0, 0])
    for p in range(4):
        sc.supply(p, 2)  # later turns of finish_turn() place Influence instead of moving it
    sc.resources(0, **res)
    sc.hand(0, hand)
    sc.at(player=0, turns_in_round=3, start_player=1)  # P0 is last: its turn ends the round
    return sc


def test_EXP_01_06_M02_economic_stimulus_doubles_this_round_settlement_only():
    game = _settlement_scenario(M["M02"], ECO=1, FOR=1).game()
    act(game, "play EXP-01-M02")
    assert game.phase_name == "target"
    assert legal_strings(game) == ["target 8,6", "target 8,7", "target 9,7"]  # any ResortTile (-M02-02)
    act(game, "target 8,7")
    assert produced(game, C(8, 7))[-1]["share"] == 4  # EXP-01-06-M02-04: double the printed value 2
    assert game.resources_of(0) == [4, 0, 0, 0]  # ECO + FOR paid (-M02-01)
    assert M["M02"] not in ids(game)  # -M02-03: this Round Settlement only
    for _ in range(4):
        finish_turn(game)
    assert produced(game, C(8, 7))[-1]["share"] == 2


def test_EXP_01_06_M02_economic_stimulus_unpaid():
    unpaid(_settlement_scenario(M["M02"], ECO=2).game(), "play EXP-01-M02")


# ---------------------------------------------------------------------------- M03 Collective Bargaining


def _m03(last_in_round: bool):
    sc = Scenario()
    sc.put("8,7", "Grassroots")
    sc.resources(0, ECO=2)
    sc.resources(1, DOM=2, ECO=2)
    sc.hand(0, M["M03"])
    if last_in_round:
        sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "play EXP-01-M03")
    assert game.resources_of(0) == [0, 0, 0, 0]  # EXP-01-06-M03-01: ECO + ECO
    act(game, game.action_to_string(game.legal_actions()[0]))  # P1 places the drawn tile
    return game


def test_EXP_01_06_M03_collective_bargaining_no_eco_conversion_this_round():
    game = _m03(last_in_round=False)
    assert "convert 8,7" in legal_strings(game)
    act(game, "convert 8,7")  # only DOM, DOM remains a payment: no pay decision
    assert game.phase_name == "gain" and legal_strings(game) == ["gain FOR", "gain INF", "gain ECO"]


def test_EXP_01_06_M03_02_collective_bargaining_ends_with_the_round():
    game = _m03(last_in_round=True)
    act(game, "convert 8,7")
    assert game.phase_name == "pay" and legal_strings(game) == ["pay DOM", "pay ECO"]
    act(game, "pay ECO")
    assert game.phase_name == "gain" and legal_strings(game) == ["gain DOM", "gain FOR", "gain INF"]


def test_EXP_01_06_M03_unpaid():
    sc = Scenario()
    sc.resources(0, ECO=1, DOM=3)
    sc.hand(0, M["M03"])
    unpaid(sc.game(), "play EXP-01-M03")


# ---------------------------------------------------------------------------- M04 Subsidy Reduction


def test_bc25_EXP_01_06_M04_subsidy_reduction_targets_opponent_controlled_eco_tiles_only():
    sc = _settlement_scenario(M["M04"], ECO=1, FOR=1)
    sc.put("10,7", "ECO-W3", influence=[2, 0, 0, 0])  # P0's own: no target
    sc.put("8,8", "ECO-W1", influence=[0, 0, 1, 1])  # tied: no target
    game = sc.game()
    act(game, "play EXP-01-M04")
    assert legal_strings(game) == ["target 8,6", "target 9,7"]
    sc.resources(0, ECO=1)
    unpaid(sc.game(), "play EXP-01-M04")


def test_EXP_01_06_M04_03_standalone_subsidy_reduction_is_permanent():
    game = _settlement_scenario(M["M04"], ECO=1, FOR=1).game()
    act(game, "play EXP-01-M04", "target 9,7")
    assert produced(game, C(9, 7))[-1]["share"] == 1  # printed 2 - 1
    assert M["M04"] in ids(game)
    for _ in range(4):
        finish_turn(game)
    assert produced(game, C(9, 7))[-1]["share"] == 1  # still reduced a round later


def test_EXP_01_06_M04_05_printed_value_floor_then_doubling_bc22():
    sc = _settlement_scenario(M["M02"], ECO=1, FOR=1)
    # Both plays of the card (EXP-01-06-15: at most two effects of it can be in force).
    sc.effect(M["M04"], 1, "permanent", cell=C(9, 7))
    sc.effect(M["M04"], 1, "permanent", cell=C(8, 7))
    game = sc.game()
    act(game, "play EXP-01-M02", "target 8,7")
    assert produced(game, C(8, 7))[-1]["share"] == 2  # (2 - 1) * 2: printed value first, then doubling
    assert produced(game, C(9, 7))[-1]["share"] == 1  # ECO-W2 printed 2 - 1 (EXP-01-06-M04-04/05)


def test_bc25_EXP_01_08_M04_04_v13_subsidy_reduction_this_settlement_only():
    sc = _settlement_scenario(M["M04"], edition="exp01-v1.3-4p", ECO=1, FOR=1)
    game = sc.game()
    act(game, "play EXP-01-M04", "target 9,7")
    assert game.phase_name == "political" and game.ext["measures"].extra  # v1.3: the additional action
    act(game, "place 8,7")
    assert produced(game, C(9, 7))[-1]["share"] == 1
    assert M["M04"] not in ids(game)
    for _ in range(4):
        finish_turn(game)
    assert produced(game, C(9, 7))[-1]["share"] == 2


def test_bc22_v13_subsidy_reduction_is_an_output_modifier_after_doubling():
    sc = _settlement_scenario(M["M04"], edition="exp01-v1.3-4p", ECO=1, FOR=1)
    sc.effect(M["M02"], 1, "end_of_settlement", cell=C(9, 7))
    game = sc.game()
    act(game, "play EXP-01-M04", "target 9,7", "place 8,7")
    assert produced(game, C(9, 7))[-1]["share"] == 3  # 2 * 2 - 1


# ---------------------------------------------------------------------------- M05 Location Debate


def test_EXP_01_06_M05_location_debate_minus_one_this_settlement_with_floor():
    game = _settlement_scenario(M["M05"], ECO=1, INF=1).game()
    act(game, "play EXP-01-M05", "target 8,6")  # ECO-W1
    assert not produced(game, C(8, 6))  # 1 - 1 = 0: nothing produced (-M05-05)
    assert game.resources_of(0) == [2, 0, 0, 0]  # ECO + INF paid; DOM-W2 produced as usual
    assert M["M05"] not in ids(game)
    for _ in range(4):
        finish_turn(game)
    assert produced(game, C(8, 6))[-1]["share"] == 1


def test_bc22_location_debate_after_doubling():
    sc = _settlement_scenario(M["M05"], ECO=1, INF=1)
    sc.effect(M["M02"], 1, "end_of_settlement", cell=C(9, 7))
    game = sc.game()
    act(game, "play EXP-01-M05", "target 9,7")
    assert produced(game, C(9, 7))[-1]["share"] == 3  # 2 * 2 - 1 (EXP-01-04-B-02/03)


def test_EXP_01_06_M05_unpaid():
    unpaid(_settlement_scenario(M["M05"], ECO=1, FOR=1).game(), "play EXP-01-M05")


# ---------------------------------------------------------------------------- M06 Budget Deficit


def _m06(**res1):
    sc = Scenario()
    sc.put("8,7", "Committee")
    sc.resources(0, ECO=2)
    sc.resources(1, **res1)
    sc.hand(0, M["M06"])
    game = sc.game()
    act(game, "play EXP-01-M06")
    assert legal_strings(game) == [f"target-player P{q}" for q in range(4)]  # any player (BC-26)
    act(game, "target-player P1")
    assert game.resources_of(0) == [0, 0, 0, 0]  # ECO + ECO
    act(game, game.action_to_string(game.legal_actions()[0]))  # P1 places the drawn tile
    return game


def test_bc26_EXP_01_06_M06_budget_deficit_surcharge_on_the_next_action():
    game = _m06(DOM=1, FOR=1)
    assert game.active == 1 and game.phase_name == "political"
    act(game, "place 8,7")  # Place now costs 1 Resource of any resort
    assert game.phase_name == "pay" and legal_strings(game) == ["pay DOM", "pay FOR"]
    act(game, "pay FOR")
    assert game.resources_of(1) == [1, 0, 0, 0]
    assert M["M06"] not in ids(game)  # consumed (EXP-01-06-M06-07)
    assert events(game, "effect-consumed")[-1]["target"] == 1
    assert events(game, "measure-applied")[-1]["id"] == M["M06"]


def test_bc26_EXP_01_06_M06_06_budget_deficit_fail_is_a_pass_that_consumes_it():
    game = _m06()  # P1 has no Resource: Place (and everything else) cannot be paid
    assert legal_strings(game) == ["pass"]
    act(game, "pass")
    assert M["M06"] not in ids(game)
    assert game.active == 2


def test_bc26_budget_deficit_stacks_and_the_start_committee_ignores_it():
    sc = Scenario()
    sc.put("8,7", "Committee", influence=[2, 2, 2, 2])  # every Starting Influence deployed (CORE-01-08-02)
    sc.resources(0, DOM=1, FOR=1, INF=1, ECO=1)
    sc.effect(M["M06"], 1, "consumed", target=0)
    sc.effect(M["M06"], 2, "consumed", target=0)
    game = sc.game()
    legal = legal_strings(game)
    assert "formalize 7,7" in legal  # Start Committee: 3 different + 1 any = 4, no surcharge
    act(game, "formalize 7,7")
    assert game.resources_of(0) == [0, 0, 0, 0] and game.supply[0] == 1
    assert M["M06"] not in ids(game)  # consumed although ignored (CORE-01-08-06A, BC-26)


def test_bc26_budget_deficit_stacks_additively():
    sc = Scenario()
    sc.put("8,7", "DOM-W1")
    sc.resources(0, DOM=1)
    sc.effect(M["M06"], 1, "consumed", target=0)
    game = sc.game()
    assert "place 8,7" in legal_strings(game)
    sc.effect(M["M06"], 2, "consumed", target=0)
    assert legal_strings(sc.game()) == ["pass"]  # +2 Resources, only 1 held


def test_EXP_01_06_M06_unpaid():
    sc = Scenario()
    sc.resources(0, ECO=1, DOM=1)
    sc.hand(0, M["M06"])
    unpaid(sc.game(), "play EXP-01-M06")


# ---------------------------------------------------------------------------- M07 Debt Brake


def test_bc27_EXP_01_06_M07_debt_brake_prohibits_convert_next_round_only():
    sc = Scenario()
    sc.put("8,7", "Grassroots")
    sc.resources(0, DOM=1, ECO=2, FOR=2)
    for p in (1, 2, 3):
        sc.resources(p, FOR=2)
    sc.hand(0, M["M07"])
    sc.at(player=0, turns_in_round=2, start_player=2)  # P0, then P1 end round 1
    game = sc.game()
    act(game, "play EXP-01-M07")
    assert game.resources_of(0) == [0, 2, 0, 0]  # DOM + ECO + ECO
    assert game.active_effects[0].from_round == 2
    act(game, game.action_to_string(game.legal_actions()[0]))  # P1 places the drawn tile
    assert "convert 8,7" in legal_strings(game)  # still round 1
    finish_turn(game)  # P1 ends round 1
    assert game.round == 2
    for p in (2, 3, 0, 1):
        assert game.active == p
        act(game, game.action_to_string(game.legal_actions()[0]))  # the drawn tile
        assert not any(s.startswith("convert") for s in legal_strings(game))  # EXP-01-06-M07-03
        finish_turn(game)
    assert game.round == 3 and M["M07"] not in ids(game)
    act(game, game.action_to_string(game.legal_actions()[0]))
    assert "convert 8,7" in legal_strings(game)


def test_EXP_01_06_M07_unpaid():
    sc = Scenario()
    sc.resources(0, ECO=2, FOR=1)
    sc.hand(0, M["M07"])
    unpaid(sc.game(), "play EXP-01-M07")


# ---------------------------------------------------------------------------- M08 Economic Council


def _m08(preset: str = "exp01-4p", **res):
    """P0's next turn with Economic Council in force and Economic Stimulus (ECO + FOR) in hand."""
    sc = Scenario(preset)
    sc.put("8,7", "DOM-W1")
    sc.resources(0, **res)
    sc.hand(0, M["M02"])
    sc.at(player=0, round_=2, start_player=0)
    sc.effect(M["M08"], 0, "end_of_player_turn", player=0, turn=0, used=False)
    return sc


def test_bc28_EXP_01_06_M08_04_replace_one_eco_by_two_different_non_eco():
    game = _m08(DOM=1, FOR=1, INF=1).game()  # no ECO: only the Council makes M02 payable
    act(game, "play EXP-01-M02")  # one target; the one payment DOM, FOR, INF completes by itself
    assert game.resources_of(0) == [0, 0, 0, 0]
    applied = [e for e in events(game, "measure-applied") if e["id"] == M["M08"]]
    assert applied and applied[0]["rule"] == "EXP-01-06-M08-04"
    assert M["M08"] not in ids(game)  # the owner's turn ended: the window closed (BC-28)


def test_bc28_EXP_01_06_M08_05_06_replacements_are_two_different_non_eco_resorts():
    unpaid(_m08(FOR=3).game(), "play EXP-01-M02")  # FOR, FOR + FOR: not different
    sc = _m08(DOM=1, FOR=1, INF=1)
    sc.effect(M["M06"], 1, "consumed", target=0)  # +1 any
    game = sc.game()
    assert "play EXP-01-M02" not in legal_strings(game)  # 4 Resources needed, 3 held


def test_bc28_EXP_01_06_M08_07_once_only_and_standard_payment_first():
    sc = _m08(DOM=1, FOR=2, INF=1, ECO=1)
    game = sc.game()
    act(game, "play EXP-01-M02")
    # Payments: FOR + ECO (standard) or DOM/INF/FOR pairs + FOR (the Council): a decision.
    assert game.phase_name == "pay"
    act(game, "pay FOR", "pay ECO")
    assert not [e for e in events(game, "measure-applied") if e["id"] == M["M08"]]  # the standard cost
    sc.effect(M["M08"], 0, "end_of_player_turn", player=0, turn=0, used=True)
    sc.data["active_effects"] = sc.data["active_effects"][1:]
    sc.resources(0, DOM=1, FOR=1, INF=1)
    unpaid(sc.game(), "play EXP-01-M02")  # already used


def test_bc28_EXP_01_08_M08_04_v13_treat_one_non_eco_as_eco():
    game = _m08("exp01-v1.3-4p", FOR=2).game()
    act(game, "play EXP-01-M02")
    assert game.resources_of(0) == [0, 0, 0, 0]  # FOR as ECO + FOR
    assert [e for e in events(game, "measure-applied") if e["id"] == M["M08"]][0]["rule"] == "EXP-01-08-M08-04"
    eff = [a for a in game.active_effects if a.id == M["M08"]]
    assert eff and eff[0].get("used") is True  # the usage flag (EXP-02-07-04 mechanism)


def test_bc28_economic_council_window_is_the_owners_next_turn():
    sc = Scenario()
    sc.resources(0, ECO=3)
    sc.hand(0, M["M08"])
    game = sc.game()
    act(game, "play EXP-01-M08")
    assert game.resources_of(0) == [0, 0, 0, 0]  # ECO + ECO + ECO
    assert M["M08"] in ids(game)  # survives the end of the turn it was played in
    for _ in range(3):
        finish_turn(game)
    assert game.active == 0 and M["M08"] in ids(game)  # the owner's next turn (round 2)
    finish_turn(game)
    assert M["M08"] not in ids(game)


def test_EXP_01_06_M08_unpaid():
    sc = Scenario()
    sc.resources(0, ECO=2, DOM=2)
    sc.hand(0, M["M08"])
    unpaid(sc.game(), "play EXP-01-M08")


# ---------------------------------------------------------------------------- M09 Investment Freeze


def test_bc29_EXP_01_06_M09_investment_freeze_blocks_production_measures_in_the_targets_next_turn():
    sc = Scenario()
    sc.put("8,7", "DOM-W2", influence=[0, 1, 0, 0])
    sc.resources(0, ECO=2, INF=1)
    sc.resources(1, ECO=4, FOR=2, INF=2)
    sc.hand(0, M["M09"])
    sc.hand(1, M["M02"], M["M06"])
    game = sc.game()
    act(game, "play EXP-01-M09")
    assert legal_strings(game) == ["target-player P1", "target-player P2", "target-player P3"]  # opponents
    act(game, "target-player P1")
    assert game.resources_of(0) == [0, 0, 0, 0]  # ECO + ECO + INF
    act(game, game.action_to_string(game.legal_actions()[0]))
    legal = legal_strings(game)
    assert "play EXP-01-M02" not in legal and "play EXP-01-M06" in legal
    finish_turn(game)  # P1's turn ends: the freeze ends
    assert M["M09"] not in ids(game)
    sc.effect(M["M09"], 0, "end_of_player_turn", player=1, turn=0)
    sc.at(player=1, turns_in_round=1)
    assert "play EXP-01-M02" not in legal_strings(sc.game())
    sc.data["active_effects"] = []
    assert "play EXP-01-M02" in legal_strings(sc.game())  # control: without the freeze


def test_EXP_01_06_M09_05_investment_freeze_does_not_stop_production():
    sc = _settlement_scenario(M["M09"], ECO=2, INF=1)
    game = sc.game()
    act(game, "play EXP-01-M09", "target-player P1")
    assert produced(game, C(9, 7))[-1]["share"] == 2  # P1's ECO-W2 produces during the freeze


def test_EXP_01_06_M09_unpaid():
    sc = Scenario()
    sc.resources(0, ECO=2)
    sc.hand(0, M["M09"])
    unpaid(sc.game(), "play EXP-01-M09")


# ---------------------------------------------------------------------------- M10 Supplemental Budget


def _m10(preset: str = "exp01-4p", budget: bool = True, bargaining: bool = True, **res: int) -> Scenario:
    """P0's next turn (round 2) after playing Supplemental Budget in turn 0: P0 controls the Investment
    Program at 9,7 and may convert via the Grassroots at 8,7; P1's Collective Bargaining is in force."""
    sc = Scenario(preset)
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.resources(0, **res)
    sc.at(player=0, round_=2, start_player=0)
    if bargaining:
        sc.effect(M["M03"], 1, "end_of_round", from_round=2)
    if budget:
        sc.effect(M["M10"], 0, "end_of_player_turn", player=0, turn=0)
    return sc


def test_bc30_EXP_01_06_M10_04_05_the_exchange_despite_collective_bargaining():
    game = _m10(DOM=2, FOR=1, INF=1, ECO=2).game()
    act(game, "convert 8,7")  # DOM, DOM (ECO, ECO may not be converted, BC-24)
    act(game, "gain FOR")
    # EXP-01-06-M10-05: the ConvertResources would resolve without its exchange (a limitation): offered in full.
    assert game.phase_name == "exchange"
    assert legal_strings(game) == ["exchange DOM", "exchange FOR", "exchange INF", "decline"]
    act(game, "exchange INF")
    # EXP-01-06-M10-04: 1 additional Resource, from the supply the payment left (DOM is spent, the gained FOR
    # cannot pay it) keeping the 2 ECO of the exchange: FOR or INF.
    assert game.phase_name == "pay" and legal_strings(game) == ["pay FOR", "pay INF"]
    pending = {"kind": "convert", "tile": "8,7", "paid": ["DOM", "DOM"], "gain": "FOR", "exchange": "INF"}
    assert game.to_dict()["pending"] == pending
    assert game.resources_of(0) == [2, 1, 1, 2]  # nothing has moved yet (BC-05)
    twin = Game.from_dict(game.to_dict())
    assert twin.legal_actions() == game.legal_actions() and twin.to_dict() == game.to_dict()
    act(game, "pay FOR")
    # DOM, DOM and FOR paid; FOR gained; 2 ECO exchanged for INF.
    assert game.resources_of(0) == [0, 1, 2, 0]
    start = max(i for i, e in enumerate(game.events) if e["rule"] == "CORE-01-04-22" and e["type"] == "pay")
    assert [(e["type"], e["rule"]) for e in game.events[start : start + 6]] == [
        ("pay", "CORE-01-04-22"),
        ("pay", "EXP-01-06-M10-04"),
        ("measure-applied", "EXP-01-06-M10-05"),
        ("convert", "CORE-01-04-22"),
        ("investment-exchange", "EXP-01-05-03"),
        ("effect-expired", "EXP-01-06-M10-02"),  # the end of the owner's next turn (BC-30)
    ]
    applied = events(game, "measure-applied")[-1]
    assert (applied["id"], applied["owner"], applied["kind"], applied["exchange"]) == (M["M10"], 0, "convert", 2)
    assert events(game, "pay")[-1]["resorts"] == [1]
    assert game.active == 1 and M["M10"] not in ids(game)  # the owner's next turn is over (BC-30)


def test_bc30_EXP_01_06_M10_the_additional_resource_is_taken_without_asking_when_determined():
    game = _m10(DOM=2, ECO=3).game()
    act(game, "convert 8,7", "gain FOR", "exchange DOM")  # only ECO can pay it: 3 ECO, 2 stay for the exchange
    assert game.active == 1 and game.resources_of(0) == [1, 1, 0, 0]
    assert events(game, "pay")[-1] == {"type": "pay", "rule": "EXP-01-06-M10-04", "player": 0, "resorts": [3]}


def test_bc30_EXP_01_06_M10_04_decline_pays_nothing_more():
    game = _m10(DOM=2, FOR=1, INF=1, ECO=2).game()
    act(game, "convert 8,7", "gain FOR", "decline")
    assert game.resources_of(0) == [0, 2, 1, 2] and events(game, "investment-declined")
    assert not [e for e in events(game, "measure-applied") if e["id"] == M["M10"]]


def test_bc30_EXP_01_06_M10_not_offered_without_the_budget_or_when_unaffordable():
    for sc in (
        _m10(budget=False, DOM=2, FOR=1, INF=1, ECO=2),  # Collective Bargaining alone forbids it (BC-24)
        _m10(DOM=2, ECO=2),  # nothing left to pay the additional Resource but the 2 ECO of the exchange
    ):
        game = sc.game()
        act(game, "convert 8,7", "gain FOR")
        assert game.active == 1 and game.resources_of(0)[0] == 0 and game.resources_of(0)[3] == 2  # ECO kept
        assert not events(game, "investment-exchange") and not events(game, "investment-declined")
    # Without Collective Bargaining the exchange needs no Supplemental Budget: nothing more is paid.
    game = _m10(bargaining=False, DOM=2, FOR=1, ECO=2).game()
    act(game, "convert 8,7", "pay DOM", "gain FOR", "exchange INF")
    assert game.resources_of(0) == [0, 2, 1, 0] and game.active == 1
    assert not [e for e in events(game, "measure-applied") if e["id"] == M["M10"]]


def test_bc30_EXP_01_06_M10_only_for_the_owner_and_bypassing_nothing_else():
    sc = _m10(DOM=2, FOR=1, INF=1, ECO=2)
    sc.effect(M["M10"], 1, "end_of_player_turn", player=1, turn=0)  # another player's Budget does not help P0
    sc.data["active_effects"] = [a for a in sc.data["active_effects"] if a["owner"] != 0 or a["id"] != M["M10"]]
    game = sc.game()
    act(game, "convert 8,7", "gain FOR")
    assert game.active == 1 and not events(game, "investment-exchange")
    sc = _m10(DOM=2, FOR=1, INF=1, ECO=2)
    sc.effect(M["M07"], 1, "end_of_round", from_round=2)  # Debt Brake: no ConvertResources at all (BC-27)
    assert "convert 8,7" not in legal_strings(sc.game())


def test_bc30_BC_03_with_supplemental_budget_the_bank_limits_stay():
    config = RulesConfig(players=4, exp01=True, bank_stock=4)
    sc = _m10(config, DOM=2, FOR=1, INF=1, ECO=2)
    # Finite stock 4 per resort: supplies + Bank + Noise = 4 (P0 holds DOM 2, FOR 1, INF 1, ECO 2).
    sc.data["bank"] = {"DOM": 2, "FOR": 0, "INF": 3, "ECO": 2}
    sc.data["noise"] = {"DOM": 0, "FOR": 3, "INF": 0, "ECO": 0}
    game = sc.game()
    act(game, "convert 8,7", "gain INF")  # FOR cannot be gained: the Bank has none
    assert legal_strings(game) == ["exchange DOM", "exchange INF", "decline"]  # nor exchanged (BC-03)


def test_bc30_EXP_01_06_M10_illegal_choices_change_nothing():
    game = _m10(DOM=2, FOR=1, INF=1, ECO=2).game()
    act(game, "convert 8,7", "gain FOR", "exchange INF")
    for text in ("pay DOM", "pay ECO", "exchange INF", "decline"):  # spent, needed for the exchange, wrong decision
        refused(game, text, "pay")


def test_bc30_EXP_01_06_M10_02_window_is_the_owners_next_turn():
    sc = Scenario()
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.resources(0, ECO=3, DOM=2, INF=1)
    sc.resources(1, ECO=2)
    sc.hand(0, M["M10"])
    sc.hand(1, M["M03"])
    for q in (2, 3):
        sc.supply(q, 2)
    sc.at(player=0, turns_in_round=3, start_player=1)  # P0 is last in round 1
    game = sc.game()
    act(game, "play EXP-01-M10")
    assert game.resources_of(0) == [2, 0, 1, 2]  # ECO
    assert events(game, "measure-effect")[-1]["rule"] == "EXP-01-06-M10-05"
    assert game.round == 2 and game.active == 1 and M["M10"] in ids(game)  # survives its own turn
    act(game, game.action_to_string(game.legal_actions()[0]), "play EXP-01-M03")  # P1: Collective Bargaining
    finish_turn(game)
    finish_turn(game)
    assert game.active == 0 and M["M10"] in ids(game) and M["M03"] in ids(game)
    act(game, game.action_to_string(game.legal_actions()[0]))  # P0's tile
    act(game, "convert 8,7", "gain FOR", "exchange DOM")  # DOM, DOM paid; INF the only additional one
    assert game.resources_of(0) == [1, 1, 0, 0]
    assert M["M10"] not in ids(game)  # expired with the owner's next turn
    expired = [e for e in events(game, "effect-expired") if e["id"] == M["M10"]]
    assert expired and expired[-1]["rule"] == "EXP-01-06-M10-02"


def test_bc30_EXP_01_08_M10_03_v13_supplemental_budget_lasts_this_turn_and_allows_no_exchange():
    sc = _m10("exp01-v1.3-4p", budget=False, DOM=2, FOR=1, INF=1, ECO=3)
    sc.hand(0, M["M10"])
    game = sc.game()
    act(game, "play EXP-01-M10")
    assert game.ext["measures"].extra and M["M10"] in ids(game)  # in force for the additional action
    assert events(game, "measure-effect")[-1]["rule"] == "EXP-01-08-M10-05"
    act(game, "convert 8,7", "gain FOR")  # v1.3 reads cost components: the exchange stays forbidden (BC-24)
    assert game.active == 1 and not events(game, "investment-exchange")
    assert M["M10"] not in ids(game)
    assert [e for e in events(game, "effect-expired") if e["id"] == M["M10"]][-1]["rule"] == "EXP-01-08-M10-03"


def test_bc30_EXP_01_08_M10_04_05_v13_the_imposed_cost_option_pays_the_same_in_exp01():
    """v1.3: with Budget Deficit on the owner, the Supplemental Budget option pays the same Resources: the
    decisions and their results are those of the same position without it (BC-30)."""
    sc = Scenario("exp01-v1.3-4p")
    sc.put("8,7", "DOM-W1")
    sc.resources(0, DOM=1, FOR=1)
    sc.effect(M["M06"], 1, "consumed", target=0)
    without = sc.game()
    sc.effect(M["M10"], 0, "end_of_turn")
    with_ = sc.game()
    for g in (without, with_):
        act(g, "place 8,7")
    assert legal_strings(without) == legal_strings(with_) == ["pay DOM", "pay FOR"]
    for g in (without, with_):
        act(g, "pay DOM")
    assert without.resources_of(0) == with_.resources_of(0) == [0, 1, 0, 0]
    assert not [e for e in events(with_, "measure-applied") if e["id"] == M["M10"]]
    # v1.3's rules for Budget Deficit (EXP-01-08-M06-05, -07).
    assert events(with_, "pay")[-1]["rule"] == "EXP-01-08-M06-05"
    assert events(with_, "effect-consumed")[-1]["rule"] == "EXP-01-08-M06-07"


def test_EXP_01_06_M10_unpaid():
    sc = Scenario()
    sc.resources(0, DOM=3)
    sc.hand(0, M["M10"])
    unpaid(sc.game(), "play EXP-01-M10")


def test_bc28_a_dearer_superset_payment_is_not_offered():
    # Two Budget Deficits (+2 any) and the Council on the owner: FOR, DOM, INF, ECO pays the standard
    # cost (FOR + ECO + DOM + INF); FOR, DOM, INF, ECO, ECO would pay the Council's variant with ECO, ECO
    # as the surcharges -- the same effect dearer, so it is not offered and the decision stays unambiguous.
    sc = _m08(DOM=1, FOR=1, INF=1, ECO=2)
    sc.effect(M["M06"], 1, "consumed", target=0)
    sc.effect(M["M06"], 2, "consumed", target=0)
    game = sc.game()
    act(game, "play EXP-01-M02")
    dec = game.decision
    assert isinstance(dec, Resolution) and all(len(p) == 4 for p in dec.options)
    while game.phase_name == "pay":
        act(game, legal_strings(game)[0])
    assert game.active == 1 and sum(game.resources_of(0)) == 1


def test_bc24_only_the_grassroots_part_of_a_payment_is_converted():
    sc = Scenario()
    sc.put("8,7", "Grassroots")
    sc.resources(0, DOM=1, FOR=2, ECO=2)
    sc.effect(M["M06"], 1, "consumed", target=0)  # +1 any on the conversion
    game = sc.game()
    act(game, "convert 8,7", "pay DOM")  # DOM + FOR, FOR or DOM + ECO, ECO: DOM is the surcharge
    act(game, "pay FOR")
    assert game.phase_name == "gain"
    assert legal_strings(game) == ["gain DOM", "gain INF", "gain ECO"]  # only FOR (converted) is excluded
    sc.effect(M["M03"], 2, "end_of_round")  # and Collective Bargaining: ECO, ECO may not be converted
    game = sc.game()
    act(game, "convert 8,7")
    assert legal_strings(game) == ["pay DOM", "pay FOR"]  # DOM, ECO, ECO is no payment any more
    act(game, "pay DOM")
    assert game.phase_name == "gain" and game.decision.paid == [0, 1, 1]
