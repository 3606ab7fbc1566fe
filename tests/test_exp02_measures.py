"""EXP-02 Measures (EXP-02-07, EXP-02-08-M01..M15; RULINGS R30..R35, R44..R49, R61): one scenario test per card
that is in, plus the readings docs/rulings.md BC-40.. pins."""

from __future__ import annotations

import pytest
from exp02_support import EXP0102_4P, Scenario02, incomplete_ok, new_game
from positions import res

from bc_env.rules import Game


def act(game: Game, *texts: str) -> None:
    for text in texts:
        game.apply(game.string_to_action(text))


def legal(game: Game) -> list[str]:
    return [game.action_to_string(a) for a in game.legal_actions()]


def events(game: Game, type_: str) -> list[dict]:
    return [e for e in game.events if e["type"] == type_]


def regs(game: Game) -> dict[str, list[int]]:
    return {game.topo.label(c): v for c, v in sorted(game.ext["EXP-02"].on.items())}


def _board(sc: Scenario02) -> Scenario02:
    """SC 7,7; Committee 8,7; Grassroots 6,7; DOM-W3 7,8; Lobbyist 7,6; Hotspot 9,7 (open: 10,7, 9,6, 9,8)."""
    sc.put("8,7", "Committee")
    sc.put("6,7", "Grassroots")
    sc.put("7,8", "DOM-W3")
    sc.put("7,6", "Lobbyist")
    sc.put("9,7", "Hotspot")
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2  # FormalizeInfluence is open (CORE-01-08-02)
    return sc


def _end_round(game: Game) -> None:
    """Play every remaining turn of the round with the lowest legal action until the next round's first draw."""
    r = game.round
    while game.round == r and not game.is_terminal():
        act(game, legal(game)[0])


# ---------------------------------------------------------------------------- M01, M02: placing (R61)


def test_m01_threat_situation_pays_card_and_placement_at_once_then_places_any_regulation():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M01")
    sc.resources(0, SEC=2, INF=1)
    g = sc.game()
    assert "play EXP-02-M01" not in legal(g)  # RULINGS R61: SEC+INF plus 2 SEC must be paid at once
    sc.resources(0, SEC=3, INF=1)
    g = sc.game()
    act(g, "play EXP-02-M01")
    assert res(g, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}
    options = legal(g)
    assert "control 7,8" not in options and "administration 7,8" in options and "blockade 7,7" not in options
    act(g, "control 8,7")
    assert regs(g) == {"8,7": [0, 1, 0, 0]}
    assert events(g, "regulation-placed")[0]["rule"] == "EXP-02-08-M01-03"


def test_m02_emergency_decree_blockades_an_unresolved_hotspot_which_then_resolves_without_effect():
    sc = Scenario02()
    sc.put("8,7", "Hotspot", influence=[0, 1, 0, 0])
    sc.put("9,7", "Committee")
    sc.put("8,6", "Committee")
    sc.put("6,6", "Hotspot", resolved=True)  # not a target: already resolved (RULINGS R32)
    sc.put("6,7", "Committee")
    sc.put("7,6", "Committee")
    sc.hand(0, "EXP-02-M02")
    sc.resources(0, SEC=4)
    sc.draws("Committee")
    g = sc.game()
    act(g, "play EXP-02-M02")  # a single legal target completes by itself
    assert regs(g) == {"8,7": [0, 0, 0, 1]} and res(g, 0)["SEC"] == 0  # card 2 SEC + placement 2 SEC (R32, R61)
    assert events(g, "regulation-placed")[0]["rule"] == "EXP-02-08-M02-03"
    act(g, "place-tile 8,8")  # player 1 closes the Hotspot
    hotspot = g.topo.parse("8,7")
    assert g.resolved[hotspot] and not events(g, "hotspot-resolved")  # EXP-02-04-C-03, RULINGS R43
    assert g.influence_on(hotspot) == [0, 1, 0, 0] and g.supply[1] == 1
    assert "place 8,7" not in legal(g)  # RULINGS R26: the Blockade bars Place onto it


# ---------------------------------------------------------------------------- M04, M07: move and remove


def test_m04_jurisdiction_shift_moves_one_regulation_for_free_and_needs_one():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M04")
    sc.resources(0, SEC=1)
    g = sc.game()
    assert "play EXP-02-M04" not in legal(g)  # RULINGS R49: nothing to move
    sc.reg("7,8", "administration")
    g = sc.game()
    act(g, "play EXP-02-M04", "administration 7,8")
    assert "administration 8,7" not in legal(g)  # R41: Administration only onto tiles that produce or convert
    act(g, "administration 6,7")
    assert regs(g) == {"6,7": [0, 0, 1, 0]} and res(g, 0)["SEC"] == 0


