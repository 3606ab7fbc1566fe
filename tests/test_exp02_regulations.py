"""EXP-02: SEC, the tiles, the Regulation state, the resolution order of Regulations on the effect pipeline, the
Authority Apparatus and Inner Order (EXP-02-00..06, EXP-02-09/10; RULINGS R23..R29, R41..R43, R62)."""

from __future__ import annotations

import random

import pytest
from exp02_support import EXP0102_4P, EXP02_4P, Scenario02, incomplete_ok, new_game
from positions import res

from bc_env.rules import Game, NotImplementedRuleError, RulesConfig, StateError
from bc_env.rules.components import HOTSPOT, SYSTEM
from bc_env.rules.expansions import exp02


def act(game: Game, *texts: str) -> None:
    for text in texts:
        game.apply(game.string_to_action(text))


def legal(game: Game) -> list[str]:
    return [game.action_to_string(a) for a in game.legal_actions()]


def events(game: Game, type_: str) -> list[dict]:
    return [e for e in game.events if e["type"] == type_]


def cell(game: Game, text: str) -> int:
    return game.topo.parse(text)


# ---------------------------------------------------------------------------- setup (EXP-02-00, -01, -03)


def test_exp02_presets_build_and_an_incomplete_expansion_is_refused(monkeypatch):
    for name, players, exp01 in (("exp02-2p", 2, False), ("exp02-4p", 4, False), ("exp02-6p", 6, False),
                                 ("exp0102-4p", 4, True)):  # fmt: skip
        g = Game.new(name, 0)
        assert g.num_players == players and g.config.exp02 and g.config.exp01 == exp01
    # the mechanism that refused EXP-02 until every rule was in (Expansion.missing)
    monkeypatch.setattr(exp02.Exp02, "missing", "Inner Order")
    with pytest.raises(NotImplementedRuleError, match="EXP-02 not implemented yet: Inner Order missing"):
        Game.new(EXP02_4P, 0)


def test_sec_is_a_resort_and_the_two_tiles_join_the_draw_pile():
    g = new_game()
    # EXP-02-00-03, EXP-02-01-01/06: SEC is a resort while EXP-02 is active (and only then).
    assert g.config.resorts == ("DOM", "FOR", "INF", "SEC")
    assert RulesConfig(players=4).resorts == ("DOM", "FOR", "INF")
    assert new_game(EXP0102_4P).config.resorts == ("DOM", "FOR", "INF", "ECO", "SEC")
    # EXP-02-03-03/04: Inner Order x1 (a Hotspot) and Authority Apparatus x1 (a System Tile) in the DrawPile.
    io = [s for s in g.catalogue if s.special == "inner-order"]
    aa = [s for s in g.catalogue if s.special == "authority-apparatus"]
    assert [(s.kind, s.name) for s in io] == [(HOTSPOT, "Inner Order")]
    assert [(s.kind, s.name) for s in aa] == [(SYSTEM, "Authority Apparatus")]
    assert {io[0].id, aa[0].id} <= set(g.draw_pile) | {g.drawn}
    # RULINGS R24: no tile produces SEC.
    sec = g.config.resorts.index("SEC")
    assert not [s for s in g.catalogue if s.kind == 1 and s.resort == sec]
    # The core tiles keep their ids (EXP-02 tiles come last).
    core = Game.new(RulesConfig(players=4), 0)
    assert g.catalogue[: len(core.catalogue)] == core.catalogue


def test_the_exp02_measure_deck_has_fifteen_cards_three_open():
    g = new_game()
    keys = [m.key for m in g.measures]
    assert keys == [f"EXP-02-M{i:02d}" for i in range(1, 16)]  # EXP-02-03-01
    z = g.ext["measures"]
    assert len(z.open[0]) == 3 and len(z.draw[0]) == 12  # EXP-02-03-02
    # EXP-02-07-00-01, RULINGS R20: with EXP-01 each expansion has its own zones.
    both = new_game(EXP0102_4P)
    assert both.decks == ("EXP-01", "EXP-02") and [len(z) for z in both.ext["measures"].open] == [3, 3]
    # EXP-02-03-05: no change to the Starting Influence.
    assert g.starting == Game.new(RulesConfig(players=4), 0).starting


