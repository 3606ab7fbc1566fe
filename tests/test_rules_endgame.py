"""CORE-01-09 End Game (RULINGS R8, R9; docs/rulings.md BC-07)."""

import numpy as np
import pytest
from positions import Position, act, cfg, events, rules_of

from bc_env.rules import IllegalActionError


def test_R8_bc07_final_settlement_when_the_round_has_begun():
    # 3 players, P1 takes the second turn of the round with an empty DrawPile: P2 cannot draw, the game ends,
    # and since turns were taken in this round, its settlement is the final one.
    pos = Position(cfg("core-3p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0, 0])
    pos.put("1,2", "Committee")
    pos.pile_only()
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    since = len(game.events)
    act(game, "place 1,2")
    assert rules_of(game, since) == [
        ("place-influence", "CORE-01-04-11"),
        ("draw-pile-empty", "CORE-01-09-01"),
        ("settlement", "CORE-01-07-02"),
        ("produce", "CORE-01-06-11"),
        ("game-over", "CORE-01-09-03"),
    ]
    assert events(game, "draw-pile-empty", since)[0]["player"] == 2
    assert game.resources_of(0) == [3, 0, 0]
    assert game.is_terminal() and game.current_player is None and game.phase_name == "over"
    # BC-07: P2's turn (its draw found the pile empty) was not taken.
    assert game.turns_in_round == 2 and game.round == 1


def test_R8_bc07_no_extra_settlement_when_no_turn_was_taken_in_the_round():
    # 2 players, P1 ends round 1 (regular settlement); P0 cannot draw in round 2: that settlement was final.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    pos.put("1,2", "Committee")
    pos.pile_only()
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    since = len(game.events)
    act(game, "place 1,2")
    assert rules_of(game, since) == [
        ("place-influence", "CORE-01-04-11"),
        ("settlement", "CORE-01-07-02"),
        ("produce", "CORE-01-06-11"),
        ("draw-pile-empty", "CORE-01-09-01"),
        ("game-over", "CORE-01-09-03"),
    ]
    assert events(game, "settlement", since) == [{"round": 1, "type": "settlement", "rule": "CORE-01-07-02"}]
    assert game.resources_of(0) == [3, 0, 0]  # produced once, not twice
    assert game.round == 2 and game.turns_in_round == 0


def test_R8_last_tile_drawn_then_game_ends_on_the_next_draw():
    # One tile left: P0 draws it and plays the turn; P1's draw ends the game with a final settlement.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W2", influence=[0, 1])
    pos.drawn("Committee")
    pos.pile_only()
    pos.turn(active=1)  # P1 starts round 1 with the place_tile decision for the last tile
    game = pos.game()
    assert game.draw_pile == []
    act(game, "place-tile 1,2", "place 1,2")
    assert game.is_terminal()
    assert [e["type"] for e in game.events][-4:] == ["draw-pile-empty", "settlement", "produce", "game-over"]
    assert game.resources_of(1) == [2, 0, 0]


def test_CORE_01_09_03_R9_winner_counts_physical_influence_on_board_only():
    # P0: 4 on the Board. P1: 3 on the Board (one on each of two Lobbyists, so +2 virtual on the DOM-W3)
    # and 2 in supply. Counting virtual Influence or supply, P1 would win; R9 counts physical Board only.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[4, 1])
    pos.put("3,1", "Lobbyist", influence=[0, 1])
    pos.put("4,2", "Lobbyist", influence=[0, 1])
    pos.put("1,2", "Committee")
    pos.player(1, supply=2)
    pos.pile_only()
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    c = game.topo.parse("3,2")
    assert game.totals(c) == [4, 3]
    act(game, "move-from 3,2", "move-to 1,2")  # P1's last action keeps its Board count at 3
    assert game.is_terminal()
    assert game.on_board == [4, 3] and game.supply == [0, 2]
    assert game.winners() == [0]
    assert game.returns() == [1.0, -1.0]
    assert events(game, "game-over") == [
        {"winners": [0], "influence": [4, 3], "type": "game-over", "rule": "CORE-01-09-03"}
    ]


@pytest.mark.parametrize(
    "board, winners, returns",
    [
        ([2, 2, 1], [0, 1], [0.5, 0.5, -1.0]),  # CORE-01-09-04: shared victory
        ([1, 2, 2], [1, 2], [-1.0, 0.5, 0.5]),
        ([2, 2, 2], [0, 1, 2], [0.0, 0.0, 0.0]),  # everybody shares: all 0 (R9)
        ([0, 0, 1], [2], [-0.5, -0.5, 1.0]),
    ],
)
def test_CORE_01_09_04_R9_shared_victory_and_returns(board, winners, returns):
    # The active P2 has an empty supply and Influence only on 1,2; it moves it to 3,2 (same totals).
    pos = Position(cfg("core-3p", table_size=5))
    pos.put("1,2", "Committee", influence=[0, 0, board[2]])
    pos.put("3,2", "DOM-W3", influence=[board[0], board[1], 0])
    for p in range(3):
        pos.player(p, supply=0, starting=board[p])
    pos.pile_only()
    pos.turn(active=2, turns_in_round=2)
    game = pos.game()
    if board[2]:
        act(game, "move-from 1,2", "move-to 3,2")
    else:
        act(game, "pass")
    assert game.is_terminal()
    assert game.winners() == winners
    assert game.returns() == pytest.approx(returns)
    assert sum(game.returns()) == pytest.approx(0.0)


def test_CORE_01_09_02_nothing_follows_the_end():
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0])
    pos.pile_only()
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    act(game, "place 3,2")
    assert game.is_terminal()
    assert game.legal_actions() == []
    assert not np.any(game.legal_action_mask())
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(game.layout.pass_)
    assert game.to_dict() == before
    assert game.returns() == [0.0, 0.0]  # 1 : 1 on the Board