def test_m07_legal_review_removes_one_regulation():
    sc = _board(Scenario02())
    sc.reg("8,7", "blockade")
    sc.hand(0, "EXP-02-M07")
    sc.resources(0, SEC=1, DOM=1)
    g = sc.game()
    act(g, "play EXP-02-M07", "blockade 8,7")
    assert regs(g) == {} and g.ext["EXP-02"].returned == 1  # EXP-02-02-E-01/02


# ---------------------------------------------------------------------------- M06: Order Partnership (R48)


def test_m06_order_partnership_lets_sec_pay_one_named_resource_of_a_measure_cost_for_everybody():
    sc = _board(Scenario02())
    sc.reg("8,7", "control")
    sc.effect("EXP-02-M06", 2, "end_of_round")
    sc.hand(0, "EXP-02-M07")  # SEC + DOM
    sc.resources(0, SEC=2)
    g = sc.game()
    assert "play EXP-02-M07" in legal(g)  # SEC pays the DOM (R34: global, R48: at most one)
    act(g, "play EXP-02-M07", "control 8,7")
    assert res(g, 0)["SEC"] == 0


# ---------------------------------------------------------------------------- M08, M12: at the settlement (R44)


def test_m08_de_escalation_clears_a_hotspot_at_the_next_settlement_despite_surveillance():
    sc = _board(Scenario02())
    sc.reg("9,7", "blockade")
    sc.reg("9,7", "control", 2)
    sc.hand(0, "EXP-02-M08")
    sc.resources(0, SEC=1, INF=1)
    sc.effect("EXP-02-M13", 1, "end_of_round", cell=9 + 7 * 15)  # Surveillance on 9,7 this round
    g = sc.game()
    act(g, "play EXP-02-M08")  # the one Hotspot on the Board: the target completes by itself
    assert regs(g) == {"9,7": [0, 2, 0, 1]}  # nothing yet
    _end_round(g)
    assert regs(g) == {} and len(events(g, "regulation-removed")) == 3  # RULINGS R35, R44, R47


def test_m12_loss_of_control_places_at_the_settlement_paying_then_or_fails():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M12")
    sc.resources(0, SEC=4)
    g = sc.game()
    act(g, "play EXP-02-M12")
    options = legal(g)
    # RULINGS R44: Blockade, Control or SecurityLevel (never Administration) on a Hotspot
    assert options == ["security-level 9,7", "control 9,7", "blockade 9,7"]
    act(g, "control 9,7")
    assert regs(g) == {} and res(g, 0)["SEC"] == 2
    _end_round(g)
    assert regs(g) == {"9,7": [0, 1, 0, 0]} and res(g, 0)["SEC"] == 0
    # unpayable at the settlement: nothing is placed (EXP-02-04-A-04)
    sc.resources(0, SEC=3)
    g = sc.game()
    act(g, "play EXP-02-M12", "blockade 9,7")
    _end_round(g)
    assert regs(g) == {} and events(g, "regulation-not-placed")


# ---------------------------------------------------------------------------- M09, M10: global surcharges


def test_m09_parliamentary_oversight_adds_one_per_regulation_that_modifies_the_effect():
    sc = _board(Scenario02())
    sc.reg("8,7", "control")  # Place onto 8,7: +1 (Control) +1 (Oversight)
    sc.reg("6,7", "security-level")  # Place onto 6,7: SecurityLevel does not modify a Place: +0 (R33)
    sc.effect("EXP-02-M09", 1, "end_of_round")
    sc.resources(0, DOM=1)
    g = sc.game()
    options = legal(g)
    assert "place 8,7" not in options and "place 6,7" in options
    sc.resources(0, DOM=2)
    g = sc.game()
    act(g, "place 8,7")
    assert res(g, 0)["DOM"] == 0


def test_m09_parliamentary_oversight_surcharges_a_security_level_on_convert():
    sc = _board(Scenario02())
    sc.reg("6,7", "security-level")
    sc.effect("EXP-02-M09", 1, "end_of_round")
    sc.resources(0, DOM=2)
    g = sc.game()
    assert "convert 6,7" not in legal(g)  # 2 + 1 (R33: SecurityLevel -> +1 cost and -1 output)
    sc.resources(0, DOM=3)
    g = sc.game()
    act(g, "convert 6,7", "gain FOR")
    assert res(g, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}