def test_the_core_and_exp01_layouts_are_unchanged_and_exp02_blocks_come_last():
    g = new_game(EXP0102_4P)
    e1 = Game.new("exp01-4p", 0)
    names = [b.name for b in g.layout.blocks]
    assert names[: len(e1.layout.blocks) - 1] == [b.name for b in e1.layout.blocks][:-1]
    assert names[-8:] == ["place-regulation", "move-regulation", "remove-regulation", "security-level", "control",
                          "administration", "blockade", "decline"]  # fmt: skip
    for a in range(g.num_actions):
        assert g.string_to_action(g.action_to_string(a)) == a


# ---------------------------------------------------------------------------- the state (EXP-02-02-A)


def _board(sc: Scenario02, resort: list[int] | None = None) -> None:
    """SC at 7,7; a Committee 8,7, Grassroots 6,7, DOM-W3 7,8 (Influence ``resort``), Lobbyist 7,6, Hotspot 9,7."""
    sc.put("8,7", "Committee")
    sc.put("6,7", "Grassroots")
    sc.put("7,8", "DOM-W3", influence=resort)
    sc.put("7,6", "Lobbyist")
    sc.put("9,7", "Hotspot")


def test_regulations_round_trip_clone_and_are_conserved():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)
    sc.reg("7,8", "security-level")
    g = sc.game()
    st = g.ext["EXP-02"]
    assert st.on == {cell(g, "8,7"): [0, 2, 0, 0], cell(g, "7,8"): [1, 0, 0, 0]}
    assert st.check(g) == []
    data = g.to_dict()
    assert data["regulations"] == {"attached": {"7,8": {"security-level": 1}, "8,7": {"control": 2}},
                                   "placed": 3, "returned": 0}  # fmt: skip
    with incomplete_ok():
        assert Game.from_dict(data).to_dict() == data
    c = g.clone()
    c.ext["EXP-02"].attach(cell(g, "7,8"), 0)
    assert st.on[cell(g, "7,8")] == [1, 0, 0, 0]  # the clone is independent
    st.placed += 1  # a Regulation from nowhere
    assert "EXP-02-02-A-03" in st.check(g)[0]


@pytest.mark.parametrize(
    ("cell_", "type_", "message"),
    [
        ("7,8", "control", "attachment restriction"),  # EXP-02-02-B-04: Control not on a ResortTile
        ("8,7", "administration", "attachment restriction"),  # EXP-02-02-B-06
        ("7,7", "blockade", "Start Committee"),  # CORE-01-08-06, RULINGS R41
        ("3,3", "blockade", "not a Board tile"),
        ("8,7", "curfew", "unknown Regulation type"),
    ],
)
def test_a_state_with_an_illegal_regulation_is_refused(cell_, type_, message):
    sc = Scenario02()
    _board(sc)
    sc.reg(cell_, type_)
    with pytest.raises(StateError, match=message):
        sc.game()


def test_attachment_restrictions_follow_r41():
    sc = Scenario02(EXP0102_4P)
    _board(sc)
    sc.put("8,8", "Investment Program")
    sc.put("6,6", "Authority Apparatus")
    g = sc.game()
    C, A = exp02.CONTROL, exp02.ADMINISTRATION
    for text, control, admin in [("8,7", True, False), ("6,7", False, True), ("7,8", False, True),
                                 ("7,6", True, False), ("9,7", True, False), ("8,8", False, True),
                                 ("6,6", True, False), ("7,7", False, False)]:  # fmt: skip
        assert exp02.attachable(g, C, cell(g, text)) is control, text
        assert exp02.attachable(g, A, cell(g, text)) is admin, text
    for t in (exp02.SECURITY_LEVEL, exp02.BLOCKADE):
        assert exp02.attachable(g, t, cell(g, "7,8")) and not exp02.attachable(g, t, cell(g, "7,7"))


# ---------------------------------------------------------------------------- resolution order (EXP-02-04-B)


