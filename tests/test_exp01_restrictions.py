"""EXP-01 rules that no scenario cited yet, in both editions where both texts state them (spec README 3 and 5):
ECO as an ordinary resort, ECO production, the Restrictions and Rule Interaction sections of ``EXP-01.md``
and the matching v1.3 rules (Labor Market, Investment Program, Measure zones, timing windows)."""

from __future__ import annotations

import random

import pytest
from exp01_support import Scenario, act, events, legal_strings
from positions import res

from bc_env.rules import Game, RulesConfig

EDITIONS = ["exp01-4p", "exp01-v1.3-4p"]
ECO = 3


def _board(preset: str) -> Scenario:
    sc = Scenario(preset)
    sc.put("8,7", "Committee")
    sc.put("6,7", "Committee")
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2  # FormalizeInfluence is open (CORE-01-08-02)
    return sc


@pytest.mark.parametrize("preset", EDITIONS)
def test_eco_is_an_ordinary_resort_in_both_editions(preset):
    """EXP-01-01-05..08, EXP-01-07-01/02 (Rule Interaction); EXP-01-01-01..06 (v1.3), EXP-01-10-01..03 (v1.3):
    ECO exists only with EXP-01, counts as a distinct resort, pays "a Resource" and Formalize costs."""
    assert "ECO" in RulesConfig.preset(preset).resorts and "ECO" not in RulesConfig().resorts
    sc = _board(preset)
    sc.resources(0, DOM=1, ECO=1)  # two different resorts: a Standard Committee's cost (CORE-01-04-15)
    game = sc.game()
    act(game, "formalize 8,7")
    assert sum(res(game, 0).values()) == 0 and events(game, "formalize")
    sc.resources(0, ECO=2)
    assert "formalize 8,7" not in legal_strings(sc.game())  # ECO + ECO: not different
    sc.resources(0, DOM=1, FOR=1, ECO=2)  # Start Committee: 3 different (ECO one of them) + 1 any (ECO)
    game = sc.game()
    act(game, "formalize 7,7")
    assert sum(res(game, 0).values()) == 0 and game.supply[0] == 3  # CORE-01-08-08: 2 Influence created


@pytest.mark.parametrize("preset", EDITIONS)
def test_eco_production_follows_the_core_rules_in_both_editions(preset):
    """EXP-01-04-02..04; EXP-01-02-B-01..05 (v1.3), EXP-01-04-B-05/06 (v1.3): ECO-Wn produces n at the Round
    Settlement to its controller, ties split with the remainder to Noise (CORE-01-06-11..15)."""
    sc = Scenario(preset)
    sc.put("8,7", "ECO-W1", influence=[0, 1, 0, 0])
    sc.put("9,7", "ECO-W2", influence=[0, 0, 1, 0])
    sc.put("6,7", "ECO-W3", influence=[0, 1, 0, 1])
    sc.put("7,8", "Committee")
    sc.at(player=0, turns_in_round=3, start_player=1)
    game = sc.game()
    act(game, "place 7,8")  # P0 ends the round
    assert [res(game, p)["ECO"] for p in range(4)] == [0, 2, 2, 1] and game.noise[ECO] == 1


@pytest.mark.parametrize("preset", EDITIONS)
def test_eco_held_changes_nothing_but_itself(preset):
    """EXP-01-06-02..04 (Restrictions); EXP-01-09-01/02 (v1.3): the same actions from two states that differ
    only in the ECO P2 holds give the same control, Lobbyist, Hotspot resolution and Influence cap."""

    def play(eco: int) -> Game:
        sc = Scenario(preset)
        sc.put("8,7", "Hotspot", influence=[0, 2, 1, 0])
        sc.put("8,6", "Committee")
        sc.put("8,8", "Lobbyist", influence=[0, 0, 1, 0])
        sc.put("6,7", "DOM-W2", influence=[0, 0, 1, 1])
        sc.supply(1, 1)
        sc.resources(2, ECO=eco)
        sc.draws("Committee")
        game = sc.game()
        act(game, "place 6,7", "place-tile 9,7")  # P0 breaks the tie on 6,7; P1 closes the Hotspot
        return game

    plain, rich = play(0), play(9)
    hotspot = 7 * 15 + 8
    # The Lobbyist (P2's, R13) ties the Hotspot 2-2: nobody places; ECO held changes none of it.
    assert rich.resolved[hotspot] and rich.influence_on(hotspot) == plain.influence_on(hotspot) == [0, 2, 1, 0]
    assert rich.events == plain.events
    assert [rich.controller(c) for c in (hotspot, 7 * 15 + 6)] == [plain.controller(c) for c in (hotspot, 7 * 15 + 6)]
    assert rich.lobbyist_owner(8 * 15 + 8) == plain.lobbyist_owner(8 * 15 + 8) == 2
    assert rich.supply == plain.supply and rich.created == plain.created  # the cap is the same (R12)
    assert res(rich, 2)["ECO"] == 9