def test_m10_state_of_exception_surcharges_every_effect_with_a_payer_this_round():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M10")
    sc.resources(0, SEC=2, DOM=1, FOR=1)
    g = sc.game()
    act(g, "play EXP-02-M10")
    assert [e for e in g.active_effects if e.id == "EXP-02-M10"]
    # player 1: Place now costs 1 Resource of any resort; without Resources no Place is legal (R28)
    act(g, legal(g)[0])  # player 1 places the drawn tile
    assert g.current_player == 1 and not any(a.startswith(("place ", "move-from ")) for a in legal(g))
    g.res[1 * 4 + 2] += 1  # one INF for player 1
    g.bank[2] -= 1
    g._legal = None
    assert "place 8,7" in legal(g)
    act(g, "place 8,7")
    assert res(g, 1)["INF"] == 0 and events(g, "measure-applied")[-1]["rule"] == "EXP-02-08-M10-03"


# ---------------------------------------------------------------------------- M11: Risk Address


def test_m11_risk_address_forbids_the_target_to_play_measures_next_round_only():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M11")
    sc.hand(1, "EXP-02-M15")
    sc.resources(0, SEC=1)
    sc.resources(1, SEC=2)
    g = sc.game()
    act(g, "play EXP-02-M11", "target-player P1")
    act(g, legal(g)[0])  # player 1's tile
    assert "play EXP-02-M15" in legal(g)  # this round it is still allowed
    g2 = sc.game()
    act(g2, "play EXP-02-M11", "target-player P1")
    _end_round(g2)
    while g2.current_player != 1 or g2.phase_name != "political":
        act(g2, legal(g2)[0])
    assert g2.round == 2 and "play EXP-02-M15" not in legal(g2)  # EXP-02-08-M11-03


# ---------------------------------------------------------------------------- M13, M14, M15


def test_m13_surveillance_stops_moving_and_removing_on_its_tile_but_not_placing():
    sc = _board(Scenario02())
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M13")
    sc.resources(0, SEC=1, INF=1)
    g = sc.game()
    act(g, "play EXP-02-M13", "target 8,7")
    assert g.phase_name == "place_tile"
    act(g, legal(g)[0])
    assert "remove-regulation" not in legal(g) and "move-regulation" not in legal(g)  # RULINGS R47


def test_m14_file_status_doubles_one_regulation_bc41_and_ends_when_it_leaves():
    sc = _board(Scenario02())
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M14")
    sc.resources(0, SEC=1, DOM=1)
    g = sc.game()
    act(g, "play EXP-02-M14")
    assert legal(g) == ["control 8,7"]
    act(g, "control 8,7")
    # player 1 places onto 8,7: +2 now (R46)
    act(g, legal(g)[0])
    g.res[1 * 4 + 0] += 1
    g.bank[0] -= 1
    g._legal = None
    assert "place 8,7" not in legal(g)
    g.res[1 * 4 + 1] += 1
    g.bank[1] -= 1
    g._legal = None
    assert "place 8,7" in legal(g)
    # moving it away ends the doubling (BC-41)
    act(g, "move-regulation", "control 8,7", "control 9,7")
    assert not [e for e in g.active_effects if e.id == "EXP-02-M14"]


def test_m15_situation_assessment_discounts_the_next_placement_by_anybody_to_one_sec_r45():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M15")
    sc.hand(1, "EXP-02-M01")
    sc.resources(0, SEC=1)
    sc.resources(1, SEC=2, INF=1)
    g = sc.game()
    act(g, "play EXP-02-M15")
    act(g, legal(g)[0])  # player 1's tile
    assert "play EXP-02-M01" in legal(g)  # SEC+INF + 1 SEC (R34: global; R45)
    act(g, "play EXP-02-M01", "blockade 8,7")
    assert res(g, 1) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}
    assert not [e for e in g.active_effects if e.id == "EXP-02-M15"]  # consumed by the first placement
    assert events(g, "effect-consumed")[-1]["rule"] == "EXP-02-08-M15-03"


# ---------------------------------------------------------------------------- M03, M05: windows (R30, R31)


def _inner_order_next(sc: Scenario02, leader: int) -> None:
    """Inner Order at 9,7 (leader's Influence) with 10,7 and 9,6 on the Board; the next drawn tile is a Committee
    that closes it at 9,8."""
    sc.put("8,7", "Committee")
    sc.put("9,7", "Inner Order", influence=[int(q == leader) for q in range(4)])
    sc.put("10,7", "Committee")
    sc.put("9,6", "Committee")
    sc.put("7,8", "DOM-W3")
    sc.draws("Committee")