def test_blockade_prohibits_place_move_onto_and_formalize_before_any_payment():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Committee", influence=[1, 0, 0, 0])
    sc.reg("8,7", "blockade")
    sc.resources(0, DOM=2, FOR=2)
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2  # the Starting Influence is deployed (CORE-01-08-02)
    g = sc.game()
    options = legal(g)
    # RULINGS R26: no Place or Move onto the blockaded tile, no Formalize via it (R62: not offered).
    assert "place 8,7" not in options and "place 8,6" in options
    assert "formalize 8,7" not in options and "formalize 8,6" in options
    act(g, "move-from 8,6")
    assert "move-to 8,7" not in legal(g) and "move-to 6,7" in legal(g)


def test_moving_off_a_blockaded_tile_is_unaffected():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Committee", influence=[1, 0, 0, 0])
    sc.reg("8,6", "blockade")
    g = sc.game()
    act(g, "move-from 8,6", "move-to 6,7")
    assert g.influence_on(cell(g, "6,7"))[0] == 1


def test_control_surcharges_place_and_formalize_and_stacks_additively():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)  # EXP-02-04-B-02: +2
    sc.resources(0, DOM=1, FOR=1)
    g = sc.game()
    assert "place 8,7" in legal(g)
    act(g, "place 8,7")
    assert res(g, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}
    assert g.influence_on(cell(g, "8,7"))[0] == 1
    applied = events(g, "measure-applied")
    assert applied and applied[0]["rule"] == "EXP-02-02-B-03" and applied[0]["extra"] == 2


def test_a_surcharge_that_cannot_be_paid_makes_the_action_illegal():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)
    sc.resources(0, DOM=1)
    g = sc.game()
    assert "place 8,7" not in legal(g) and "place 6,7" in legal(g)  # EXP-02-02-C-03/04, RULINGS R18


def test_formalize_under_control_costs_two_distinct_plus_one():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control")
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2  # the Starting Influence is deployed (CORE-01-08-02)
    sc.resources(0, DOM=2, FOR=1)
    g = sc.game()
    assert "formalize 8,7" in legal(g)
    act(g, "formalize 8,7")
    assert res(g, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}
    assert g.supply[0] == 3


def test_security_level_reduces_production_stacks_and_floors_at_zero():
    sc = Scenario02()
    _board(sc, [0, 0, 1, 0])
    sc.put("8,8", "DOM-W2", influence=[1, 0, 0, 0])
    sc.put("6,8", "FOR-W2", influence=[0, 1, 0, 0])
    sc.reg("7,8", "security-level")  # 3 - 1 = 2
    sc.reg("8,8", "security-level", 3)  # 2 - 3 -> 0 (EXP-02-04-B-04)
    sc.reg("6,8", "administration")  # RULINGS R28: production is never surcharged
    sc.at(player=3, turns_in_round=3)
    g = sc.game()
    # player 3 passes the last turn of the round: the Round Settlement follows.
    act(g, "place 8,7")
    while g.phase_name != "place_tile":
        act(g, legal(g)[0])
    assert res(g, 2)["DOM"] == 2 and res(g, 0)["DOM"] == 0 and res(g, 1)["FOR"] == 2


def test_blockade_on_a_resort_tile_stops_its_production():
    sc = Scenario02()
    _board(sc, [0, 0, 1, 0])
    sc.reg("7,8", "blockade")
    sc.at(player=3, turns_in_round=3)
    g = sc.game()
    act(g, "place 8,7")
    assert res(g, 2)["DOM"] == 0 and events(g, "production-prohibited")


def test_convert_under_administration_and_security_level_pays_more_and_gains_nothing():
    # EXP-02-04-B-01: cost increases (2), then output reduction (3) to 0 (B-04); R29: the action stays legal.
    sc = Scenario02()
    _board(sc)
    sc.reg("6,7", "administration")
    sc.reg("6,7", "security-level")
    sc.resources(0, DOM=3)
    g = sc.game()
    assert "convert 6,7" in legal(g)
    act(g, "convert 6,7")
    act(g, "gain SEC")
    assert res(g, 0) == {"DOM": 0, "FOR": 0, "INF": 0, "SEC": 0}
    assert events(g, "convert")[-1]["amount"] == 0


