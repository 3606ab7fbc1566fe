"""Scenario tests of the interactions between expansions that the rule texts and RULINGS name (issue #15):
EXP-02-10 and EXP-03-10, the production order of CORE-01-06-16 with EXP-01 doubling, Climate modifiers and
Regulation reductions in one production (RULINGS R38, R40), and each pair of expansions (EXP-01 + EXP-02,
EXP-01 + EXP-03, EXP-02 + EXP-03) plus all three.

Every scenario starts from a real preset (``exp0102-4p``, ``exp0103-4p``, ``exp0203-4p``, ``all-4p``), puts tiles,
Influence, Resources, Regulations, hands and Measures in force into the JSON state and loads it with
``Game.from_dict`` (tests/exp01_support.py), then asserts the exact outcome.
"""

from __future__ import annotations

from typing import Any

from exp01_support import Scenario, act, events, legal_strings
from positions import res

from bc_env.rules import Game, RulesConfig


class X(Scenario):
    """A Scenario of any preset, with Regulations (EXP-02) and hands of every deck."""

    def reg(self, cell: str, type_: str, n: int = 1) -> None:
        r = self.data["regulations"]
        r["attached"].setdefault(cell, {})
        r["attached"][cell][type_] = r["attached"][cell].get(type_, 0) + n
        r["placed"] += n

    def hand(self, p: int, *keys: str) -> None:
        for key in keys:
            deck = self.data["measures"]["decks"][key[:6]]  # "EXP-02-M07" is a card of deck "EXP-02"
            for zone in ("draw_pile", "open", "recycle_pile", "final_discard"):
                if key in deck[zone]:
                    deck[zone].remove(key)
            self.data["measures"]["hands"][p].append(key)
            while len(deck["open"]) < 3 and deck["draw_pile"]:
                deck["open"].append(deck["draw_pile"].pop())


def cell(game: Game, text: str) -> int:
    return game.topo.parse(text)


def noise(game: Game) -> dict[str, int]:
    return dict(zip(game.config.resorts, game.noise))


def regs(game: Game) -> dict[str, list[int]]:
    return {game.topo.label(c): v for c, v in sorted(game.ext["EXP-02"].on.items())}


def settle(sc: X) -> Game:
    """P0 plays the last turn of the round (Place on the Committee at 6,7): the Round Settlement follows."""
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "place 6,7")
    return game


def effect_ids(game: Game) -> list[str]:
    return [e["id"] for e in game.to_dict()["active_effects"]]


def applied(game: Game) -> list[tuple[str, Any]]:
    return [(e["rule"], e.get("extra")) for e in events(game, "measure-applied")]


# ---------------------------------------------------------------------------- EXP-02 + EXP-03: costs


def _directed_admin(preset: str = "exp0203-4p") -> X:
    """FOR-W2 on 8,7 with an Administration and a Transformation Directive (P1's) on it; Committee on 6,7."""
    sc = X(preset)
    sc.put("8,7", "FOR-W2")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "administration")
    sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
    return sc


def test_EXP_03_10_02_EXP_02_10_04_climate_and_regulation_surcharges_stack_additively():
    """Place onto the tile costs +1 any (Administration, EXP-02-02-B-05) and +1 CLM or DOM (EXP-03-08-M01-05)."""
    sc = _directed_admin()
    sc.resources(0, DOM=1, INF=1)
    game = sc.game()
    act(game, "place 8,7")
    assert sum(res(game, 0).values()) == 0 and game.influence_on(cell(game, "8,7"))[0] == 1
    assert sorted(applied(game)) == [("EXP-02-02-B-05", 1), ("EXP-03-08-M01-05", 1)]
    for short in ({"INF": 2}, {"DOM": 1}, {"CLM": 1}):  # the CLM-or-DOM slot, or the total, cannot be paid
        sc.resources(0, **short)
        assert "place 8,7" not in legal_strings(sc.game()), short
    sc.resources(0, CLM=1, SEC=1)
    assert "place 8,7" in legal_strings(sc.game())  # SEC pays the "any resort" slot (EXP-02-01-05)


