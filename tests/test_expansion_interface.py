"""The expansion interface and the decision stack, exercised by a test-only expansion (tests/toy_expansion.py)
at every extension point EXP-02 and EXP-03 need. Each test names the rule text it prepares for."""

from __future__ import annotations

import pytest
from exp01_support import Scenario, act, events, legal_strings
from toy_expansion import toy_game

from bc_env.rules import Game, StateError

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
    with toy_game(monkeypatch) as toy:
        sc = _formalize_scenario(DOM=1, FOR=1)
        game = sc.game()
        assert "formalize 8,7" in legal_strings(game)  # 2 different resorts pay the Standard Committee
        toy.marks.add(game.topo.parse("8,7"))
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
    with toy_game(monkeypatch) as toy:
        sc = _formalize_scenario(DOM=1, FOR=1)
        toy.marks.add(sc.topo.parse("8,7"))
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
    with toy_game(monkeypatch) as toy:
        sc = _formalize_scenario(DOM=1, FOR=1, INF=1)
        toy.marks.add(sc.topo.parse("8,7"))
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
        assert game.m_count[game.layout.cards.index("EXP-01-M03")] == 1  # the lifecycle goes on (EXP-01-06-11)


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
