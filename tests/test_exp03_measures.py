"""A scenario per EXP-03 Measure (EXP-03-08) and the rule sections they exercise: the Climate-effect definition
(EXP-03-02-D), "+1 CLM or +1 DOM" surcharges (EXP-03-06-03..05), exemptions (RULINGS R34, R55), majority
suppression (EXP-03-06-06/07, R51), the production cap (R38) and the durations (R39).

Cells: the Start Committee is at 7,7; ``C(x, y)`` is the cell number of ``"x,y"``. Scenarios are EXP-01 + EXP-03
with 4 players (resorts DOM, FOR, INF, ECO, CLM) unless noted.
"""

from __future__ import annotations

import pytest
from exp01_support import act, events, finish_turn, legal_strings, unpaid
from exp03_support import E3, M3, C, Scenario3, incomplete_ok  # noqa: F401
from positions import res

from bc_env.rules.effects import MODIFIERS
from bc_env.rules.expansions.exp03 import CLIMATE, build_deck, carbon_levy_targets, is_climate_effect

pytestmark = pytest.mark.usefixtures("incomplete_ok")


def ids(game):
    return [a.id for a in game.active_effects]


def _two_resorts(infl87=None, **p0):
    """P0 active, a FOR-W2 at 8,7 and a DOM-W3 at 9,7; P1 draws a Committee next."""
    sc = Scenario3()
    sc.put("8,7", "FOR-W2", influence=infl87)
    sc.put("9,7", "DOM-W3")
    sc.resources(0, **p0)
    sc.draws("Committee")
    return sc


# ---------------------------------------------------------------------------- EXP-03-02-D, R55


def test_EXP_03_02_D_every_exp03_card_is_a_climate_effect_and_no_exp01_card_is():
    from bc_env.rules import Game

    game = Game.new("exp01-4p", 0)
    resorts = ("DOM", "FOR", "INF", "ECO", "CLM")
    assert all(is_climate_effect(m, resorts) for m in build_deck(Scenario3().config))  # D-01 (a): CLM cost
    assert not any(is_climate_effect(m, resorts) for m in game.measures)  # D-02


def test_R55_climate_surcharges_are_those_of_M01_M02_M06_M12_M14_M15():
    climate = sorted(k for k, h in MODIFIERS.items() if k.startswith("EXP-03") and h.source == CLIMATE)
    assert climate == [M3[m] for m in ("M01", "M02", "M06", "M12", "M14", "M15")]
    assert all(h.source != CLIMATE for k, h in MODIFIERS.items() if not k.startswith("EXP-03"))


# ---------------------------------------------------------------------------- M01 Transformation Directive


def _m01():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M01"])
    game = sc.game()
    act(game, "play EXP-03-M01")
    assert legal_strings(game) == ["target 8,7", "target 9,7"]  # EXP-03-08-M01-03: a ResortTile (R49)
    act(game, "target 8,7")
    act(game, "place-tile 6,7")  # P1's turn
    return sc, game


def test_EXP_03_08_M01_transformation_directive_surcharges_actions_on_the_tile():
    sc, game = _m01()
    assert res(game, 0)["CLM"] == 0  # EXP-03-08-M01-02: CLM + CLM
    assert game.current_player == 1 and ids(game) == [M3["M01"]]
    legal = legal_strings(game)
    assert "place 9,7" in legal and "place 8,7" not in legal  # -M01-05/06: +1 CLM or DOM, P1 has none


def test_EXP_03_08_M01_05_the_surcharge_is_clm_or_dom_and_paid_with_the_action():
    sc = _two_resorts()
    sc.resources(1, DOM=1, CLM=1)
    sc.effect(M3["M01"], 0, "owner_next_turn", cell=C(8, 7))
    sc.at(player=1, turns_in_round=1)
    game = sc.game()
    act(game, "place 8,7")
    assert game.phase_name == "pay" and legal_strings(game) == ["pay DOM", "pay CLM"]  # R18: the payer chooses
    act(game, "pay CLM")
    assert res(game, 1)["CLM"] == 0 and res(game, 1)["DOM"] == 1 and game.influence_on(C(8, 7))[1] == 1
    assert events(game, "measure-applied")[-1]["rule"] == "EXP-03-08-M01-05"