def test_R55_a_climate_exemption_waives_the_climate_surcharge_but_not_the_regulation_one():
    sc = _directed_admin()
    sc.effect("EXP-03-M08", 2, "owner_next_turn")  # Adaptation Strategy: global (R34)
    sc.resources(0)
    assert "place 8,7" not in legal_strings(sc.game())  # Administration's +1 stays (R55)
    sc.resources(0, INF=1)
    game = sc.game()
    act(game, "place 8,7")
    assert sum(res(game, 0).values()) == 0 and game.influence_on(cell(game, "8,7"))[0] == 1


def test_R33_parliamentary_oversight_adds_one_per_regulation_not_per_climate_surcharge():
    sc = _directed_admin()
    sc.effect("EXP-02-M09", 2, "end_of_round")
    sc.resources(0, DOM=1, INF=1)
    assert "place 8,7" not in legal_strings(sc.game())  # 1 (Administration) + 1 (Oversight) + 1 (Directive)
    sc.resources(0, DOM=1, INF=1, FOR=1)
    game = sc.game()
    act(game, "place 8,7")
    assert sum(res(game, 0).values()) == 0


def test_R55_climate_exemptions_do_not_waive_state_of_exception():
    """Technology Initiative (EXP-03-08-M09-05) and Future Pact (-M10-04) waive Climate surcharges only."""
    sc = _directed_admin()
    sc.effect("EXP-02-M10", 2, "end_of_round")  # State of Exception: all effects +1 (EXP-02-08-M10-03)
    sc.effect("EXP-03-M09", 0, "consumed", target=0)
    sc.effect("EXP-03-M10", 0, "owner_next_turn")
    sc.resources(0, INF=1)
    assert "place 8,7" not in legal_strings(sc.game())  # Administration + State of Exception remain
    sc.resources(0, INF=2)
    game = sc.game()
    act(game, "place 8,7")
    assert sum(res(game, 0).values()) == 0 and game.influence_on(cell(game, "8,7"))[0] == 1


def test_EXP_03_10_03_EXP_02_10_05_blockade_overrides_climate_surcharges_before_any_payment():
    sc = X("exp0203-4p")
    sc.put("8,7", "FOR-W2")
    sc.put("9,7", "DOM-W2")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "blockade")
    sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
    sc.effect("EXP-03-M02", 2, "end_of_next_round", resort=1, round=1)  # Carbon Levy on FOR
    sc.resources(0, CLM=4, DOM=4)
    sc.hand(0, "EXP-03-M03")
    game = sc.game()
    options = legal_strings(game)
    assert "place 8,7" not in options and "place 9,7" in options and "place 6,7" in options  # R26, R62
    act(game, "play EXP-03-M03")  # Future Investment: the blockaded tile is no target (R26)
    assert game.phase_name != "target" or legal_strings(game) == ["target 9,7"]
    assert events(game, "future-investment")[-1]["cell"] == cell(game, "9,7")
    assert res(game, 0)["DOM"] == 5 and res(game, 0)["CLM"] == 2  # card paid, no surcharge, +1 DOM


def test_R27_climate_tile_surcharges_never_apply_to_exp02_measures():
    """Legal Review (EXP-02-08-M07) removes a Regulation from a tile under a Transformation Directive and a Carbon
    Levy: an EXP-02 Measure has no ContextTile, so neither surcharge applies."""
    sc = X("exp0203-4p")
    sc.put("8,7", "FOR-W2")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "security-level")
    sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
    sc.effect("EXP-03-M02", 2, "end_of_next_round", resort=1, round=1)
    sc.hand(0, "EXP-02-M07")
    sc.resources(0, SEC=1, DOM=1)
    game = sc.game()
    act(game, "play EXP-02-M07", "security-level 8,7")
    assert regs(game) == {} and sum(res(game, 0).values()) == 0


# ---------------------------------------------------------------------------- EXP-02 + EXP-03: outputs


