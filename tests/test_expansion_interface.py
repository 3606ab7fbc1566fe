"""The expansion interface and the decision stack, exercised by a test-only expansion (tests/toy_expansion.py)
at every extension point EXP-02 and EXP-03 need. Each test names the rule text it prepares for."""

from __future__ import annotations

import pytest
from exp01_support import Scenario, act, events, legal_strings
from toy_expansion import ToyChoice, toy_game

from bc_env.rules import Game, RulesConfig, StateError
from bc_env.rules.components import RESORT

# toy_game patches game.expansions_for, which the compiled engine calls directly (tests/conftest.py).
pytestmark = pytest.mark.pure_engine


def _formalize_scenario(**resources: int) -> Scenario:
    sc = Scenario("exp01-4p")
    sc.put("8,7", "Committee", influence=[1, 0, 0, 0])
    for p in range(4):
        sc.data["players"][p]["deployed"] = sc.data["players"][p]["starting"]  # the gate is open (R11)
    sc.resources(0, **resources)
    return sc


def test_a_marker_attached_to_a_tile_adds_a_surcharge_tagged_with_its_source(monkeypatch):
    """EXP-02-02-B-03/05 (a Regulation on the ContextTile increases the cost), RULINGS R26/R28."""
    with toy_game(monkeypatch):
        sc = _formalize_scenario(DOM=1, FOR=1)
        game = sc.game()
        assert "formalize 8,7" in legal_strings(game)  # 2 different resorts pay the Standard Committee
        sc.data["toy"]["marks"] = ["8,7"]
        game = sc.game()
        assert "formalize 8,7" not in legal_strings(game)  # +1 any: 3 Resources needed, 2 held
        sc.resources(0, DOM=1, FOR=1, INF=1)
        game = sc.game()
        act(game, "formalize 8,7")  # DOM, FOR, INF: the only payment, made at once (BC-05)
        assert sum(game.resources_of(0)) == 0 and events(game, "formalize")
        applied = events(game, "measure-applied")
        assert [(e["id"], e["extra"]) for e in applied] == [("TOY-MARK", 1)]


def test_an_exemption_waives_only_the_slots_of_its_source(monkeypatch):
    """EXP-03-08-M08 / -M10 (Climate exemptions name the source of the surcharge), RULINGS R55."""
    with toy_game(monkeypatch):
        sc = _formalize_scenario(DOM=1, FOR=1)
        sc.data["toy"]["marks"] = ["8,7"]
        sc.effect("TOY-EXEMPT", 0, "permanent")
        sc.effect("EXP-01-M06", 1, "consumed", target=0)  # Budget Deficit: a Measure surcharge, not waived
        game = sc.game()
        assert "formalize 8,7" not in legal_strings(game)  # +1 any (Budget Deficit) still applies
        sc.resources(0, DOM=1, FOR=1, INF=1)
        game = sc.game()
        act(game, "formalize 8,7")
        while game.phase_name == "pay":
            game.apply(game.legal_actions()[0])
        assert sum(game.resources_of(0)) == 0  # 3 paid: the Committee and Budget Deficit, not the marker


def test_a_modifier_of_modifiers_amends_another_modifiers_surcharge(monkeypatch):
    """EXP-02-08-M09 Parliamentary Oversight ("each Regulation adds +1 when applied"), RULINGS R33."""
    with toy_game(monkeypatch):
        sc = _formalize_scenario(DOM=1, FOR=1, INF=1)
        sc.data["toy"]["marks"] = ["8,7"]
        sc.effect("TOY-META", 2, "permanent")
        assert "formalize 8,7" not in legal_strings(sc.game())  # 2 + 1 + 1: four Resources
        sc.resources(0, DOM=2, FOR=1, INF=1)
        game = sc.game()
        act(game, "formalize 8,7")
        while game.phase_name == "pay":
            game.apply(game.legal_actions()[0])
        assert sum(game.resources_of(0)) == 0