def test_m03_deployment_order_moves_the_owners_next_placement_even_on_another_turn():
    sc = Scenario02()
    _inner_order_next(sc, leader=0)
    sc.hand(0, "EXP-02-M03")
    sc.resources(0, SEC=3)
    g = sc.game()
    act(g, "play EXP-02-M03")
    window = [a for a in g.active_effects if a.id == "EXP-02-M03"]
    assert window and window[0].until == "end_of_player_turn"
    act(g, "place-tile 9,8")  # player 1 closes Inner Order; player 0 leads it (R23)
    assert g.current_player == 0
    act(g, "place-regulation", "security-level 8,7")
    # RULINGS R31: at once a free move of that Regulation, chosen by the owner
    assert g.current_player == 0 and g.phase_name == "regulation-move-to"
    assert "security-level 8,7" not in legal(g)
    act(g, "security-level 7,8")
    assert regs(g) == {"7,8": [1, 0, 0, 0]} and res(g, 0)["SEC"] == 0  # card 1 + placement 2
    assert not [a for a in g.active_effects if a.id == "EXP-02-M03"]  # consumed
    assert g.current_player == 1 and g.phase_name == "political"


def test_m03_window_lapses_after_the_owners_next_turn():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M03")
    sc.resources(0, SEC=1)
    g = sc.game()
    act(g, "play EXP-02-M03")
    while not (g.active == 0 and g.phase_name == "place_tile"):
        act(g, legal(g)[0])
    assert [a for a in g.active_effects if a.id == "EXP-02-M03"]  # through the owner's next turn
    while g.active == 0:
        act(g, legal(g)[0])
    assert not [a for a in g.active_effects if a.id == "EXP-02-M03"]


def test_m05_competence_conflict_places_administration_on_aa_after_the_owners_activation_r30():
    sc = _board(Scenario02())
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M05")
    sc.resources(0, SEC=3, DOM=1)
    g = sc.game()
    act(g, "play EXP-02-M05")
    while not (g.active == 0 and g.phase_name == "political"):
        act(g, legal(g)[0])
    act(g, "remove-regulation", "control 8,7")
    # RULINGS R30: Administration onto AA (despite EXP-02-02-B-06), paying 2 SEC
    assert regs(g) == {"8,6": [0, 0, 1, 0]} and res(g, 0)["SEC"] == 0
    assert g.ext["EXP-02"].check(g) == []
    # afterwards AA activations cost +1 (B-05); that Administration moves only to tiles that produce or convert
    data = g.to_dict()
    with incomplete_ok():
        assert Game.from_dict(data).to_dict() == data


def test_m05_competence_conflict_places_nothing_when_its_owner_cannot_pay():
    sc = _board(Scenario02())
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M05")
    sc.resources(0, SEC=2, DOM=1)
    g = sc.game()
    act(g, "play EXP-02-M05")
    while not (g.active == 0 and g.phase_name == "political"):
        act(g, legal(g)[0])
    act(g, "remove-regulation", "control 8,7")
    assert regs(g) == {} and events(g, "regulation-not-placed")  # the activation stands


@pytest.mark.parametrize("seed", [0, 1])
def test_exp01_and_exp02_decks_play_side_by_side(seed):
    g = new_game(EXP0102_4P, seed)
    assert g.decks == ("EXP-01", "EXP-02")
    with incomplete_ok():
        assert Game.from_dict(g.to_dict()).to_dict() == g.to_dict()


def test_m12_placement_at_the_settlement_triggers_deployment_order_and_the_settlement_resumes():
    sc = _board(Scenario02())
    sc.hand(0, "EXP-02-M12")
    sc.resources(0, SEC=4)
    sc.effect("EXP-02-M03", 0, "end_of_player_turn", player=0, turn=3)  # played earlier this turn
    sc.at(player=0, turns_in_round=3, start_player=1)  # player 0 takes the round's last turn
    g = sc.game()
    act(g, "play EXP-02-M12", "blockade 9,7")
    # the settlement starts: Loss of Control places, Deployment Order asks its owner for the move (R31, R44)
    assert g.phase_name == "regulation-move-to" and g.current_player == 0
    data = g.to_dict()
    assert [f["frame"] for f in data["stack"]][-2:] == ["settlement-regulations", "regulation"]
    with incomplete_ok():
        h = Game.from_dict(data)
    assert h.to_dict() == data
    act(h, "blockade 8,7")
    assert regs(h) == {"8,7": [0, 0, 0, 1]} and h.round == 2 and h.phase_name == "place_tile"