def _closing_hotspot(sc: X, name: str = "Hotspot") -> Game:
    """A Hotspot on 8,7 led by P1 (2 Influence, 1 in supply); P0 places, P1 closes it with a Committee on 9,7."""
    sc.put("8,7", name, influence=[0, 2, 0, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.supply(1, 1)
    sc.draws("Committee")
    game = sc.game()
    act(game, "place 8,6", "place-tile 9,7")
    return game


def test_bc65_EXP_02_04_B_01_security_level_reduces_a_hotspot_placement_before_greenwashing_suppresses_it():
    """R29: SecurityLevel reduces the Hotspot's Influence placement (1 - 1 = 0); with nothing left to generate,
    Greenwashing offers no replacement (docs/rulings.md BC-65; R50's Protest Movement case), and the Hotspot
    counts as resolved (R43)."""
    sc = X("exp0203-4p")
    sc.effect("EXP-03-M05", 0, "owner_next_turn")
    sc.resources(1, CLM=1)
    control = _closing_hotspot(sc)
    assert control.phase_name == "replacement" and legal_strings(control) == ["pay CLM", "decline"]
    sc = X("exp0203-4p")
    sc.effect("EXP-03-M05", 0, "owner_next_turn")
    sc.resources(1, CLM=1)
    sc.reg("8,7", "security-level")
    game = _closing_hotspot(sc)
    hotspot = cell(game, "8,7")
    assert game.phase_name == "political" and game.current_player == 1  # no replacement decision
    assert game.supply[1] == 1 and res(game, 1)["CLM"] == 1 and game.influence_on(hotspot) == [0, 2, 0, 0]
    assert game.resolved[hotspot] and events(game, "hotspot-output-zero") and not events(game, "influence-suppressed")


def test_bc65_EXP_03_06_06_security_level_then_greenwashing_on_formalize():
    """FormalizeInfluence's new Influence is an output (R29): SecurityLevel on the Committee takes it to 0 first,
    so Greenwashing asks no replacement (BC-65); without the SecurityLevel the formalizer may pay 1 CLM (R50)."""

    def formalize(security_levels: int) -> tuple[Game, int]:
        sc = X("exp0203-4p")
        sc.put("8,7", "Committee")
        sc.put("6,7", "Committee")
        if security_levels:
            sc.reg("8,7", "security-level", security_levels)
        for p in range(4):
            sc.data["players"][p]["deployed"] = 2  # FormalizeInfluence is open (CORE-01-08-02)
        sc.effect("EXP-03-M05", 2, "owner_next_turn")
        sc.resources(0, DOM=1, FOR=1, CLM=1)
        game = sc.game()
        before = game.supply[0]
        act(game, "formalize 8,7", "pay DOM", "pay FOR")
        return game, before

    game, before = formalize(0)
    assert game.phase_name == "replacement" and legal_strings(game) == ["pay CLM", "decline"]
    act(game, "pay CLM")
    assert game.supply[0] == before + 1 and sum(res(game, 0).values()) == 0
    game, before = formalize(1)
    assert game.phase_name == "place_tile" and game.current_player == 1  # the turn is over, nothing asked
    assert game.supply[0] == before and res(game, 0)["CLM"] == 1
    assert [e["rule"] for e in events(game, "measure-applied")] == ["EXP-02-02-B-02"]


def test_R51_R43_protest_movement_and_security_level_on_a_hotspot_leave_majority_and_control():
    sc = X("exp0203-4p")
    sc.effect("EXP-03-M07", 0, "owner_next_turn")
    sc.reg("8,7", "security-level")
    game = _closing_hotspot(sc, "Transformationsdruck")
    hotspot = cell(game, "8,7")
    assert game.resolved[hotspot] and game.controller(hotspot) == 1 and game.supply[1] == 1  # EXP-03-06-06/07


def test_R32_emergency_decree_blockades_a_transformationsdruck_which_then_resolves_without_effect():
    sc = X("exp0203-4p")
    sc.put("8,7", "Transformationsdruck", influence=[0, 2, 0, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.put("7,6", "Hotspot", resolved=True)  # resolved: no target (R32)
    sc.put("6,6", "Committee")
    sc.hand(0, "EXP-02-M02")
    sc.resources(0, SEC=4)
    sc.supply(1, 1)
    sc.draws("Committee")
    game = sc.game()
    act(game, "play EXP-02-M02")  # the one legal target completes by itself
    assert regs(game) == {"8,7": [0, 0, 0, 1]} and res(game, 0)["SEC"] == 0  # card + placement (R61)
    act(game, "place-tile 9,7")  # P1 closes it
    hotspot = cell(game, "8,7")
    assert game.resolved[hotspot] and game.supply[1] == 1 and game.influence_on(hotspot) == [0, 2, 0, 0]  # R43


def test_R41_control_but_not_administration_goes_on_a_transformationsdruck():
    sc = X("exp0203-4p")
    sc.put("8,7", "Transformationsdruck")
    sc.put("6,7", "CLM-W1")
    sc.hand(0, "EXP-02-M01")  # Threat Situation: place one Regulation of your choice
    sc.resources(0, SEC=3, INF=1)
    game = sc.game()
    act(game, "play EXP-02-M01")
    options = legal_strings(game)
    assert "control 8,7" in options and "administration 8,7" not in options
    assert "administration 6,7" in options and "control 6,7" not in options  # a CLM ResortTile produces


def test_R29_R26_future_investment_gain_is_reduced_by_a_security_level_on_its_tile():
    # CORE-01-06-00-04: the card's one ContextTile is the targeted tile; CORE-01-06-00-02: the reduced output is
    # part of the resolution, which is complete (the card's cost is paid).
    sc = X("exp0203-4p")
    sc.put("8,7", "FOR-W2")
    sc.reg("8,7", "security-level")
    sc.hand(0, "EXP-03-M03")
    sc.resources(0, CLM=2)
    game = sc.game()
    act(game, "play EXP-03-M03")  # the one ResortTile: 1 - 1 = 0 (BC-60)
    assert sum(res(game, 0).values()) == 0 and events(game, "future-investment")[-1]["amount"] == 0


def test_R38_R40_supply_chain_cap_after_security_level_reduction():
    """DOM-W3 controlled by P1: 3 - 1 (SecurityLevel) = 2, P1's share capped at 1 (Supply Chain Disruption), the
    excess to Noise; without the SecurityLevel 3 is capped to 1 and 2 go to Noise."""
    for levels, noise_dom in ((1, 1), (0, 2), (3, 0)):
        sc = X("exp0203-4p")
        sc.put("8,7", "DOM-W3", influence=[0, 1, 0, 0])
        sc.put("6,7", "Committee")
        if levels:
            sc.reg("8,7", "security-level", levels)
        sc.effect("EXP-03-M11", 0, "owner_next_turn", target=1)
        game = settle(sc)
        assert res(game, 1)["DOM"] == (1 if levels < 3 else 0) and noise(game)["DOM"] == noise_dom, levels


# ---------------------------------------------------------------------------- EXP-02 + EXP-03: tile placement


def _weather(sc: X) -> Game:
    """Extreme Weather Event (P2's), State of Exception and Parliamentary Oversight in force; P1 draws a FOR-W2
    after P0 passes."""
    sc.put("8,7", "Committee")
    sc.draws("FOR-W2")
    sc.effect("EXP-03-M12", 2, "owner_next_turn")
    sc.effect("EXP-02-M10", 2, "end_of_round")
    sc.effect("EXP-02-M09", 2, "end_of_round")
    game = sc.game()
    act(game, "pass")  # P0 holds nothing: under State of Exception every Political Action costs +1
    return game


def test_R54_R28_extreme_weather_surcharges_tile_placement_and_regulation_cards_do_not():
    """Placing a ResortTile costs +1 CLM or +1 DOM (EXP-03-08-M12-04); tile placement is no Effect, so State of
    Exception and Parliamentary Oversight add nothing to it (R28)."""
    sc = X("exp0203-4p")
    sc.resources(1, DOM=1)
    game = _weather(sc)
    assert game.phase_name == "place_tile" and game.current_player == 1
    act(game, "place-tile 9,7")
    assert game.catalogue[game.tile_at[cell(game, "9,7")]].name == "FOR-W2" and res(game, 1)["DOM"] == 0
    assert [(e["rule"], e["extra"]) for e in events(game, "measure-applied")] == [("EXP-03-08-M12-04", 1)]


def test_R54_R4_an_unpayable_extreme_weather_surcharge_makes_the_resort_tile_unplaceable():
    sc = X("exp0203-4p")
    sc.resources(1, INF=1)  # INF pays neither CLM nor DOM
    game = _weather(sc)
    discarded = [game.catalogue[e["tile"]].name for e in events(game, "discard")]
    assert discarded[0] == "FOR-W2" and res(game, 1)["INF"] == 1


def test_R27_R54_threat_situations_regulation_placement_is_not_surcharged_by_climate_cards():
    """Placing a Regulation (an EXP-02 Measure's effect, ContextTile null) pays 2 SEC only: Extreme Weather covers
    ResortTiles, Transformation Directive and Carbon Levy actions with a ContextTile."""
    sc = X("exp0203-4p")
    sc.put("8,7", "FOR-W2")
    sc.effect("EXP-03-M12", 2, "owner_next_turn")
    sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
    sc.effect("EXP-03-M02", 2, "end_of_next_round", resort=1, round=1)
    sc.hand(0, "EXP-02-M01")
    sc.resources(0, SEC=3, INF=1)
    game = sc.game()
    act(game, "play EXP-02-M01", "administration 8,7")
    assert regs(game) == {"8,7": [0, 0, 1, 0]} and sum(res(game, 0).values()) == 0


# ---------------------------------------------------------------------------- Measures of one deck vs the other


def _two_cards(preset: str = "all-4p") -> X:
    sc = X(preset)
    sc.put("8,7", "FOR-W2")
    sc.put("6,7", "Committee")
    sc.hand(0, "EXP-03-M07", "EXP-02-M15")
    sc.resources(0, CLM=1, SEC=1)
    return sc


def plays(game: Game) -> list[str]:
    return [s for s in legal_strings(game) if s.startswith(("play ", "take "))]


def test_R20_hand_limit_and_one_playmeasure_per_round_count_every_deck():
    sc = _two_cards()
    assert plays(sc.game()) == ["play EXP-02-M15", "play EXP-03-M07"]  # two cards in hand: no TakeMeasure (R20)
    sc.data["measures"]["last_play_round"][0] = 1  # P0 played a card of one deck this round (EXP-01-06-18)
    assert plays(sc.game()) == []
    sc.data["measures"]["hands"][0] = ["EXP-02-M15"]
    sc.data["measures"]["decks"]["EXP-03"]["draw_pile"].append("EXP-03-M07")
    assert plays(sc.game()) == ["take EXP-01-M01", "take EXP-01-M08", "take EXP-01-M09", "take EXP-02-M02",
                                "take EXP-02-M03", "take EXP-02-M09", "take EXP-03-M04", "take EXP-03-M06",
                                "take EXP-03-M10"]  # fmt: skip


def test_R49_risk_address_forbids_playing_cards_of_every_deck_and_future_resolution_too():
    sc = _two_cards()
    sc.effect("EXP-02-M11", 1, "end_of_round", from_round=1, target=0)  # Risk Address on P0, in force now
    assert plays(sc.game()) == []
    sc = _two_cards()
    sc.at(player=0, turns_in_round=1, start_player=3)
    sc.effect("EXP-03-M04", 3, "end_of_player_turn", player=0, turn=0)  # Future Resolution on P0's next turn
    assert plays(sc.game()) == []
    sc.data["measures"]["hands"][0] = ["EXP-02-M15"]
    sc.data["measures"]["decks"]["EXP-03"]["draw_pile"].append("EXP-03-M07")
    assert plays(sc.game())[:1] == ["take EXP-01-M01"]  # TakeMeasure stays allowed (R49)
    assert "play EXP-02-M15" not in plays(sc.game())


def test_R48_R56_order_partnership_lets_sec_pay_a_climate_cards_clm_but_clm_never_pays_sec():
    sc = X("exp0203-4p")
    sc.put("8,7", "Committee")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-03-M07")  # Protest Movement: CLM
    sc.resources(0, SEC=1)
    assert "play EXP-03-M07" not in legal_strings(sc.game())
    sc.effect("EXP-02-M06", 2, "end_of_round")  # Order Partnership (global, R34)
    game = sc.game()
    act(game, "play EXP-03-M07")
    assert sum(res(game, 0).values()) == 0
    sc = X("exp0203-4p")
    sc.put("8,7", "Committee")
    sc.reg("8,7", "control")
    sc.hand(0, "EXP-02-M04")  # Jurisdiction Shift: SEC
    sc.resources(0, CLM=3)
    sc.effect("EXP-02-M06", 2, "end_of_round")
    assert "play EXP-02-M04" not in legal_strings(sc.game())  # EXP-03-01-06: CLM substitutes for nothing


def test_R52_intergenerational_pact_transfers_a_regulation_surcharge_component():
    sc = X("exp0203-4p")
    sc.put("8,7", "Committee")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "control")
    sc.effect("EXP-03-M13", 0, "consumed", player=0)
    sc.resources(3, INF=1)
    game = sc.game()
    act(game, "place 8,7")  # P0 holds nothing: only the transfer makes the Control's +1 payable
    assert game.phase_name == "transfer" and legal_strings(game) == ["target-player P3"]
    act(game, "target-player P3")
    assert game.influence_on(cell(game, "8,7"))[0] == 1 and res(game, 3)["INF"] == 0
    assert "EXP-03-M13" not in effect_ids(game)  # consumed by the transfer (EXP-03-08-M13-05)


def test_R36_deck_sizes_of_the_combined_presets():
    def sizes(preset: str) -> dict[str, int]:
        decks = Game.new(preset, 0).to_dict()["measures"]["decks"]
        return {
            k: sum(len(v[z]) for z in ("draw_pile", "open", "recycle_pile", "final_discard")) for k, v in decks.items()
        }

    assert sizes("exp0203-4p") == {"EXP-02": 15, "EXP-03": 11}  # without EXP-01 the ECO cards are out (R36)
    assert sizes("exp0103-4p") == {"EXP-01": 10, "EXP-03": 15}
    assert sizes("exp0102-4p") == {"EXP-01": 10, "EXP-02": 15}
    assert sizes("all-4p") == {"EXP-01": 10, "EXP-02": 15, "EXP-03": 15}


# ---------------------------------------------------------------------------- all three: one production


def _production(*, levels: int = 1, cap: bool = True, influence: tuple[int, ...] = (0, 1, 0, 0), printed_cut=True):
    """DOM-W3 on 8,7 in an all-4p game, with P2's Subsidy Reduction (standalone: printed value -1 for good),
    Economic Stimulus (doubling) and Location Debate (-1 this settlement), ``levels`` SecurityLevels and P0's
    Supply Chain Disruption on P1; P0 ends the round."""
    sc = X("all-4p")
    sc.put("8,7", "DOM-W3", influence=list(influence))
    sc.put("6,7", "Committee")
    c = sc.topo.parse("8,7")
    if printed_cut:
        sc.effect("EXP-01-M04", 2, "permanent", cell=c)
    sc.effect("EXP-01-M02", 2, "end_of_settlement", cell=c)
    sc.effect("EXP-01-M05", 2, "end_of_settlement", cell=c)
    if levels:
        sc.reg("8,7", "security-level", levels)
    if cap:
        sc.effect("EXP-03-M11", 0, "owner_next_turn", target=1)
    return settle(sc)


def test_CORE_01_06_16_EXP_03_10_04_EXP_02_10_03_R40_one_production_with_all_three_expansions():
    """CORE-01-06-16-00: every modifier of the tile is collected first; then R40's order per ResortTile: printed
    value (3 - 1, Subsidy Reduction) -> doubling (4) -> output modifiers: EXP-01 reduction (-1), Climate (none,
    R38), SecurityLevel (-1) -> floor 0 -> control -> distribution (2 to P1) -> Supply Chain Disruption cap (1;
    the excess to Noise, R38)."""
    game = _production()
    assert res(game, 1)["DOM"] == 1 and noise(game)["DOM"] == 1
    order = [e["rule"] for e in events(game, "measure-applied")]
    assert order == ["EXP-01-06-M04-04", "EXP-01-06-M02-04", "EXP-01-06-M05-04", "EXP-02-02-B-02", "EXP-03-08-M11-05"]
    assert [e["share"] for e in events(game, "produce")] == [2]
    game = _production(cap=False)
    assert res(game, 1)["DOM"] == 2 and noise(game)["DOM"] == 0  # doubling before reductions: not (2-1-1)*2 = 0
    game = _production(levels=3, cap=False)
    assert res(game, 1)["DOM"] == 0 and not events(game, "produce")  # 4 - 1 - 3 < 0: floor 0 (EXP-02-04-B-04)


def test_R40_R38_R14_the_supply_chain_cap_comes_after_the_tie_split():
    """A tie between P1 and P2: 3 * 2 - 1 - 1 = 4, split 2 / 2 (CORE-01-06-16 (c)); only P1's share is capped."""
    game = _production(influence=(0, 1, 1, 0), printed_cut=False)
    assert res(game, 1)["DOM"] == 1 and res(game, 2)["DOM"] == 2 and noise(game)["DOM"] == 1


def test_R56_economic_council_replaces_eco_with_clm_and_sec():
    """Standalone Economic Council: 1 required ECO may be paid with 2 Resources of different non-ECO resorts
    (EXP-01-06-M08-04); CLM (R56) and SEC (EXP-02-01-04/05) are such resorts."""
    sc = X("all-4p")
    sc.put("8,7", "DOM-W1")
    sc.hand(0, "EXP-01-M02")  # Economic Stimulus: ECO + FOR
    sc.resources(0, FOR=1, CLM=1, SEC=1)
    sc.at(player=0, round_=2, start_player=0)
    sc.effect("EXP-01-M08", 0, "end_of_player_turn", player=0, turn=0, used=False)
    game = sc.game()
    act(game, "play EXP-01-M02")  # one target, one payment: FOR + CLM + SEC
    assert sum(res(game, 0).values()) == 0
    assert [e["rule"] for e in events(game, "measure-applied") if e["id"] == "EXP-01-M08"] == ["EXP-01-06-M08-04"]


# ---------------------------------------------------------------------------- EXP-01 + EXP-02


def test_EXP_02_10_04_budget_deficit_and_control_stack_additively():
    sc = X("exp0102-4p")
    sc.put("8,7", "Committee")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "control")
    sc.effect("EXP-01-M06", 1, "consumed", target=0)  # Budget Deficit: P0's next action +1 any
    sc.resources(0, ECO=1)
    assert "place 8,7" not in legal_strings(sc.game()) and "place 6,7" in legal_strings(sc.game())
    sc.resources(0, ECO=1, SEC=1)
    game = sc.game()
    act(game, "place 8,7")
    assert sum(res(game, 0).values()) == 0 and game.influence_on(cell(game, "8,7"))[0] == 1
    assert sorted(rule for rule, _ in applied(game)) == ["EXP-01-06-M06-04", "EXP-02-02-B-03"]


def _taxed(tax: bool, levels: int = 0) -> Game:
    sc = X(RulesConfig(players=4, exp01=True, exp02=True, cost_regulations_tax_production=tax))
    sc.put("8,7", "DOM-W2", influence=[0, 1, 0, 0])
    sc.put("6,7", "Committee")
    sc.reg("8,7", "administration")
    if levels:
        sc.reg("8,7", "security-level", levels)
    sc.effect("EXP-01-M02", 2, "end_of_settlement", cell=sc.topo.parse("8,7"))
    return settle(sc)


def test_bc66_EXP_02_10_03_R28_regulation_cost_increases_and_the_doubling():
    """Production is not surcharged (R28): the doubled tile yields 4. Under the R28 option (BC-42) the surcharge
    is the Regulations' +1, fixed before the production modifiers, which change the share, never the cost
    (docs/rulings.md BC-66): P1 receives 4 and pays 1, or returns all 4."""
    game = _taxed(False)
    assert res(game, 1)["DOM"] == 4 and game.phase_name == "place_tile"
    game = _taxed(True)
    assert game.phase_name == "production-tax" and game.current_player == 1
    assert legal_strings(game) == ["pay DOM", "decline"]
    act(game, "pay DOM")
    assert res(game, 1)["DOM"] == 3
    game = _taxed(True)
    act(game, "decline")
    assert res(game, 1)["DOM"] == 0
    game = _taxed(True, levels=1)  # 2 * 2 - 1 = 3, still a surcharge of 1
    act(game, "pay DOM")
    assert res(game, 1)["DOM"] == 2
    game = _taxed(True, levels=4)  # a share reduced to 0 is not taxed
    assert game.phase_name == "place_tile" and res(game, 1)["DOM"] == 0


def test_R24_R41_sec_from_a_conversion_and_the_investment_program_which_takes_administration():
    sc = X("exp0102-4p")
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.put("6,7", "Committee")
    sc.reg("9,7", "administration")  # R41: the Program converts
    sc.resources(0, DOM=2, ECO=2)
    game = sc.game()
    act(game, "convert 8,7", "pay DOM")
    assert game.phase_name == "gain" and "gain SEC" in legal_strings(game)  # R24: a conversion may gain SEC
    act(game, "gain SEC")
    assert game.phase_name == "exchange" and "exchange SEC" in legal_strings(game)  # R24: so may the exchange
    act(game, "exchange SEC")
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "ECO": 0, "SEC": 2}


def test_R32_R43_emergency_decree_blockades_the_labor_market():
    sc = X("exp0102-4p")
    sc.put("8,7", "Labor Market", influence=[0, 2, 0, 0])
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.put("7,6", "Committee")
    sc.hand(0, "EXP-02-M02")
    sc.resources(0, SEC=4)
    sc.supply(1, 1)
    sc.draws("Committee")
    game = sc.game()
    act(game, "play EXP-02-M02", "place-tile 9,7")  # P0 blockades it, P1 closes it
    market = cell(game, "8,7")
    assert regs(game) == {"8,7": [0, 0, 0, 1]} and game.resolved[market]
    assert game.supply[1] == 1 and game.influence_on(market) == [0, 2, 0, 0]  # EXP-02-04-C-03


# ---------------------------------------------------------------------------- EXP-01 + EXP-03


def test_R54_extreme_weather_covers_eco_resort_tiles():
    sc = X("exp0103-4p")
    sc.put("8,7", "Committee")
    sc.draws("ECO-W1")
    sc.effect("EXP-03-M12", 2, "owner_next_turn")
    sc.resources(1, CLM=1)
    game = sc.game()
    act(game, "place 8,7", "place-tile 9,7")
    assert game.catalogue[game.tile_at[cell(game, "9,7")]].name == "ECO-W1" and res(game, 1)["CLM"] == 0
    assert [e["rule"] for e in events(game, "measure-applied")] == ["EXP-03-08-M12-04"]


def test_R55_energy_crisis_adds_one_dom_to_a_conversion_with_the_investment_exchange():
    sc = X("exp0103-4p")
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.effect("EXP-03-M06", 2, "owner_next_turn")
    sc.resources(0, FOR=2, DOM=1, ECO=1)
    game = sc.game()
    act(game, "convert 8,7", "gain ECO")  # FOR, FOR + DOM paid; ECO gained: 2 ECO, the exchange follows
    assert game.phase_name == "exchange"
    act(game, "exchange CLM")  # 2 ECO for 1 CLM; no second +1 DOM for the exchange (R55)
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "ECO": 0, "CLM": 1}