def test_R53_transformation_directive_not_on_move_off_the_tile_and_ends_at_the_owners_next_turn():
    sc = _two_resorts(infl87=[0, 1, 0, 0])
    sc.put("8,6", "Committee")
    sc.effect(M3["M01"], 0, "owner_next_turn", cell=C(8, 7))
    sc.at(player=1, turns_in_round=1)
    game = sc.game()
    act(game, "move-from 8,7")
    assert "move-to 8,6" in legal_strings(game)  # moving off the tile is not an action on it (R53)
    act(game, "move-to 8,6")
    for _ in range(3):
        finish_turn(game)
    assert M3["M01"] not in ids(game)  # EXP-03-08-M01-04, R39: ends as P0's next turn begins
    assert events(game, "effect-expired")[-1]["rule"] == "EXP-03-08-M01-04"


def test_EXP_03_08_M01_unpaid():
    sc = _two_resorts(CLM=1, DOM=1)
    sc.hand(0, M3["M01"])
    unpaid(sc.game(), "play EXP-03-M01")  # CLM + CLM: DOM does not substitute (R56)


# ---------------------------------------------------------------------------- M02 Carbon Levy


def test_EXP_03_08_M02_carbon_levy_targets_a_resort_and_surcharges_its_resort_tiles():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M02"])
    game = sc.game()
    act(game, "play EXP-03-M02")
    assert legal_strings(game) == [f"target-resort {r}" for r in ("DOM", "FOR", "INF", "ECO", "CLM")]  # R53
    act(game, "target-resort FOR")
    act(game, "place-tile 6,7")
    legal = legal_strings(game)
    assert "place 9,7" in legal and "place 8,7" not in legal  # -M02-05/07: a FOR ResortTile
    assert "place 6,7" in legal  # -M02-08: a Committee is no ResortTile
    assert carbon_levy_targets(game, 1) == [0, 2, 3, 4]  # -M02-06: FOR is levied


def test_EXP_03_08_M02_04_carbon_levy_lasts_until_the_end_of_the_next_round():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M02"])
    sc.at(player=0, turns_in_round=3, start_player=1)  # P0 ends round 1
    game = sc.game()
    act(game, "play EXP-03-M02", "target-resort FOR")
    assert game.round == 2 and M3["M02"] in ids(game)  # through round 1's settlement and into round 2
    for _ in range(3):
        finish_turn(game)
    assert M3["M02"] in ids(game)
    finish_turn(game)  # round 2's settlement ends it
    assert game.round == 3 and M3["M02"] not in ids(game)
    assert events(game, "effect-expired")[-1]["rule"] == "EXP-03-08-M02-04"


# ---------------------------------------------------------------------------- M03 Future Investment


def test_EXP_03_08_M03_future_investment_gains_one_resource_of_the_tiles_resort_at_once():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M03"])
    game = sc.game()
    act(game, "play EXP-03-M03", "target 8,7")
    assert res(game, 0) == {"DOM": 0, "FOR": 1, "INF": 0, "ECO": 0, "CLM": 0}  # -M03-05
    assert M3["M03"] not in ids(game)  # -M03-04: Immediate, nothing lasts (R39)
    assert events(game, "future-investment")[-1]["rule"] == "EXP-03-08-M03-05"


def test_R53_future_investment_on_a_directed_tile_pays_the_surcharge():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M03"])
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    game = sc.game()
    act(game, "play EXP-03-M03")
    assert events(game, "future-investment")[-1]["cell"] == C(9, 7)  # 8,7 is not payable: one target left
    sc.resources(0, CLM=2, DOM=1)
    game = sc.game()
    act(game, "play EXP-03-M03")
    assert legal_strings(game) == ["target 8,7", "target 9,7"]
    act(game, "target 8,7")  # the ContextTile is the directed tile (R26, R53): CLM + CLM + DOM
    assert res(game, 0) == {"DOM": 0, "FOR": 1, "INF": 0, "ECO": 0, "CLM": 0}


