"""CORE-01-08 Restrictions: the formalization gate (CORE-01-08-02/03, RULINGS R11), the Influence cap
(CORE-01-08-01, ADD56-01-03-00-01, RULINGS R12) and the Start Committee (CORE-01-08-04..10)."""

import random

import pytest
from positions import Position, act, cfg, events, legal, refused, res

from bc_env.rules import Game, GrassrootsText, StateError


def formalizes(game):
    return [a for a in legal(game) if a.startswith("formalize")]


# ---------------------------------------------------------------------------- the gate


def _gate_position(**changes):
    """2 players; P0 has deployed all 4 Starting Influence, P1 only 3 (1 left in supply); P1 to act last in
    the round. P0 can pay both Committees (DOM 2, FOR 1, INF 1)."""
    pos = Position(cfg("core-2p", table_size=5, **changes))
    pos.put("3,2", "DOM-W3", influence=[2, 1])
    pos.put("2,1", "FOR-W2", influence=[2, 2])
    pos.put("1,2", "Committee")
    pos.player(0, resources={"DOM": 2, "FOR": 1, "INF": 1})
    pos.player(1, resources={"DOM": 1, "FOR": 1})
    pos.turn(active=1, turns_in_round=1)
    return pos


def _p0_political_after(game):
    """Let P0 place the drawn tile (first legal cell) and return the game in P0's political decision."""
    assert game.current_player == 0 and game.phase_name == "place_tile"
    game.apply(game.legal_actions()[0])
    assert game.phase_name == "political"
    return game


def test_CORE_01_08_02_03_gate_closed_for_every_committee_including_the_start_committee():
    game = _gate_position().game()
    assert game.deployed == [4, 3] and not game.formalize_gate_open()
    assert formalizes(game) == []  # P1 could pay the Committee but the gate is closed for everybody
    refused(game, "formalize 1,2", "political")


def test_R11_move_does_not_open_the_gate():
    game = _gate_position().game()
    act(game, "move-from 3,2", "move-to 1,2")
    assert game.deployed == [4, 3] and not game.formalize_gate_open()
    _p0_political_after(game)
    assert formalizes(game) == []


def test_R11_place_opens_the_gate_for_everybody():
    game = _gate_position().game()
    act(game, "place 1,2")
    assert game.deployed == [4, 4] and game.formalize_gate_open()
    _p0_political_after(game)
    # Round 1's settlement gave P0 3 DOM (DOM-W3, 2 : 1) and 1 FOR (FOR-W2 tied 2 : 2).
    assert res(game, 0) == {"DOM": 5, "FOR": 2, "INF": 1}
    assert formalizes(game) == ["formalize 1,2", "formalize 2,2"]


def test_R11_hotspot_placement_opens_the_gate():
    # P1 closes a Hotspot it leads; the Hotspot placement deploys P1's last Starting Influence, and P1 may
    # formalize in the Political Action of the same turn (CORE-01-06-03).
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Committee", influence=[4, 0])
    pos.put("4,2", "Hotspot", influence=[0, 1])
    pos.put("4,1", "Committee", influence=[0, 2])
    pos.player(1, resources={"DOM": 1, "FOR": 1})
    pos.drawn("DOM-W1")
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    assert game.deployed == [4, 3] and not game.formalize_gate_open()
    act(game, "place-tile 4,3")
    assert game.deployed == [4, 4] and game.supply == [0, 0]
    assert game.formalize_gate_open()
    assert formalizes(game) == ["formalize 4,1", "formalize 3,2"]