def test_blockade_overrides_every_other_modification():
    sc = Scenario02()
    _board(sc)
    for t in ("security-level", "administration", "blockade"):
        sc.reg("6,7", t)
    sc.resources(0, DOM=5)
    g = sc.game()
    assert "convert 6,7" not in legal(g)  # EXP-02-10-05


def test_security_level_on_a_committee_makes_formalize_create_nothing_but_costs_are_paid():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "security-level")
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2
    sc.resources(0, DOM=1, FOR=1)
    g = sc.game()
    act(g, "formalize 8,7")
    assert res(g, 0)["DOM"] == 0 and g.supply[0] == 2 and g.created[0] == 0  # RULINGS R29


def test_the_start_committee_ignores_global_surcharges():
    # CORE-01-08-06A: State of Exception (all effects +1) does not touch a Start Committee formalization.
    sc = Scenario02()
    _board(sc)
    for p in range(4):
        sc.data["players"][p]["deployed"] = 2
    sc.effect("EXP-02-M10", 1, "end_of_round")
    sc.resources(0, DOM=2, FOR=1, INF=1)
    g = sc.game()
    act(g, "formalize 7,7")
    while g.phase_name == "pay":
        act(g, legal(g)[0])
    assert sum(res(g, 0).values()) == 0 and g.supply[0] == 3


# ---------------------------------------------------------------------------- Authority Apparatus (EXP-02-05, R25)


def test_authority_apparatus_moves_or_removes_a_regulation_without_sec():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    g = sc.game()
    assert {"move-regulation", "remove-regulation"} <= set(legal(g))
    before = res(g, 0)
    act(g, "remove-regulation")
    assert legal(g) == ["control 8,7"]
    act(g, "control 8,7")
    assert g.ext["EXP-02"].on == {} and g.ext["EXP-02"].returned == 1 and res(g, 0) == before
    assert events(g, "regulation-removed")[0]["rule"] == "EXP-02-05-02"
    assert g.phase_name == "place_tile" and g.active == 1  # it was the turn's Political Action


def test_authority_apparatus_move_keeps_the_type_and_its_restriction():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,7", "control")
    g = sc.game()
    act(g, "move-regulation", "control 8,7")
    dests = legal(g)
    # RULINGS R41, EXP-02-02-F-02: Control never onto a ResortTile or Grassroots; never the SC or its own tile.
    assert "control 7,8" not in dests and "control 6,7" not in dests and "control 7,7" not in dests
    assert "control 8,7" not in dests and {"control 9,7", "control 7,6", "control 8,6"} <= set(dests)
    act(g, "control 9,7")
    assert g.ext["EXP-02"].on == {cell(g, "9,7"): [0, 1, 0, 0]}


def test_authority_apparatus_is_not_offered_without_regulations_or_when_blockaded():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Authority Apparatus")
    g = sc.game()
    assert "move-regulation" not in legal(g) and "remove-regulation" not in legal(g)  # RULINGS R25, R7
    sc.reg("8,6", "blockade")
    g = sc.game()
    assert "remove-regulation" not in legal(g)  # RULINGS R27: Blockade on AA prohibits it


def test_control_on_authority_apparatus_surcharges_its_activation():
    sc = Scenario02()
    _board(sc)
    sc.put("8,6", "Authority Apparatus")
    sc.reg("8,6", "control")
    g = sc.game()
    assert "remove-regulation" not in legal(g)  # +1 Resource, and player 0 has none
    sc.resources(0, INF=1)
    g = sc.game()
    act(g, "remove-regulation", "control 8,6")
    assert res(g, 0)["INF"] == 0 and g.ext["EXP-02"].on == {}


# ---------------------------------------------------------------------------- Inner Order (EXP-02-02-G, R23, R42)