def test_a_cost_decrease_stops_at_its_floor(monkeypatch):
    """EXP-02-08-M15 Situation Assessment ("reduce ... by 1 (minimum 1)"), RULINGS R45."""
    with toy_game(monkeypatch):
        sc = _formalize_scenario(DOM=1)
        assert "formalize 8,7" not in legal_strings(sc.game())  # 2 different resorts, 1 held
        sc.effect("TOY-DISCOUNT", 1, "permanent")
        sc.effect("TOY-DISCOUNT", 2, "permanent")  # twice: still 1, never 0
        game = sc.game()
        act(game, "formalize 8,7")
        assert sum(game.resources_of(0)) == 0 and game.supply[0] == sc.data["players"][0]["supply"] + 1


def test_a_non_active_player_decides_in_the_middle_of_a_hotspot_resolution(monkeypatch):
    """EXP-02-02-G-04 Inner Order's majority leader, RULINGS R23, R42: another player decides during the
    Hotspot resolution, then the placement's resolution and the active player's turn go on."""
    with toy_game(monkeypatch):
        sc = Scenario("exp01-4p")
        # The Labor Market at 8,7 (next to the Start Committee at 7,7) with one open side, 8,8; player 0 leads.
        sc.put("8,7", "Labor Market", influence=[1, 0, 0, 0])
        sc.put("9,7", "Committee")
        sc.put("8,6", "Committee")
        sc.draws("Grassroots")
        d = sc.data
        d["phase"] = "place_tile"
        d["drawn_tile"] = d["draw_pile"].pop()
        game = Game.from_dict(d)
        assert game.current_player == 0 and game.phase_name == "place_tile"
        dom_before = game.resources_of(2)[0]
        act(game, "place-tile 8,8")  # closes the Labor Market: its resolver asks player 1
        assert game.active == 0 and game.current_player == 1 and game.phase_name == "toy-choice"
        assert [e["type"] for e in game.events[-2:]] == ["place-tile", "toy-hotspot"]
        clone = game.clone()  # the paused resolution is part of the state
        data = game.to_dict()  # ... and of the JSON state: the frames below the decision, bottom first
        assert data["phase"] == "toy-choice" and data["pending"] is None
        assert [f["frame"] for f in data["stack"]] == ["political", "hotspots", "toy-choice"]
        loaded = Game.from_dict(data)
        assert loaded.to_dict() == data and loaded.current_player == 1
        act(loaded, "target-player P2")
        assert loaded.current_player == 0 and loaded.phase_name == "political" and "stack" not in loaded.to_dict()
        act(game, "target-player P2")
        assert game.resources_of(2)[0] == dom_before + 1
        assert game.current_player == 0 and game.phase_name == "political"  # the turn resumes
        assert game.resolved[game.topo.parse("8,7")]
        assert clone.current_player == 1 and clone.phase_name == "toy-choice"  # the clone is independent
        act(clone, "target-player P3")
        assert clone.resources_of(3)[0] == game.resources_of(3)[0] + 1


def test_a_measure_that_acts_at_once_leaves_no_lasting_effect(monkeypatch):
    """EXP-03-08-M03 Future Investment ("Immediate", RULINGS R39): the card resolves on play, nothing lingers."""
    with toy_game(monkeypatch):
        sc = Scenario("exp01-4p")
        sc.hand(0, "EXP-01-M03")
        sc.resources(0, ECO=2)
        game = sc.game()
        act(game, "play EXP-01-M03")
        assert game.resources_of(0) == [0, 2, 0, 0] and not game.active_effects
        assert events(game, "toy-card") and not events(game, "measure-effect")
        assert (
            game.ext["measures"].count[game.layout.cards.index("EXP-01-M03")] == 1
        )  # the lifecycle goes on (EXP-01-06-11)


