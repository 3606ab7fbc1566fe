"""CORE-01-04-09..22 Political Actions: Place, Move, FormalizeInfluence, ConvertResources, Pass (RULINGS R7,
R10, R15..R18; docs/rulings.md BC-03, BC-05, BC-09, BC-12, BC-13)."""

import pytest
from positions import Position, act, cfg, events, legal, refused, res, rules_of

from bc_env.rules import GrassrootsText

# The 5x5 table used below (Start Committee SC at 2,2):
#
#         1     2     3
#   1          F2
#   2   Co     SC    D3
#   3          Gr
#
# D3 = DOM-W3 at 3,2, F2 = FOR-W2 at 2,1, Co = Committee at 1,2, Gr = Grassroots at 2,3.


def base(players: int = 2, gate_open: bool = True, **changes) -> Position:
    pos = Position(cfg(f"core-{players}p", table_size=5, **changes))
    pos.put("3,2", "DOM-W3")
    pos.put("2,1", "FOR-W2")
    pos.put("1,2", "Committee")
    pos.put("2,3", "Grassroots")
    if gate_open:
        # RULINGS R11: every player has moved their 4 Starting Influence to the Board.
        pos.influence("3,2", [2, 1])
        pos.influence("2,1", [2, 3])
    return pos


def snapshot(game):
    return (list(game.res), list(game.bank), list(game.noise), list(game.supply), list(game.infl))


# ---------------------------------------------------------------------------- Place


def test_CORE_01_04_11_R10_place_moves_one_influence_from_supply_to_a_tile():
    pos = base(gate_open=False)
    pos.influence("3,2", [1, 0])
    game = pos.game()
    assert game.supply == [3, 4] and game.deployed == [1, 0]
    # R10: Place onto any Board tile but the Start Committee; Move from the one own tile; nothing else.
    assert legal(game) == [
        "place 2,1",
        "place 1,2",
        "place 3,2",
        "place 2,3",
        "move-from 3,2",
    ]
    since = len(game.events)
    act(game, "place 2,1")
    c = game.topo.parse("2,1")
    assert game.influence_on(c) == [1, 0]
    assert game.supply == [2, 4] and game.on_board == [2, 0]
    assert game.deployed == [2, 0]  # RULINGS R11 counts Place
    assert game.created == [0, 0]
    assert events(game, since=since)[0] == {"player": 0, "cell": c, "type": "place-influence", "rule": "CORE-01-04-11"}
    # CORE-01-04-09: exactly one Political Action, then the next player draws (RULINGS R6 seat order).
    assert game.current_player == 1 and game.phase_name == "place_tile"


def test_CORE_01_04_11_no_place_without_supply():
    pos = base()
    game = pos.game()
    assert game.supply[0] == 0
    assert not [a for a in legal(game) if a.startswith("place ")]


# ---------------------------------------------------------------------------- Move


def test_CORE_01_04_12_R10_move_one_own_influence_to_another_tile():
    pos = base(gate_open=False)
    pos.influence("3,2", [1, 2])
    pos.influence("2,1", [0, 1])
    game = pos.game()
    assert [a for a in legal(game) if a.startswith("move")] == ["move-from 3,2"]  # only tiles with own Influence
    before = snapshot(game)
    act(game, "move-from 3,2")
    assert game.phase_name == "move_to" and game.current_player == 0
    assert snapshot(game) == before  # nothing moves until the destination is chosen
    # R10: any other non-Start tile; not the source, not the Start Committee (CORE-01-08-04).
    assert legal(game) == ["move-to 2,1", "move-to 1,2", "move-to 2,3"]
    since = len(game.events)
    act(game, "move-to 1,2")
    src, dst = game.topo.parse("3,2"), game.topo.parse("1,2")
    assert game.influence_on(src) == [0, 2] and game.influence_on(dst) == [1, 0]
    assert game.supply == [3, 1] and game.on_board == [1, 3]
    assert game.deployed == [1, 3]  # RULINGS R11: Move is not deployment
    assert events(game, since=since)[0] == {
        "player": 0,
        "src": src,
        "dst": dst,
        "type": "move-influence",
        "rule": "CORE-01-04-12",
    }
    # CORE-01-05-03: control follows at once: P1 now controls the DOM-W3 (2 : 0).
    assert game.controller(src) == 1
    assert game.current_player == 1