@pytest.mark.parametrize("preset", EDITIONS)
def test_measures_neither_change_victory_nor_act_implicitly(preset):
    """EXP-01-06-05/06 (Restrictions); EXP-01-09-04/05 (v1.3), EXP-01-07-07 (v1.3): in random games that play many
    Measures, the winners are the players with the most Influence on the Board (CORE-01-09-03), every duration
    is one of the timing windows, and every Measure event follows a play of that card."""
    windows = {"end_of_turn", "end_of_round", "end_of_settlement", "owner_next_turn", "consumed", "permanent",
               "end_of_player_turn"}  # fmt: skip
    applied = 0
    for seed in range(3):
        rng = random.Random(seed)
        game = Game.new(preset, seed)
        while not game.is_terminal():
            legal = game.legal_actions()
            plays = [a for a in legal if game.action_to_string(a).startswith(("play ", "take "))]
            game.apply(rng.choice(plays if plays and rng.random() < 0.6 else legal))
            assert {a["until"] for a in game.to_dict()["active_effects"]} <= windows
        best = max(game.on_board)
        assert game.winners() == [p for p in range(4) if game.on_board[p] == best]
        played: set[tuple[str, int]] = set()
        for e in game.events:
            if e["type"] == "play-measure":
                played.add((e["card"], e["player"]))
            elif e["type"] == "measure-applied":
                assert (e["id"], e["owner"]) in played, e  # only a card its owner played acts
                applied += 1
    assert applied > 0


def test_EXP_01_00_05_and_v13_the_measure_actions():
    """EXP-01-00-05: TakeMeasure and PlayMeasure are Political Actions; EXP-01-00-05 (v1.3): PlayMeasure is
    followed by one additional Political Action of the same player (EXP-01-06-05 (v1.3))."""
    for preset, again in (("exp01-4p", False), ("exp01-v1.3-4p", True)):
        sc = _board(preset)
        sc.hand(0, "EXP-01-M07")
        sc.resources(0, ECO=2, DOM=2, FOR=2, INF=2)
        game = sc.game()
        options = legal_strings(game)
        assert any(s.startswith("take EXP-01-M") for s in options) and "play EXP-01-M07" in options
        act(game, "play EXP-01-M07")
        while game.phase_name not in ("political", "place_tile"):
            act(game, legal_strings(game)[0])
        assert (game.current_player == 0 and game.phase_name == "political") is again, preset


def test_v13_zones_hand_limit_and_round_structure():
    """EXP-01-02-E-01 (v1.3): the Measure zones; EXP-01-06-03 (v1.3): at most 2 Measures in hand; EXP-01-03-05
    and EXP-01-03-05 (v1.3): a round is still one turn per player, then the Round Settlement."""
    game = Game.new("exp01-v1.3-4p", 0)
    measures = game.to_dict()["measures"]
    deck = measures["decks"]["EXP-01"]
    assert set(deck) >= {"draw_pile", "open", "recycle_pile", "final_discard"} and len(deck["open"]) == 3
    assert measures["hands"] == [[], [], [], []]
    sc = _board("exp01-v1.3-4p")
    sc.hand(0, "EXP-01-M07", "EXP-01-M03")
    assert not [s for s in legal_strings(sc.game()) if s.startswith("take ")]
    for preset in EDITIONS:
        game = Game.new(preset, 3)
        turns = 0
        while game.round == 1:
            p = game.current_player
            act(game, legal_strings(game)[0])
            turns += game.current_player != p and game.phase_name == "place_tile"
        assert turns == 4, preset