def _inner_order(sc: Scenario02, leader_influence: list[int]) -> None:
    """Inner Order at 8,7 with three of its four neighbours on the Board; the drawn Committee closes it at 8,8."""
    sc.put("8,7", "Inner Order", influence=leader_influence)
    sc.put("9,7", "Committee")
    sc.put("8,6", "Committee")
    sc.put("6,7", "Grassroots")
    sc.put("7,8", "DOM-W3")
    t = sc.tile_id("Committee")
    sc.data["draw_pile"].remove(t)
    sc.data["drawn_tile"] = t
    sc.data["phase"] = "place_tile"


def test_inner_order_is_decided_by_the_majority_leader_who_is_not_active_bc40():
    sc = Scenario02()
    _inner_order(sc, [0, 0, 1, 0])
    sc.resources(2, SEC=2)
    g = sc.game()
    act(g, "place-tile 8,8")
    # RULINGS R23/R42: player 2 leads, player 0 is active; player 2 decides.
    assert g.current_player == 2 and g.active == 0
    assert legal(g) == ["place-regulation", "decline"]  # nothing to move yet
    act(g, "place-regulation")
    assert res(g, 2)["SEC"] == 0  # EXP-02-02-G-05: the normal placement cost, 2 SEC
    assert g.current_player == 2
    act(g, "blockade 9,7")
    assert g.ext["EXP-02"].on == {cell(g, "9,7"): [0, 0, 0, 1]}
    # G-06/G-07: no Influence placed on IO, no Resources.
    assert g.influence_on(cell(g, "8,7")) == [0, 0, 1, 0]
    # the active player's turn continues with its Political Action
    assert g.current_player == 0 and g.phase_name == "political"


def test_inner_order_leader_may_move_a_regulation_for_free_or_decline():
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.reg("7,8", "security-level")
    g = sc.game()
    act(g, "place-tile 8,8")
    assert g.current_player == 1 and legal(g) == ["move-regulation", "decline"]  # no SEC for a placement
    act(g, "move-regulation", "security-level 7,8", "security-level 6,7")
    assert g.ext["EXP-02"].on == {cell(g, "6,7"): [1, 0, 0, 0]}
    g = sc.game()
    act(g, "place-tile 8,8", "decline")
    assert g.ext["EXP-02"].on == {cell(g, "7,8"): [1, 0, 0, 0]} and g.current_player == 0


def test_inner_order_with_a_tie_or_a_blockade_does_nothing_and_counts_as_resolved():
    sc = Scenario02()
    _inner_order(sc, [1, 1, 0, 0])
    sc.resources(0, SEC=2)
    g = sc.game()
    act(g, "place-tile 8,8")
    assert g.phase_name == "political" and g.resolved[cell(g, "8,7")]  # RULINGS R42, R43
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.reg("8,7", "blockade")
    sc.reg("7,8", "security-level")
    g = sc.game()
    act(g, "place-tile 8,8")
    assert g.phase_name == "political" and g.resolved[cell(g, "8,7")]  # EXP-02-04-C-03
    assert not events(g, "inner-order")


def test_control_on_inner_order_surcharges_the_chosen_option():
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.reg("8,7", "control")
    sc.reg("7,8", "security-level")
    sc.resources(1, SEC=2)
    g = sc.game()
    act(g, "place-tile 8,8")
    # 2 SEC + 1 cannot be paid from 2 SEC; moving costs 1 (a SEC)
    assert legal(g) == ["move-regulation", "decline"]
    act(g, "move-regulation")
    assert res(g, 1)["SEC"] == 1


def test_inner_order_pending_decision_round_trips_through_json():
    sc = Scenario02()
    _inner_order(sc, [0, 0, 1, 0])
    sc.resources(2, SEC=2)
    g = sc.game()
    act(g, "place-tile 8,8")
    data = g.to_dict()
    with incomplete_ok():
        h = Game.from_dict(data)
    assert h.to_dict() == data and legal(h) == legal(g)
    act(h, "place-regulation")
    data = h.to_dict()
    with incomplete_ok():
        k = Game.from_dict(data)
    assert legal(k) == legal(h) and k.current_player == 2


# ---------------------------------------------------------------------------- random play