def test_CORE_01_04_12_no_move_without_own_influence_on_board():
    pos = base(gate_open=False)
    pos.influence("3,2", [0, 2])
    game = pos.game()
    assert not [a for a in legal(game) if a.startswith("move")]


def test_CORE_01_04_12_bc13_no_move_without_a_destination():
    # A single non-Start tile: the Influence on it has nowhere to go.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    game = pos.game()
    assert legal(game) == ["place 3,2"]


# ---------------------------------------------------------------------------- FormalizeInfluence


def test_CORE_01_04_15_to_17_formalize_standard_committee_determined_payment():
    pos = base()
    pos.player(0, resources={"DOM": 1, "FOR": 1})
    game = pos.game()
    # The Start Committee needs 4 Resources (CORE-01-08-08): not offered; the Committee is.
    assert [a for a in legal(game) if a.startswith("formalize")] == ["formalize 1,2"]
    bank = list(game.bank)
    since = len(game.events)
    act(game, "formalize 1,2")  # BC-05: only one payment exists, so the engine completes it
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 0}
    assert game.bank == [bank[0] + 1, bank[1] + 1, bank[2]]  # CORE-01-04-16: paid to the Bank
    assert game.supply[0] == 1 and game.created[0] == 1  # CORE-01-04-17
    assert game.on_board[0] == 4
    assert game.start_used == [False, False]
    cell = game.topo.parse("1,2")
    assert events(game, since=since)[:2] == [
        {"player": 0, "resorts": [0, 1], "type": "pay", "rule": "CORE-01-04-16"},
        {"player": 0, "cell": cell, "type": "formalize", "rule": "CORE-01-04-17"},
    ]
    assert game.current_player == 1 and game.phase_name == "place_tile"