# ---------------------------------------------------------------------------- M04 Future Resolution


def test_EXP_03_08_M04_future_resolution_blocks_playmeasure_in_the_targets_next_turn():
    sc = _two_resorts(CLM=2)
    sc.hand(0, M3["M04"])
    sc.hand(1, M3["M07"])
    sc.resources(1, CLM=1)
    sc.hand(2, M3["M03"])
    sc.resources(2, CLM=2)
    game = sc.game()
    act(game, "play EXP-03-M04", "target-player P1")
    act(game, "place-tile 6,7")
    legal = legal_strings(game)
    assert not any(s.startswith("play ") for s in legal)  # -M04-05 (R49: every deck)
    assert any(s.startswith("take ") for s in legal)  # TakeMeasure stays allowed (R49)
    sc.at(player=1, turns_in_round=1)
    sc.hand(1, M3["M07"])
    assert "play EXP-03-M07" in legal_strings(sc.game())  # control: P1 could play it without the effect
    act(game, "place 9,7")
    assert game.current_player == 2 and M3["M04"] not in ids(game)  # ended with P1's turn (R39)
    act(game, legal_strings(game)[0])  # P2 places its tile
    assert "play EXP-03-M03" in legal_strings(game)


# ---------------------------------------------------------------------------- M06 Energy Crisis


def _convert_scenario(**p0):
    sc = Scenario3()
    sc.put("8,7", "Grassroots")
    sc.resources(0, **p0)
    sc.effect(M3["M06"], 2, "owner_next_turn")
    return sc


def test_EXP_03_08_M06_energy_crisis_adds_exactly_one_dom_to_convert_resources():
    unpaid(_convert_scenario(FOR=2, CLM=1).game(), "convert 8,7")  # -M06-04/05: DOM, not CLM
    game = _convert_scenario(FOR=2, DOM=1).game()
    act(game, "convert 8,7")
    if game.phase_name == "gain":
        act(game, "gain INF")
    assert sum(game.resources_of(0)) == 1 and events(game, "pay")[-1]["resorts"] == [0, 1, 1]


# ---------------------------------------------------------------------------- M07 Protest Movement