@pytest.mark.parametrize("config", [EXP02_4P, EXP0102_4P, RulesConfig(players=2, exp02=True)])
def test_random_games_conserve_regulations_and_round_trip(config):
    rng = random.Random(7)
    for seed in range(3):
        g = new_game(config, seed)
        n = 0
        while not g.is_terminal():
            legal_ = g.legal_actions()
            # prefer Regulation and Measure actions so they happen
            pref = [a for a in legal_ if a >= g.layout.take]
            g.apply(rng.choice(pref if pref and rng.random() < 0.7 else legal_))
            n += 1
            assert g.ext["EXP-02"].check(g) == []
            if n % 25 == 0:
                with incomplete_ok():
                    assert Game.from_dict(g.to_dict()).legal_actions() == g.legal_actions()


# ---------------------------------------------------------------------------- RULINGS R28's option


@pytest.mark.parametrize("choice", ["pay DOM", "decline"])
def test_option_cost_regulations_tax_production_bc42(choice):
    config = RulesConfig(players=4, exp02=True, cost_regulations_tax_production=True)
    sc = Scenario02(config)
    _board(sc, [0, 0, 1, 0])
    sc.reg("7,8", "administration")
    sc.at(player=3, turns_in_round=3)
    g = sc.game()
    act(g, "place 8,7")  # the round's last Political Action: the Round Settlement follows
    # player 2 received 3 DOM and now pays the surcharge (1 Resource of any resort) or returns the share
    assert g.phase_name == "production-tax" and g.current_player == 2
    assert legal(g) == ["pay DOM", "decline"]
    data = g.to_dict()
    with incomplete_ok():
        assert Game.from_dict(data).to_dict() == data
    act(g, choice)
    assert res(g, 2)["DOM"] == (2 if choice == "pay DOM" else 0)
    assert g.phase_name == "place_tile" and g.round == 2
    # without the option (the default) production is never surcharged (RULINGS R28)
    plain = Scenario02()
    _board(plain, [0, 0, 1, 0])
    plain.reg("7,8", "administration")
    plain.at(player=3, turns_in_round=3)
    h = plain.game()
    act(h, "place 8,7")
    assert res(h, 2)["DOM"] == 3


# ---------------------------------------------------------------------------- rendering and encoding


def test_text_rendering_lists_regulations_and_exp02_effects():
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)
    sc.reg("7,8", "security-level")
    sc.effect("EXP-02-M10", 1, "end_of_round")
    text = sc.game().render()
    assert "regulations: 8,7 controlx2; 7,8 security-level  (placed 3, returned 0)" in text  # cell order
    assert "EXP-02 in force: State of Exception (P1)" in text


def test_the_encoder_shows_regulations_and_keeps_incremental_equal_to_fresh():
    from bc_env.encoding import Encoder, encoder_version

    assert encoder_version(EXP02_4P) == "2+EXP-02.1"
    enc = Encoder(EXP02_4P)
    plain_core = Encoder(RulesConfig(players=4))
    assert plain_core.size_total < enc.size_total
    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)
    sc.effect("EXP-02-M13", 1, "end_of_round", cell=cell(sc.game(), "8,7"))
    g = sc.game()
    views = enc.views(enc.encode(g, 0))
    assert views["regulations"][1].reshape(-1)[cell(g, "8,7")] == 0.5  # 2 of 4
    assert views["regulation_marks"][0].reshape(-1)[cell(g, "8,7")] == 1.0  # Surveillance
    rng = random.Random(3)
    g = new_game(EXP02_4P, 3)
    sec = g.config.resorts.index("SEC")
    for p in range(4):
        g.res[p * g.num_resorts + sec] += 6
        g.bank[sec] -= 6
    steps = 0
    while not g.is_terminal():
        legal_ = g.legal_actions()
        pref = [a for a in legal_ if a >= g.layout.take]
        g.apply(rng.choice(pref if pref and rng.random() < 0.8 else legal_))
        steps += 1
        if steps % 9 == 0:
            for observer in (0, 2):
                v = enc.encode(g, observer)
                assert v.min() >= 0.0 and v.max() <= 1.0
                assert (v == Encoder(EXP02_4P).encode(g, observer)).all()  # incremental == rebuilt