def test_v13_eco_tiles_labor_market_and_investment_program_in_the_catalogue():
    """EXP-01-02-A-01/02 (v1.3): ECO tiles for 2-4 and 5-6 players; EXP-01-02-C-01/02 (v1.3): Labor Market is a
    Hotspot; EXP-01-02-D-01/02 (v1.3): one Investment Program, a System Tile."""
    for players, counts in ((4, {1: 2, 2: 1, 3: 1}), (6, {1: 3, 2: 2, 3: 2})):
        game = Game.new(RulesConfig(players=players, exp01=True, exp01_edition="v1.3"), 0)
        eco = [s.name for s in game.catalogue if s.name.startswith("ECO-W")]
        assert {n: eco.count(f"ECO-W{n}") for n in (1, 2, 3)} == counts, players
        names = [s.name for s in game.catalogue]
        assert names.count("Labor Market") == 1 and names.count("Investment Program") == 1


def test_v13_labor_market_resolves_as_a_hotspot_and_produces_nothing():
    """EXP-01-02-C-03/05/06/07 (v1.3): fully surrounded, the majority leader gains 1 Influence; no Resources."""
    sc = Scenario("exp01-v1.3-4p")
    sc.put("8,7", "Labor Market", influence=[0, 2, 0, 0])
    sc.put("9,7", "DOM-W1")
    sc.put("8,6", "FOR-W1")
    sc.supply(1, 1)
    sc.draws("Committee")
    game = sc.game()
    act(game, "place 9,7", "place-tile 8,8")
    assert game.supply[1] == 2 and res(game, 1) == {"DOM": 0, "FOR": 0, "INF": 0, "ECO": 0}
    assert game.resolved[7 * 15 + 8]


@pytest.mark.parametrize("preset", EDITIONS)
def test_investment_program_exchange_in_both_editions(preset):
    """EXP-01-05-01..04 (v1.3) and the standalone EXP-01-05: with a ConvertResources, the Program's controller
    may exchange 2 ECO for 1 Resource of another resort, optionally, within the same action, once."""
    sc = Scenario(preset)
    sc.put("8,7", "Grassroots")
    sc.put("9,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.resources(0, DOM=2, ECO=4)
    game = sc.game()
    act(game, "convert 8,7", "pay DOM", "gain FOR")
    assert game.phase_name == "exchange" and "decline" in legal_strings(game)
    assert "exchange ECO" not in legal_strings(game)
    act(game, "exchange INF")
    assert res(game, 0) == {"DOM": 0, "FOR": 1, "INF": 1, "ECO": 2}  # once: 2 ECO are left
    assert game.current_player == 1  # no new Political Action


@pytest.mark.parametrize("preset", EDITIONS)
def test_exp01_extends_core_which_stays_valid(preset):
    """EXP-01-00-01/02 (both texts); CORE-01-04-02: on one board, EXP-01 offers the core Political Actions
    unchanged (plus TakeMeasure), a turn still starts with DrawAndPlaceTile, and the settlement produces as in
    the core game."""

    def run(name: str) -> tuple[list[str], Game]:
        sc = Scenario(name)
        sc.put("8,7", "DOM-W2", influence=[0, 1, 0, 0])
        sc.put("6,7", "Committee")
        sc.resources(0, DOM=1, FOR=1)
        sc.at(player=0, turns_in_round=3, start_player=1)
        game = sc.game()
        options = [s for s in legal_strings(game) if not s.startswith("take ")]
        act(game, "place 6,7")
        return options, game

    core_options, core = run("core-4p")
    options, game = run(preset)
    assert options == core_options
    assert game.phase_name == core.phase_name == "place_tile"  # the next turn's Phase 1 (CORE-01-04-02)
    assert game.resources_of(1)[:3] == core.resources_of(1)[:3] == [2, 0, 0]


def test_EXP_01_09_03_v13_supplemental_budget_does_not_lift_collective_bargaining():
    """v1.3 Supplemental Budget ignores a cost component (EXP-01-08-M10-05), not a prohibition: under Collective
    Bargaining (EXP-01-08-M03-04) ECO still cannot be converted (EXP-01-09-03 (v1.3))."""
    sc = Scenario("exp01-v1.3-4p")
    sc.put("8,7", "Grassroots")
    sc.resources(0, ECO=2)
    assert "convert 8,7" in legal_strings(sc.game())
    sc.effect("EXP-01-M03", 1, "end_of_round")
    sc.effect("EXP-01-M10", 0, "end_of_turn")
    assert "convert 8,7" not in legal_strings(sc.game())