def test_a_malformed_stack_is_refused(monkeypatch):
    """The JSON state's stack (docs/state-schema.md) is read strictly like the rest of the state."""
    with toy_game(monkeypatch):
        base = Scenario("exp01-4p").game().to_dict()
        for stack, match in [
            ([], "list of 1..16 frames"),
            ([{"frame": "nope"}], "frame must be one of"),
            ([{"frame": "political", "owner": 9}], "owner must be a player"),
            ([{"frame": "political", "owner": 0, "x": 1}], "non-canonical"),
            ([{"frame": "hotspots", "cells": ["8,7"], "next": 0}], "resolved Hotspot"),
        ]:
            data = dict(base, stack=stack)
            with pytest.raises(StateError, match=match):
                Game.from_dict(data)


def test_an_expansions_own_state_is_cloned_written_read_and_checked(monkeypatch):
    """Issue #12 item 1: an expansion's zones/markers live in its ExpansionState (``game.ext``), which the game
    clones, writes under its key, reads strictly and checks (the shape of EXP-02's Regulations on tiles and
    EXP-03's CountdownMarkers)."""
    with toy_game(monkeypatch):
        sc = _formalize_scenario(DOM=1, FOR=1)
        sc.data["toy"]["marks"] = ["8,7"]
        game = sc.game()
        assert game.ext["TOY"].marks == [game.topo.parse("8,7")]
        data = game.to_dict()
        assert data["toy"] == {"marks": ["8,7"]} and Game.from_dict(data).to_dict() == data
        clone = game.clone()
        clone.ext["TOY"].marks.clear()
        assert game.ext["TOY"].marks and "formalize 8,7" not in legal_strings(game)  # +1: three needed, two held
        assert "formalize 8,7" in legal_strings(Game.from_dict(clone.to_dict()))  # the clone's own markers
        for marks, match in [({"marks": "8,7"}, "must be an object with the list"),
                             ({"marks": ["x"]}, r"marks\[0\] must be a cell"),
                             ({"marks": ["1,1"]}, "holds no tile"),
                             ({"marks": ["8,7", "8,7"]}, "one twice")]:  # fmt: skip
            bad = dict(data, toy=marks)
            with pytest.raises(StateError, match=match):
                Game.from_dict(bad)
        del data["toy"]
        with pytest.raises(StateError, match="state.toy is missing"):
            Game.from_dict(data)


def _storm(resources: dict[str, int], config: str | RulesConfig = "exp01-4p") -> Scenario:
    sc = Scenario(config)
    sc.effect("TOY-STORM", 3, "permanent")
    sc.resources(2, **resources)
    sc.draws("DOM-W3")
    d = sc.data
    d["active"] = d["turns_in_round"] = 1  # player 1 passes; player 2 draws the ResortTile
    d["turn"] = (d["round"] - 1) * sc.n + 1
    return sc


def _next_turn(game: Game) -> None:
    """Player 1 takes its turn's Political Action (the first legal one); player 2's turn begins."""
    while game.active == 1:
        game.apply(game.legal_actions()[0])


def test_placing_a_tile_is_an_effect_on_the_pipeline(monkeypatch):
    """EXP-03-08-M12-04 Extreme Weather ("Placing ResortTiles requires +1 CLM or +1 DOM"), RULINGS R3, R54: the
    placement cost is a payment decision of the active player, part of the state like any other."""
    with toy_game(monkeypatch):
        game = _storm({"DOM": 1, "FOR": 1}).game()
        _next_turn(game)
        assert game.active == 2 and game.phase_name == "place_tile"
        cells = game.legal_actions()
        assert cells == game.frontier  # every cell: the surcharge can be paid
        act(game, "place-tile 8,7")
        assert game.phase_name == "pay" and game.current_player == 2  # DOM or FOR: a choice (R18, BC-05)
        data = game.to_dict()
        assert data["pending"] == {"kind": "place-tile", "tile": "8,7", "paid": []} and data["drawn_tile"] >= 0
        loaded = Game.from_dict(data)
        assert loaded.to_dict() == data
        act(game, "pay FOR")
        assert game.phase_name == "political" and game.resources_of(2)[:2] == [1, 0]
        assert game.tile_at[game.topo.parse("8,7")] >= 0 and game.drawn == -1
        applied = events(game, "measure-applied")
        assert [(e["id"], e["kind"], e["extra"]) for e in applied] == [("TOY-STORM", "place-tile", 1)]
        assert [e["rule"] for e in events(game, "pay")] == ["TOY-04"]
        act(loaded, "pay DOM")
        assert loaded.resources_of(2)[:2] == [0, 1] and loaded.phase_name == "political"
        # A tile that is not a ResortTile costs nothing: no decision, no payment.
        sc = _storm({})
        sc.draws("Committee")
        game = sc.game()
        _next_turn(game)
        act(game, "place-tile 8,7")
        assert game.phase_name == "political" and not events(game, "pay")