def test_EXP_03_08_M07_protest_movement_hotspots_place_no_influence_but_resolve():
    sc = Scenario3()
    sc.put("8,7", "Transformationsdruck", influence=[0, 2, 0, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.supply(1, 1)
    sc.draws("Committee")
    sc.effect(M3["M07"], 0, "owner_next_turn")
    game = sc.game()
    act(game, "place 8,6")
    act(game, "place-tile 9,7")  # P1 closes the Transformationsdruck
    assert game.resolved[C(8, 7)] and game.influence_on(C(8, 7)) == [0, 2, 0, 0]  # R43, R51
    assert game.supply[1] == 1 and game.controller(C(8, 7)) == 1  # EXP-03-06-06/07: majority unchanged
    assert events(game, "influence-suppressed")[-1]["rule"] == "EXP-03-08-M07-04"


# ---------------------------------------------------------------------------- M08 / M09 / M10 exemptions


def _directed(**p0):
    sc = _two_resorts(**p0)
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    return sc


def test_EXP_03_08_M08_adaptation_strategy_waives_climate_surcharges_for_everybody():
    sc = _directed()
    assert "place 8,7" not in legal_strings(sc.game())
    sc.effect(M3["M08"], 2, "owner_next_turn")  # R34: global, P0 is not its owner
    game = sc.game()
    act(game, "place 8,7")
    assert game.influence_on(C(8, 7))[0] == 1 and not events(game, "pay")


def test_R55_adaptation_strategy_does_not_waive_budget_deficit():
    sc = _directed()
    sc.effect(M3["M08"], 2, "owner_next_turn")
    sc.effect("EXP-01-M06", 3, "consumed", target=0)  # a Measure surcharge, not a Climate one
    assert "place 8,7" not in legal_strings(sc.game())


def test_EXP_03_08_M09_technology_initiative_waives_climate_costs_of_the_owners_next_action():
    sc = _directed(CLM=1, ECO=1, DOM=1)
    sc.hand(0, M3["M09"])
    game = sc.game()
    act(game, "play EXP-03-M09")  # -M09-02: CLM + ECO + DOM
    assert sum(game.resources_of(0)) == 0
    assert [a.get("target") for a in game.active_effects if a.id == M3["M09"]] == [0]  # not consumed by itself
    sc2 = _directed()
    sc2.effect(M3["M09"], 0, "consumed", target=0)
    game = sc2.game()
    act(game, "place 8,7")  # free for P0 (-M09-05)
    assert game.influence_on(C(8, 7))[0] == 1 and M3["M09"] not in ids(game)  # R31: consumed by that action
    assert events(game, "effect-consumed")[-1]["id"] == M3["M09"]


def test_EXP_03_08_M10_future_pact_waives_climate_costs_for_its_owner_only():
    sc = _directed()
    sc.effect(M3["M10"], 0, "owner_next_turn")
    game = sc.game()
    assert "place 8,7" in legal_strings(game)
    sc.effect(M3["M10"], 2, "owner_next_turn")
    sc.data["active_effects"] = [e for e in sc.data["active_effects"] if e["owner"] != 0 or e["id"] != M3["M10"]]
    assert "place 8,7" not in legal_strings(sc.game())


# ---------------------------------------------------------------------------- M11 Supply Chain Disruption


def test_EXP_03_08_M11_supply_chain_disruption_caps_the_targets_share_per_production_instance():
    sc = Scenario3()
    sc.put("8,7", "DOM-W3", influence=[0, 1, 0, 0])
    sc.put("9,7", "FOR-W2", influence=[0, 1, 0, 1])  # a tie: 1 each, under the cap
    sc.put("8,6", "INF-W3", influence=[0, 0, 1, 0])
    sc.put("6,7", "Committee")
    sc.effect(M3["M11"], 0, "owner_next_turn", target=1)
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "place 6,7")  # P0 ends the round
    assert res(game, 1)["DOM"] == 1 and res(game, 1)["FOR"] == 1  # R38: at most 1 per instance
    assert game.noise[0] == 2  # the excess goes to Noise
    assert res(game, 2)["INF"] == 3 and res(game, 3)["FOR"] == 1  # other recipients unaffected


# ---------------------------------------------------------------------------- without EXP-01


def test_exp03_alone_plays_its_eleven_cards():
    sc = Scenario3(E3)
    sc.put("8,7", "FOR-W2")
    sc.resources(0, CLM=2)
    sc.hand(0, M3["M03"])
    game = sc.game()
    act(game, "play EXP-03-M03")
    assert res(game, 0) == {"DOM": 0, "FOR": 1, "INF": 0, "CLM": 0}


# ---------------------------------------------------------------------------- M12 Extreme Weather Event


def _m12(*effects_, **p1):
    sc = Scenario3()
    sc.put("8,7", "Committee")
    sc.resources(0, CLM=1)
    sc.resources(1, **p1)
    sc.hand(0, M3["M12"])
    for id_, owner, until, data in effects_:
        sc.effect(id_, owner, until, **data)
    sc.draws("Committee")
    sc.draws("DOM-W1")  # P1 draws the ResortTile first
    game = sc.game()
    act(game, "play EXP-03-M12")  # -M12-02: CLM
    assert game.current_player == 1
    return sc, game


def test_EXP_03_08_M12_extreme_weather_placing_a_resort_tile_costs_clm_or_dom():
    sc, game = _m12(DOM=1)
    assert game.phase_name == "place_tile" and game.catalogue[game.drawn].name == "DOM-W1"
    act(game, "place-tile 9,7")  # -M12-04: +1 CLM or +1 DOM, the only payment (BC-05)
    assert res(game, 1)["DOM"] == 0 and game.tile_at[C(9, 7)] >= 0
    assert events(game, "measure-applied")[-1]["rule"] == "EXP-03-08-M12-04"


def test_R54_extreme_weather_an_unpayable_resort_tile_is_unplaceable_and_discarded():
    sc, game = _m12()
    assert [game.catalogue[e["tile"]].name for e in events(game, "discard")] == ["DOM-W1"]  # -M12-05, R4
    assert game.catalogue[game.drawn].name == "Committee"
    act(game, "place-tile 9,7")  # a Committee costs nothing
    assert sum(game.resources_of(1)) == 0


def test_R54_adaptation_strategy_waives_extreme_weather_technology_initiative_and_own_future_pact_do_not():
    sc, game = _m12((M3["M09"], 1, "consumed", {"target": 1}))  # "for that Action": the Political Action only
    assert [game.catalogue[e["tile"]].name for e in events(game, "discard")] == ["DOM-W1"]
    sc, game = _m12((M3["M10"], 1, "owner_next_turn", {}))  # P1's own Phase 1 lies outside its window (R54)
    assert [game.catalogue[e["tile"]].name for e in events(game, "discard")] == ["DOM-W1"]
    sc, game = _m12((M3["M08"], 2, "owner_next_turn", {}))  # Adaptation Strategy: everybody (R34)
    assert not events(game, "discard") and game.catalogue[game.drawn].name == "DOM-W1"
    act(game, "place-tile 9,7")
    assert game.tile_at[C(9, 7)] >= 0 and sum(game.resources_of(1)) == 0


# ---------------------------------------------------------------------------- M05 Greenwashing


def _formalize(**p0):
    sc = Scenario3()
    sc.put("8,7", "Committee")
    for p in range(4):
        sc.data["players"][p]["deployed"] = sc.data["players"][p]["starting"]  # the gate is open (R11)
    sc.resources(0, **p0)
    sc.effect(M3["M05"], 2, "owner_next_turn")
    return sc


def test_bc61_EXP_03_08_M05_greenwashing_the_formalizer_may_pay_clm_or_inf_to_generate_influence():
    game = _formalize(DOM=1, FOR=1, CLM=1, INF=1).game()
    supply = game.supply[0]
    act(game, "formalize 8,7")
    while game.phase_name == "pay":
        act(game, "pay DOM" if "pay DOM" in legal_strings(game) else legal_strings(game)[0])
    assert game.phase_name == "replacement" and game.current_player == 0
    assert legal_strings(game) == ["pay INF", "pay CLM", "decline"]  # -M05-05 (R23, BC-61)
    again = type(game).from_dict(game.to_dict())  # the decision round-trips through the JSON state's stack
    assert again.to_dict() == game.to_dict() and legal_strings(again) == legal_strings(game)
    act(game, "pay CLM")
    assert game.supply[0] == supply + 1 and res(game, 0)["CLM"] == 0
    assert events(game, "pay")[-1]["rule"] == "EXP-03-08-M05-05"


def test_EXP_03_08_M05_06_greenwashing_declined_or_unpayable_generates_nothing():
    game = _formalize(DOM=1, FOR=1, CLM=1).game()
    supply = game.supply[0]
    act(game, "formalize 8,7", "pay DOM", "pay FOR", "decline")
    assert game.supply[0] == supply and res(game, 0)["CLM"] == 1 and sum(game.resources_of(0)) == 1
    assert events(game, "influence-suppressed")[-1]["rule"] == "EXP-03-08-M05-06"
    game = _formalize(DOM=1, FOR=1).game()
    act(game, "formalize 8,7")  # nothing left to pay the replacement with: no decision
    assert game.supply[0] == supply and game.current_player == 1
    assert events(game, "influence-suppressed")[-1]["rule"] == "EXP-03-08-M05-04"


def test_R50_greenwashing_a_start_committee_formalization_is_immune():
    game = _formalize(DOM=1, FOR=1, INF=1, CLM=1).game()
    supply = game.supply[0]
    act(game, "formalize 7,7")  # CORE-01-08-06A (c): 3 different + 1 any, all four held: one payment
    assert game.supply[0] == supply + 1 and game.current_player == 1


def _tdh_closing(*effects_, p2_resources=None):
    sc = Scenario3()
    sc.put("8,7", "Transformationsdruck", influence=[0, 0, 2, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.supply(2, 1)
    sc.resources(2, **(p2_resources or {}))
    sc.draws("Committee")
    for id_, owner in effects_:
        sc.effect(id_, owner, "owner_next_turn")
    game = sc.game()
    act(game, "place 8,6")
    act(game, "place-tile 9,7")  # P1 closes the Transformationsdruck; P2 has the majority
    return game


def test_bc61_R50_greenwashing_the_hotspots_majority_player_decides_during_the_resolution():
    game = _tdh_closing((M3["M05"], 0), p2_resources={"INF": 1})
    assert game.phase_name == "replacement" and game.current_player == 2  # R23: not the active player
    assert legal_strings(game) == ["pay INF", "decline"]
    act(game, "pay INF")
    assert game.influence_on(C(8, 7)) == [0, 0, 3, 0] and game.current_player == 1  # P1's turn goes on
    assert game.phase_name == "political"


def test_bc62_R50_greenwashing_and_protest_movement_a_hotspot_offers_no_replacement():
    game = _tdh_closing((M3["M05"], 0), (M3["M07"], 3), p2_resources={"INF": 1})
    assert game.phase_name == "political" and game.current_player == 1
    assert game.influence_on(C(8, 7)) == [0, 0, 2, 0] and res(game, 2)["INF"] == 1


# ---------------------------------------------------------------------------- M13 Intergenerational Pact


def _pact(p0=None, p2=None, *extra):
    sc = _directed(**(p0 or {}))  # M01 of P1 on 8,7: +1 CLM or DOM for actions there
    sc.effect(M3["M13"], 0, "consumed", player=0)
    sc.resources(2, **(p2 or {}))
    for id_, owner in extra:
        sc.effect(id_, owner, "owner_next_turn")
    return sc


def test_EXP_03_08_M13_the_pact_transfers_one_additional_component_to_the_chosen_player():
    sc = _pact(p2={"DOM": 1})
    game = sc.game()
    assert "place 8,7" in legal_strings(game)  # R52: payable only with a transfer, so legal
    act(game, "place 8,7")
    assert game.phase_name == "transfer" and legal_strings(game) == ["target-player P2"]  # no decline: P0 can't pay
    again = type(game).from_dict(game.to_dict())
    assert again.to_dict() == game.to_dict()
    act(game, "target-player P2")  # -M13-06/07: P2 pays its DOM, no refusal
    assert game.influence_on(C(8, 7))[0] == 1 and res(game, 2)["DOM"] == 0
    assert M3["M13"] not in ids(game)  # -M13-05: consumed by the transfer
    assert [e["rule"] for e in events(game, "effect-consumed")] == ["EXP-03-08-M13-05"]


def test_bc63_R52_the_receiver_picks_the_resort_and_the_owner_may_decline():
    sc = _pact(p0={"CLM": 1}, p2={"DOM": 1, "CLM": 1})
    game = sc.game()
    act(game, "place 8,7")
    assert legal_strings(game) == ["target-player P2", "decline"]
    act(game, "target-player P2")
    assert game.current_player == 2 and legal_strings(game) == ["pay DOM", "pay CLM"]  # R23
    assert type(game).from_dict(game.to_dict()).to_dict() == game.to_dict()
    act(game, "pay CLM")
    assert res(game, 2) == {"DOM": 1, "FOR": 0, "INF": 0, "ECO": 0, "CLM": 0} and res(game, 0)["CLM"] == 1
    game = sc.game()
    act(game, "place 8,7", "decline")  # P0 pays its own CLM; the Pact stays
    assert res(game, 0)["CLM"] == 0 and M3["M13"] in ids(game)


def test_R52_no_transfer_to_a_player_under_future_pact_nor_of_a_base_cost():
    sc = _pact(None, {"DOM": 1}, (M3["M10"], 2))
    assert "place 8,7" not in legal_strings(sc.game())  # P2 is under Future Pact: no transfer, unpayable
    sc = Scenario3()
    sc.put("8,7", "Committee")
    for p in range(4):
        sc.data["players"][p]["deployed"] = sc.data["players"][p]["starting"]
    sc.resources(0, DOM=1)
    sc.resources(2, FOR=1)
    sc.effect(M3["M13"], 0, "consumed", player=0)
    assert "formalize 8,7" not in legal_strings(sc.game())  # the Committee's own cost is no additional cost


def test_bc63_R52_the_pact_transfers_energy_crisis_dom_of_a_convert_resources():
    sc = _convert_scenario(FOR=2)  # Energy Crisis of P2: +1 DOM on ConvertResources
    sc.effect(M3["M13"], 0, "consumed", player=0)
    sc.resources(3, DOM=1)
    game = sc.game()
    assert "convert 8,7" in legal_strings(game)  # payable only with the transfer
    act(game, "convert 8,7", "target-player P3")
    assert res(game, 3)["DOM"] == 0 and game.phase_name == "gain"
    assert "gain FOR" not in legal_strings(game)  # the Grassroots part is FOR, FOR: a different resort
    act(game, "gain INF")
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 1, "ECO": 0, "CLM": 0}


def test_R34_option_owner_only_benefits_adaptation_strategy_helps_only_its_owner():
    from bc_env.rules import RulesConfig

    config = RulesConfig(players=4, exp01=True, exp03=True, owner_only_benefits=True)
    assert "owner_only_benefits" not in RulesConfig(exp01=True).to_dict()
    sc = Scenario3(config)
    sc.put("8,7", "FOR-W2")
    sc.put("9,7", "DOM-W3")
    sc.effect(M3["M01"], 1, "owner_next_turn", cell=C(8, 7))
    sc.effect(M3["M08"], 2, "end_of_player_turn", player=2, turn=0)
    assert "place 8,7" not in legal_strings(sc.game())  # P0 is not its owner
    sc.resources(2, CLM=2)
    sc.hand(2, M3["M08"])
    sc.data["active_effects"] = [e for e in sc.data["active_effects"] if e["id"] != M3["M08"]]
    sc.at(player=2, turns_in_round=2)
    game = sc.game()
    act(game, "play EXP-03-M08")
    assert [a.until for a in game.active_effects if a.id == M3["M08"]] == ["end_of_player_turn"]  # R31 window


def test_R52_the_pact_transfers_extreme_weathers_component_of_a_tile_placement():
    sc = Scenario3()
    sc.put("8,7", "Committee")
    sc.resources(0, CLM=1)
    sc.resources(3, DOM=1)
    sc.hand(0, M3["M12"])
    sc.effect(M3["M13"], 1, "consumed", player=1)
    sc.draws("Committee")
    sc.draws("DOM-W1")
    game = sc.game()
    act(game, "play EXP-03-M12")
    assert not events(game, "discard") and game.catalogue[game.drawn].name == "DOM-W1"  # placeable (R3, R52)
    act(game, "place-tile 9,7")
    assert game.phase_name == "transfer" and legal_strings(game) == ["target-player P3"]
    again = type(game).from_dict(game.to_dict())  # the drawn tile stays drawn while its cost is decided
    assert again.to_dict() == game.to_dict() and legal_strings(again) == legal_strings(game)
    act(game, "target-player P3")
    assert game.tile_at[C(9, 7)] >= 0 and res(game, 3)["DOM"] == 0 and game.phase_name == "political"