# ---------------------------------------------------------------------------- R34 option: owner_only_benefits


def _to_owners_next_turn(game: Game) -> None:
    """Players 1..3 take their turns (lowest tile cell, then pass) until player 0's next Political Action."""
    act(game, legal(game)[0])  # player 1's tile
    while not (game.current_player == 0 and game.phase_name == "political"):
        options = legal(game)
        act(game, "pass" if "pass" in options else options[0])


@pytest.mark.parametrize("owner_only", [False, True])
def test_m06_order_partnership_global_or_owner_only_with_the_r31_window_bc43(owner_only):
    from bc_env.rules import RulesConfig

    config = RulesConfig(players=4, exp02=True, owner_only_benefits=owner_only)
    sc = _board(Scenario02(config))
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M06", "EXP-02-M07")  # M07 Legal Review: SEC + DOM
    sc.resources(0, SEC=3, FOR=1)
    sc.hand(1, "EXP-02-M14")  # File Status: SEC + DOM
    sc.resources(1, SEC=2)
    g = sc.game()
    act(g, "play EXP-02-M06")
    (active,) = [a for a in g.active_effects if a.id == "EXP-02-M06"]
    assert active.until == ("end_of_player_turn" if owner_only else "end_of_round")
    act(g, legal(g)[0])  # player 1's tile
    # RULINGS R34: as written everybody may pay the DOM with SEC; with the option only the owner
    assert ("play EXP-02-M14" in legal(g)) is not owner_only
    _to_owners_next_turn(g)  # the Round Settlement lies between (4 players: round 2)
    assert g.round == 2
    # "this round" ended at the settlement (R35); the owner's R31 window runs to the end of its next turn
    assert ("play EXP-02-M07" in legal(g)) is owner_only
    if owner_only:
        act(g, "play EXP-02-M07", "control 8,7")
        assert res(g, 0)["SEC"] == 0 and regs(g) == {}
        act(g, "pass") if "pass" in legal(g) else None
        _to_owners_next_turn(g)
    assert not [a for a in g.active_effects if a.id == "EXP-02-M06"]
    assert g.config.to_dict()["owner_only_benefits"] is owner_only  # written with EXP-02 alone (R34 option)
    assert RulesConfig.from_dict(g.config.to_dict()) == config


@pytest.mark.parametrize("owner_only", [False, True])
def test_m15_situation_assessment_global_or_owner_only_with_the_r31_window_bc43(owner_only):
    from bc_env.rules import RulesConfig

    config = RulesConfig(players=4, exp02=True, owner_only_benefits=owner_only)
    sc = _board(Scenario02(config))
    sc.hand(0, "EXP-02-M15", "EXP-02-M02")  # Emergency Decree: SEC + SEC + the 2 SEC placement (R61)
    sc.resources(0, SEC=4)
    sc.hand(1, "EXP-02-M01")  # Threat Situation: SEC + INF + the placement
    sc.resources(1, SEC=2, INF=1)
    g = sc.game()
    act(g, "play EXP-02-M15")
    (active,) = [a for a in g.active_effects if a.id == "EXP-02-M15"]
    assert active.until == ("end_of_player_turn" if owner_only else "end_of_round")
    act(g, legal(g)[0])  # player 1's tile
    # RULINGS R34/R45: as written anybody's next placement costs 1 SEC; with the option only the owner's
    assert ("play EXP-02-M01" in legal(g)) is not owner_only
    _to_owners_next_turn(g)
    assert g.round == 2
    # the owner's own placement in its window: Emergency Decree for 3 SEC instead of 4
    assert ("play EXP-02-M02" in legal(g)) is owner_only
    if owner_only:
        act(g, "play EXP-02-M02")
        assert regs(g) == {"9,7": [0, 0, 0, 1]} and res(g, 0)["SEC"] == 0
        assert not [a for a in g.active_effects if a.id == "EXP-02-M15"]  # consumed by the owner's placement
        assert events(g, "effect-consumed")[-1]["rule"] == "EXP-02-08-M15-03"
    else:
        assert not [a for a in g.active_effects if a.id == "EXP-02-M15"]  # lapsed at the settlement (R35)


def test_owner_only_benefits_is_not_written_for_core_or_exp01_configs():
    from bc_env.rules import RulesConfig

    assert "owner_only_benefits" not in RulesConfig(players=4).to_dict()
    assert "owner_only_benefits" not in RulesConfig(players=4, exp01=True).to_dict()
    assert RulesConfig(players=4, exp02=True).to_dict()["owner_only_benefits"] is False