def test_a_regulation_payment_with_a_choice_round_trips_with_its_owner():
    # an Inner Order option paid by the leader (not the active player, R23) with a choice of resorts (BC-05)
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.reg("8,7", "control")
    sc.reg("7,8", "security-level")
    sc.resources(1, DOM=1, FOR=1)
    g = sc.game()
    act(g, "place-tile 8,8", "move-regulation")
    assert g.phase_name == "regulation-pay" and g.current_player == 1 and legal(g) == ["pay DOM", "pay FOR"]
    data = g.to_dict()
    with incomplete_ok():
        h = Game.from_dict(data)
    assert h.to_dict() == data and h.current_player == 1 and legal(h) == legal(g)
    act(h, "pay FOR", "security-level 7,8", "security-level 6,7")
    assert res(h, 1) == {"DOM": 1, "FOR": 0, "INF": 0, "SEC": 0} and h.current_player == 0
    c = g.clone()
    act(c, "pay DOM")
    assert g.phase_name == "regulation-pay" and c.phase_name == "regulation-pick"  # the clone is independent


def test_a_state_paused_in_inner_order_with_another_hotspot_waiting_round_trips():
    # RULINGS R5: one placement closes Inner Order (8,7) and a Hotspot (9,8); IO resolves first and its leader
    # decides (R23/R42) while the other Hotspot waits, fully surrounded and not resolved yet.
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.put("9,8", "Hotspot", influence=[0, 0, 1, 0])
    sc.put("10,8", "Committee")
    sc.put("9,9", "Committee")
    sc.put("10,7", "Committee")
    sc.resources(1, SEC=2)
    g = sc.game()
    act(g, "place-tile 8,8")
    assert g.current_player == 1 and not g.resolved[cell(g, "9,8")]
    data = g.to_dict()
    with incomplete_ok():
        h = Game.from_dict(data)
    assert h.to_dict() == data
    act(h, "decline")
    assert h.resolved[cell(h, "9,8")] and h.influence_on(cell(h, "9,8")) == [0, 0, 2, 0]
    bad = data | {"stack": [dict(f) for f in data["stack"]]}
    for f in bad["stack"]:
        if f["frame"] == "hotspots":
            f["next"] = 2  # claims the waiting Hotspot has resolved
    with pytest.raises(StateError, match="resolved"):
        Game.from_dict(bad)


def test_the_svg_picture_shows_regulations_per_tile_and_type():
    from bc_env.env.svg import render_svg

    sc = Scenario02()
    _board(sc)
    sc.reg("8,7", "control", 2)
    sc.reg("8,7", "blockade")
    svg = render_svg(sc.game())
    assert "<title>Control x2, Blockade x1</title>C2 B1</text>" in svg
    assert "regulations attached: 3" in svg


def test_security_level_on_a_hotspot_reduces_its_influence_placement_to_zero_but_not_inner_order():
    # RULINGS R29: a Hotspot's Influence placement is an output; R43: it still counts as resolved.
    sc = Scenario02()
    _inner_order(sc, [0, 1, 0, 0])
    sc.put("9,8", "Hotspot", influence=[0, 0, 1, 0])
    sc.put("10,8", "Committee")
    sc.put("9,9", "Committee")
    sc.put("10,7", "Committee")
    sc.reg("9,8", "security-level")
    sc.reg("8,7", "security-level")  # Inner Order is not an output (R29): its leader still decides
    g = sc.game()
    act(g, "place-tile 8,8")
    assert g.current_player == 1 and "move-regulation" in legal(g)
    act(g, "decline")
    hotspot = cell(g, "9,8")
    assert g.resolved[hotspot] and g.influence_on(hotspot) == [0, 0, 1, 0] and events(g, "hotspot-output-zero")


def test_actions_md_counts_the_exp02_layout():
    assert Game.new("exp02-4p", 0).num_actions == 6 * 225 + 1 + 2 * 4 + 2 * 15 + 225 + 4 + 3 + 4 * 225 + 1 == 2522