def test_VAR_01_02_handicap_lowers_the_start_players_gate_threshold():
    pos = Position(cfg("core-4p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 2, 2, 2])
    pos.put("1,2", "Committee")
    pos.player(0, starting=1, resources={"DOM": 1, "FOR": 1})  # P0 is the handicapped start player
    game = pos.game()
    assert game.starting == [1, 2, 2, 2] and game.formalize_gate_open()
    assert formalizes(game) == ["formalize 1,2"]


# ---------------------------------------------------------------------------- the cap


def _cap_position(players: int, p0_supply: int, p0_board: int):
    pos = Position(cfg(f"core-{players}p", table_size=5))
    others = pos.config.starting_influence
    pos.put("3,2", "DOM-W3", influence=[p0_board] + [others] * (players - 1))
    pos.put("1,2", "Committee")
    pos.player(0, supply=p0_supply, resources={"DOM": 2, "FOR": 2, "INF": 2})
    return pos.game()


@pytest.mark.parametrize(
    "players, supply, board, allowed",
    [
        (4, 1, 5, True),  # 6 < 7
        (4, 2, 5, False),  # 7: CORE-01-08-01
        (4, 0, 7, False),
        (2, 2, 4, True),
        (2, 3, 4, False),
        (5, 2, 5, True),  # 7 < 8: ADD56-01-03-00-01
        (5, 3, 5, False),  # 8
        (6, 1, 6, True),
        (6, 0, 8, False),
    ],
)
def test_CORE_01_08_01_ADD56_01_03_00_01_R12_influence_cap(players, supply, board, allowed):
    game = _cap_position(players, supply, board)
    assert game.formalize_gate_open()
    assert game.cap == (8 if players >= 5 else 7)
    assert formalizes(game) == (["formalize 1,2", "formalize 2,2"] if allowed else [])


def test_CORE_01_08_01_formalize_up_to_the_cap():
    game = _cap_position(4, 1, 5)
    act(game, "formalize 1,2", "pay DOM", "pay FOR")
    assert game.supply[0] + game.on_board[0] == 7 == game.cap
    assert game.created[0] == 5


# ---------------------------------------------------------------------------- the Start Committee


def _start_position(resources, start_used=False):
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[4, 0])
    pos.put("1,2", "Lobbyist", influence=[0, 4])  # P1 owns a Lobbyist next to the Start Committee
    pos.player(0, resources=resources, start_used=start_used)
    pos.player(1, resources=resources)
    return pos.game()


def test_CORE_01_08_08_to_10_start_committee_formalize_determined_payment():
    game = _start_position({"DOM": 2, "FOR": 1, "INF": 1})
    assert formalizes(game) == ["formalize 2,2"]
    bank = list(game.bank)
    since = len(game.events)
    act(game, "formalize 2,2")  # 3 different + 1 any: DOM, DOM, FOR, INF is the only payment
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 0}
    assert game.bank == [bank[0] + 2, bank[1] + 1, bank[2] + 1]
    assert game.supply[0] == 1 and game.created[0] == 1
    assert game.start_used == [True, False]
    centre = game.topo.centre
    assert events(game, since=since)[:2] == [
        {"player": 0, "resorts": [0, 0, 1, 2], "type": "pay", "rule": "CORE-01-08-09"},
        {"player": 0, "cell": centre, "type": "formalize", "rule": "CORE-01-08-10"},
    ]


def test_CORE_01_08_08_bc05_start_committee_payment_choices():
    # DOM 2, FOR 2, INF 2: the payments are DOM DOM FOR INF, DOM FOR FOR INF, DOM FOR INF INF. Picked in
    # ascending resort order, every payment starts with DOM, so BC-05 takes that DOM without asking and
    # asks first where the payments part: the second Resource (DOM or FOR).
    game = _start_position({"DOM": 2, "FOR": 2, "INF": 2})
    before = list(game.res), list(game.bank), list(game.supply)
    act(game, "formalize 2,2")
    assert game.phase_name == "pay" and game.decision.paid == [0]
    assert legal(game) == ["pay DOM", "pay FOR"]
    act(game, "pay FOR")
    assert legal(game) == ["pay FOR", "pay INF"]
    assert (game.res, game.bank, game.supply) == before  # nothing has moved yet
    act(game, "pay INF")  # DOM FOR INF INF
    assert res(game, 0) == {"DOM": 1, "FOR": 1, "INF": 0}
    assert events(game, "pay")[-1]["resorts"] == [0, 1, 2, 2]


def test_bc05_no_pay_decision_has_a_single_option():
    # DOM 2, FOR 2, INF 1: the payments are DOM DOM FOR INF and DOM FOR FOR INF; they part at the second
    # Resource only, so the one decision is DOM-or-FOR there, and the rest is completed by the engine.
    game = _start_position({"DOM": 2, "FOR": 2, "INF": 1})
    act(game, "formalize 2,2")
    assert legal(game) == ["pay DOM", "pay FOR"]
    act(game, "pay FOR")
    assert game.phase_name != "pay"
    assert events(game, "pay")[-1]["resorts"] == [0, 1, 1, 2]


def test_bc05_the_engine_writes_the_auto_taken_resource_into_the_stored_pending_payment():
    game = _start_position({"DOM": 2, "FOR": 2, "INF": 2})
    act(game, "formalize 2,2")
    state = game.to_dict()
    assert state["pending"] == {"kind": "formalize", "tile": "2,2", "paid": ["DOM"]}
    again = Game.from_dict(state)
    assert again.decision.paid == [0] and legal(again) == ["pay DOM", "pay FOR"]


def test_bc05_a_stored_pay_decision_without_the_shared_next_resource_is_rejected():
    game = _start_position({"DOM": 2, "FOR": 2, "INF": 2})
    act(game, "formalize 2,2")
    state = game.to_dict()
    state["pending"]["paid"] = []  # every payment still has DOM next: the engine never poses this decision
    with pytest.raises(StateError, match="pending"):
        Game.from_dict(state)


#: BC-09 texts with more ways to pay than the default (R16 "2 of one resort"), for the random games below.
_MANY_WAYS = (
    GrassrootsText(pay=3, pay_rule="any", gain=1, gain_rule="any", text="pay 3 of any, take 1 of any"),
    GrassrootsText(pay=2, pay_rule="distinct", gain=1, gain_rule="different", text="pay 2 distinct, take 1"),
)