def test_EXP_03_07_06_R55_no_climate_exemption_lifts_a_prohibition():
    """Adaptation Strategy, Future Pact and Technology Initiative waive Climate costs only: a Blockade (EXP-02) and
    a Future Resolution (EXP-03) still prohibit (R55)."""
    sc = X("all-4p")
    sc.put("8,7", "FOR-W2")
    sc.put("6,7", "Committee")
    sc.reg("8,7", "blockade")
    sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
    for id_, data in (("EXP-03-M08", {}), ("EXP-03-M10", {}), ("EXP-03-M09", {"target": 0})):
        sc.effect(id_, 0, "consumed" if id_ == "EXP-03-M09" else "owner_next_turn", **data)
    sc.hand(0, "EXP-02-M15")
    sc.resources(0, SEC=1, CLM=3, DOM=3)
    sc.at(player=0, turns_in_round=1, start_player=3)
    game = sc.game()
    assert "place 8,7" not in legal_strings(game) and "place 6,7" in legal_strings(game)
    assert "play EXP-02-M15" in legal_strings(game)
    sc.effect("EXP-03-M04", 3, "end_of_player_turn", player=0, turn=0)  # Future Resolution on P0's turn
    assert "play EXP-02-M15" not in legal_strings(sc.game())


def test_CORE_01_06_00_06_R53_R26_move_influence_is_bound_to_its_destination():
    """Moving Influence names two tiles; its ContextTile is the destination (R10, R26): moving onto a tile under a
    Transformation Directive and an Administration pays both surcharges, moving off it is free."""

    def board(on_directed: bool) -> X:
        sc = X("exp0203-4p")
        sc.put("8,7", "FOR-W2", influence=[1, 0, 0, 0] if on_directed else None)
        sc.put("8,6", "Committee", influence=None if on_directed else [1, 0, 0, 0])
        sc.put("6,7", "Committee")
        sc.reg("8,7", "administration")
        sc.effect("EXP-03-M01", 1, "owner_next_turn", cell=sc.topo.parse("8,7"))
        return sc

    game = board(False).game()
    act(game, "move-from 8,6")
    assert "move-to 8,7" not in legal_strings(game) and "move-to 6,7" in legal_strings(game)  # P0 holds nothing
    sc = board(False)
    sc.resources(0, DOM=1, INF=1)
    game = sc.game()
    act(game, "move-from 8,6", "move-to 8,7")
    assert sum(res(game, 0).values()) == 0 and len(applied(game)) == 2
    game = board(True).game()
    act(game, "move-from 8,7", "move-to 8,6")
    assert game.influence_on(cell(game, "8,6"))[0] == 1 and not applied(game)