def test_a_tile_whose_placement_cannot_be_paid_is_unplaceable(monkeypatch):
    """EXP-03-08-M12-05 ("If the additional cost cannot be paid, placement fails"), RULINGS R3/R4/R54: no legal cell,
    so the tile is discarded and another drawn; with TileRecycling, a pile of tiles none of which could be placed
    counts as exhausted."""
    with toy_game(monkeypatch):
        sc = _storm({})
        top = sc.data["draw_pile"][-1]
        game = sc.game()
        _next_turn(game)
        discarded = [e["tile"] for e in events(game, "discard")]  # CORE-01-04-06: discarded, draw again
        assert discarded[0] == top and all(sc.catalogue[t].kind == RESORT for t in discarded)
        assert game.active == 2 and game.phase_name == "place_tile" and sc.catalogue[game.drawn].kind != RESORT
        recycling = RulesConfig.resolve("exp01-4p").replace(tile_recycling=True)
        sc = _storm({}, recycling)
        cat = sc.catalogue
        pile = sc.data["draw_pile"]
        sc.data["discard"] += [t for t in pile if cat[t].kind != cat[top].kind]
        sc.data["draw_pile"] = [t for t in pile if cat[t].kind == cat[top].kind]
        game = sc.game()
        _next_turn(game)
        assert events(game, "draw-pile-exhausted") and game.is_terminal()


def test_turn_and_settlement_hooks_run_at_their_moments_and_a_settlement_pauses_for_a_decision(monkeypatch):
    """EXP-02-08-M08 / -M12 (De-escalation, Loss of Control during Round Settlement, RULINGS R44): an expansion acts
    when a turn begins and at each stage of the Round Settlement; a decision asked at its start (here by the
    player after the active one) pauses the settlement, which resumes with Resort Production afterwards."""
    with toy_game(monkeypatch) as toy:
        monkeypatch.setattr(toy, "turn_start", lambda game: game.log("toy-turn", "TOY-06", player=game.active))
        monkeypatch.setattr(toy, "settlement_end", lambda game: game.log("toy-settled", "TOY-06"))

        def ask(game):
            game.stack.append(ToyChoice((game.active + 1) % game.num_players))

        monkeypatch.setattr(toy, "settlement_start", ask)
        game = Game.new("exp01-2p", 5)
        while game.phase_name != "toy-choice":
            game.apply(game.legal_actions()[0])
        types = [e["type"] for e in game.events]
        draws = [i for i, t in enumerate(types) if t == "draw"]
        assert all(types[i - 1] in ("toy-turn", "discard") for i in draws)  # before Phase 1's draw
        assert types.count("toy-turn") == game.turn
        assert types[-1] == "settlement" and "produce" not in types  # paused before Resort Production
        owner = game.current_player
        assert owner == (game.active + 1) % 2
        data = game.to_dict()
        assert [f["frame"] for f in data["stack"]] == ["after-settlement", "settlement", "toy-choice"]
        loaded = Game.from_dict(data)
        for g in (game, loaded):
            act(g, "target-player P1")
            types = [e["type"] for e in g.events]
            last = len(types) - 1 - types[::-1].index("settlement")
            after = types[last:]
            assert after[:2] == ["settlement", "toy-gain"] and "toy-settled" in after
            produced = [i for i, t in enumerate(after) if t == "produce"]
            assert not produced or max(produced) < after.index("toy-settled")
            assert g.round == 2 and g.phase_name == "place_tile"
        assert loaded.to_dict() == game.to_dict()