def _pay_decision_checks(game, seen):
    """BC-05 on one open pay decision: at least two Resources offered, each a pay action of a resort not below
    the last one picked (ascending order), the picks so far ascending; every option leads to a decision that
    again offers at least two Resources (or leaves the pay decision)."""
    legal_now = game.legal_actions()
    lay = game.layout
    assert len(legal_now) >= 2, (game.decision.describe(game), legal(game))
    resorts = [a - lay.pay for a in legal_now]
    assert all(0 <= r < len(game.config.resorts) for r in resorts), legal(game)
    paid = game.decision.paid
    assert paid == sorted(paid)
    assert not paid or min(resorts) >= paid[-1]
    for a in legal_now:
        child = game.clone()
        child.apply(a)
        if child.phase_name == "pay":
            assert len(child.legal_actions()) >= 2 and child.decision.paid[: len(paid) + 1] == [*paid, a - lay.pay]
    seen["pay"] += 1


@pytest.mark.parametrize(
    "config",
    [
        "core-2p",
        "core-3p",
        "core-4p",
        "core-5p",
        "core-6p",
        "core-4p-variants",
        "core-4p-hex",
        pytest.param(cfg("core-3p", grassroots_texts=_MANY_WAYS), id="core-3p-many-ways"),
    ],
)
def test_bc05_random_games_never_pose_a_pay_decision_with_fewer_than_two_options(config):
    seen = {"pay": 0, "auto_taken": 0}
    for seed in range(4):
        game = Game.new(config, seed)
        rng = random.Random(seed)
        while not game.is_terminal():
            if game.phase_name == "pay":
                _pay_decision_checks(game, seen)
            legal_now = game.legal_actions()
            action = legal_now[rng.randrange(len(legal_now))]
            was_political = game.phase_name == "political"
            game.apply(action)
            if was_political and game.phase_name == "pay" and game.decision.paid:
                seen["auto_taken"] += 1  # BC-05 took a Resource that every payment has next
    assert seen["pay"] >= 50, seen  # the games reach the formalization gate and pose pay decisions
    # ...including ones where BC-05 took a shared first Resource (e.g. the Start Committee's DOM, see the tests
    # above): the case in which the engine used to offer a single pay option.
    assert seen["auto_taken"] >= 1, seen


@pytest.mark.parametrize("resources", [{"DOM": 1, "FOR": 1, "INF": 1}, {"DOM": 4}, {"DOM": 2, "FOR": 2}])
def test_CORE_01_08_08_start_committee_needs_three_different_plus_one(resources):
    game = _start_position(resources)
    assert formalizes(game) == []


def test_CORE_01_08_07_start_committee_once_per_game():
    game = _start_position({"DOM": 3, "FOR": 3, "INF": 3}, start_used=True)
    assert formalizes(game) == []
    # ...while the other player may still use it.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[4, 0])
    pos.put("1,2", "Lobbyist", influence=[0, 4])
    pos.player(0, resources={"DOM": 3, "FOR": 3, "INF": 3}, start_used=True)
    pos.player(1, resources={"DOM": 3, "FOR": 3, "INF": 3})
    pos.turn(active=1, turns_in_round=1)
    assert formalizes(pos.game()) == ["formalize 2,2"]


def test_CORE_01_08_07_used_in_play_is_not_offered_again():
    game = _start_position({"DOM": 3, "FOR": 3, "INF": 3})
    # Every payment starts with DOM (BC-05 takes it); the second DOM determines DOM DOM FOR INF.
    act(game, "formalize 2,2", "pay DOM")
    assert events(game, "pay")[-1]["resorts"] == [0, 0, 1, 2]
    assert game.start_used == [True, False]
    # P1 places a tile and formalizes too (DOM taken, FOR, FOR: DOM FOR FOR INF); round settlement; P0 draws
    # and places.
    game.apply(game.legal_actions()[0])
    act(game, "formalize 2,2", "pay FOR", "pay FOR")
    assert events(game, "pay")[-1]["resorts"] == [0, 1, 1, 2]
    assert game.start_used == [True, True]
    _p0_political_after(game)
    assert "formalize 2,2" not in legal(game)
    assert res(game, 0)["DOM"] >= 1 and res(game, 0)["FOR"] >= 1 and res(game, 0)["INF"] >= 1


def test_CORE_01_08_04_no_influence_placed_or_moved_onto_the_start_committee():
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    pos.put("1,2", "Committee")
    game = pos.game()
    assert "place 2,2" not in legal(game)
    refused(game, "place 2,2", "political")
    act(game, "move-from 3,2")
    assert legal(game) == ["move-to 1,2"]
    refused(game, "move-to 2,2", "move_to")
    # A position with Influence on the Start Committee is rejected outright.
    d = pos.to_dict()
    d["board"][[e["tile"] for e in d["board"]].index(0)]["influence"] = [1, 0]
    d["players"][0]["created"] += 1
    with pytest.raises(StateError, match="CORE-01-08-04"):
        Game.from_dict(d)


def test_CORE_01_08_05_start_committee_is_never_controlled():
    game = _start_position({})
    centre = game.topo.centre
    assert game.totals(centre) == [0, 1]  # P1's Lobbyist at 1,2 is adjacent...
    assert game.controller(centre) == -1  # ...but the Start Committee cannot be controlled