def test_bc05_R18_formalize_payment_picked_in_ascending_resort_order_nothing_moves_until_the_end():
    pos = base()
    pos.player(0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    game = pos.game()
    before = snapshot(game)
    act(game, "formalize 1,2")
    # Payments {DOM,FOR}, {DOM,INF}, {FOR,INF}; the first pick is the lower resort: DOM or FOR (never INF).
    assert game.phase_name == "pay" and legal(game) == ["pay DOM", "pay FOR"]
    assert snapshot(game) == before
    act(game, "pay DOM")
    assert legal(game) == ["pay FOR", "pay INF"]
    assert snapshot(game) == before and game.current_player == 0
    bank = list(game.bank)
    act(game, "pay INF")
    assert res(game, 0) == {"DOM": 0, "FOR": 1, "INF": 0}
    assert game.bank == [bank[0] + 1, bank[1], bank[2] + 1]
    assert game.supply[0] == 1
    assert events(game, "pay")[-1]["resorts"] == [0, 2]


def test_bc05_formalize_pick_that_determines_the_payment_completes_it():
    pos = base()
    pos.player(0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    game = pos.game()
    act(game, "formalize 1,2", "pay FOR")  # only {FOR, INF} starts with FOR
    assert res(game, 0) == {"DOM": 1, "FOR": 0, "INF": 0}
    assert game.supply[0] == 1 and game.current_player == 1


@pytest.mark.parametrize(
    "resources",
    [{}, {"DOM": 1}, {"DOM": 5}, {"INF": 2}],
    ids=["none", "one", "same-resort", "same-resort-inf"],
)
def test_CORE_01_04_18_19_formalize_not_offered_when_it_cannot_be_paid(resources):
    pos = base()
    pos.player(0, resources=resources)
    game = pos.game()
    assert not [a for a in legal(game) if a.startswith("formalize")]
    refused(game, "formalize 1,2", "political")


# ---------------------------------------------------------------------------- ConvertResources


def test_CORE_01_04_20_to_22_R16_convert_default_text_pay_two_same_gain_one_different():
    pos = base()
    pos.player(0, resources={"DOM": 2, "INF": 1})
    game = pos.game()
    assert "convert 2,3" in legal(game)
    before = snapshot(game)
    bank = list(game.bank)
    act(game, "convert 2,3")  # the payment {DOM, DOM} is determined; the gain is a choice
    assert game.phase_name == "gain" and legal(game) == ["gain FOR", "gain INF"]
    assert snapshot(game) == before
    since = len(game.events)
    act(game, "gain INF")
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 2}
    assert game.bank == [bank[0] + 2, bank[1], bank[2] - 1]
    cell = game.topo.parse("2,3")
    assert events(game, since=since)[:2] == [
        {"player": 0, "resorts": [0, 0], "type": "pay", "rule": "CORE-01-04-22"},
        {"player": 0, "cell": cell, "gain": 2, "amount": 1, "type": "convert", "rule": "CORE-01-04-22"},
    ]
    assert game.current_player == 1


def test_bc05_convert_payment_choice_then_gain_choice():
    pos = base()
    pos.player(0, resources={"DOM": 2, "FOR": 3})
    game = pos.game()
    act(game, "convert 2,3")
    assert game.phase_name == "pay" and legal(game) == ["pay DOM", "pay FOR"]
    act(game, "pay FOR")
    assert game.phase_name == "gain" and legal(game) == ["gain DOM", "gain INF"]
    act(game, "gain DOM")
    assert res(game, 0) == {"DOM": 3, "FOR": 1, "INF": 0}


def test_CORE_01_04_22_convert_not_offered_without_two_of_one_resort():
    pos = base()
    pos.player(0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    game = pos.game()
    assert not [a for a in legal(game) if a.startswith("convert")]


TWO_TEXTS = (
    GrassrootsText(pay=3, pay_rule="distinct", gain=2, gain_rule="any", text="pay 3 distinct, take 2 of any"),
    GrassrootsText(pay=1, pay_rule="any", gain=1, gain_rule="different", text="pay 1, take 1 of another"),
)


def _custom_text_game():
    pos = base(grassroots_texts=TWO_TEXTS)
    # BC-09: Grassroots tile k (catalogue order) carries text k mod 2. The fixture's Grassroots at 2,3 is the
    # first one (k = 0); put the second (k = 1) at 1,3.
    first = pos.tile("Grassroots")  # already placed at 2,3: the next free one is k = 1
    pos.put("1,3", first)
    pos.player(0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    return pos.game()


def test_bc09_custom_text_pay_three_distinct_gain_two_of_any():
    game = _custom_text_game()
    assert game.grassroots_text(game.topo.parse("2,3")) == TWO_TEXTS[0]
    assert game.grassroots_text(game.topo.parse("1,3")) == TWO_TEXTS[1]
    bank = list(game.bank)
    act(game, "convert 2,3")  # the only payment is {DOM, FOR, INF}
    assert game.phase_name == "gain" and legal(game) == ["gain DOM", "gain FOR", "gain INF"]
    act(game, "gain FOR")
    assert res(game, 0) == {"DOM": 0, "FOR": 2, "INF": 0}
    assert game.bank == [bank[0] + 1, bank[1] + 1 - 2, bank[2] + 1]
    assert events(game, "convert")[-1]["amount"] == 2


def test_bc09_custom_text_pay_one_of_any_gain_one_different():
    game = _custom_text_game()
    act(game, "convert 1,3")
    assert game.phase_name == "pay" and legal(game) == ["pay DOM", "pay FOR", "pay INF"]
    act(game, "pay INF")
    assert legal(game) == ["gain DOM", "gain FOR"]  # 'different' from the paid INF
    act(game, "gain DOM")
    assert res(game, 0) == {"DOM": 2, "FOR": 1, "INF": 0}


def test_bc03_R17_finite_bank_convert_gain_only_where_the_bank_can_give_it():
    pos = base(bank_stock=4)
    pos.player(0, resources={"DOM": 2})
    pos.bank(DOM=2, FOR=0, INF=4)  # the rest of each stock is in Noise
    game = pos.game()
    assert game.noise == [0, 4, 0]
    act(game, "convert 2,3")  # FOR cannot be given: the gain INF is determined, nothing to choose
    assert res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 1}
    assert game.bank == [4, 0, 3]
    # CORE-01-00-01: every Resource stays in exactly one zone.
    assert [sum(game.res[p * 3 + r] for p in range(2)) + game.bank[r] + game.noise[r] for r in range(3)] == [4] * 3


def test_bc03_finite_bank_convert_not_legal_when_no_resort_can_be_given():
    pos = base(bank_stock=4)
    pos.player(0, resources={"DOM": 2})
    pos.bank(DOM=2, FOR=0, INF=0)
    game = pos.game()
    assert not [a for a in legal(game) if a.startswith("convert")]


def test_bc03_finite_bank_gain_any_counts_the_arriving_payment():
    text = GrassrootsText(pay=2, pay_rule="same", gain=1, gain_rule="any", text="swap")
    pos = base(bank_stock=2, grassroots_texts=(text,))
    pos.player(0, resources={"DOM": 2})
    pos.bank(DOM=0, FOR=0, INF=0)
    game = pos.game()
    act(game, "convert 2,3")  # only DOM can be taken: the two DOM just paid are in the Bank
    assert res(game, 0) == {"DOM": 1, "FOR": 0, "INF": 0}
    assert game.bank == [1, 0, 0]


# ---------------------------------------------------------------------------- R15 / BC-04


def test_R15_bc04_action_tiles_require_control_option():
    pos = base(action_tiles_require_control=True)
    pos.influence("1,2", [0, 1])  # P1 controls the Committee
    pos.player(1, supply=0)
    pos.player(0, resources={"DOM": 3, "FOR": 2, "INF": 1})
    game = pos.game()
    options = legal(game)
    assert "formalize 1,2" not in options and "convert 2,3" not in options  # nobody controls the Grassroots
    assert "formalize 2,2" in options  # BC-04: the Start Committee cannot be controlled, the option skips it
    plain = base()
    plain.influence("1,2", [0, 1])
    plain.player(1, supply=0)
    plain.player(0, resources={"DOM": 3, "FOR": 2, "INF": 1})
    assert {"formalize 1,2", "convert 2,3", "formalize 2,2"} <= set(legal(plain.game()))


# ---------------------------------------------------------------------------- Pass


def test_R7_bc12_pass_only_when_no_political_action_is_legal():
    pos = base(gate_open=False)
    pos.influence("3,2", [0, 4])
    pos.player(0, supply=0, starting=0)  # no supply, nothing on the Board, no Resources
    game = pos.game()
    assert legal(game) == ["pass"]
    since = len(game.events)
    act(game, "pass")
    assert rules_of(game, since)[0] == ("pass", "RULINGS-R7")
    assert game.current_player == 1 and game.phase_name == "place_tile"


def test_R7_pass_when_formalize_is_only_blocked_by_the_gate():
    pos = base(gate_open=False)
    pos.influence("3,2", [0, 3])  # P1 has one Starting Influence left in supply: the gate is closed
    pos.player(0, supply=0, starting=0, resources={"DOM": 1, "FOR": 1, "INF": 1})
    game = pos.game()
    assert not game.formalize_gate_open()
    assert legal(game) == ["pass"]


def test_R7_no_pass_when_something_else_is_legal():
    game = base(gate_open=False).game()
    assert "pass" not in legal(game)
    refused(game, "pass", "political")
