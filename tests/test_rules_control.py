"""CORE-01-05 Control and Lobbyists (RULINGS R13, R14; docs/rulings.md BC-11)."""

import pytest
from positions import Position, act, cfg, events

# Cells on the 5x5 table (Start Committee at 2,2).
D3, NORTH, EAST, NE = "3,2", "3,1", "4,2", "4,1"


def cell(game, label):
    return game.topo.parse(label)


@pytest.mark.parametrize(
    "infl, controller, majority",
    [
        ([2, 1, 0], 0, [0]),
        ([0, 0, 3], 2, [2]),
        ([1, 1, 0], -1, [0, 1]),  # CORE-01-05-02: a tie at the top means no control
        ([2, 2, 1], -1, [0, 1]),
        ([1, 1, 1], -1, [0, 1, 2]),
        ([0, 0, 0], -1, []),  # RULINGS R14: a total of 0 never controls
    ],
)
def test_CORE_01_05_01_02_R14_relative_majority_controls(infl, controller, majority):
    pos = Position(cfg("core-3p", table_size=5))
    pos.put(D3, "DOM-W3", influence=infl)
    game = pos.game()
    c = cell(game, D3)
    assert game.totals(c) == infl
    assert game.majority(c) == majority
    assert game.controller(c) == controller
    assert game.controller(game.topo.centre) == -1  # CORE-01-08-05


def test_CORE_01_05_04_owned_lobbyist_adds_one_virtual_influence_to_each_adjacent_tile():
    pos = Position(cfg("core-3p", table_size=5))
    pos.put(D3, "DOM-W3", influence=[1, 0, 0])
    pos.put(NORTH, "Lobbyist", influence=[0, 1, 0])
    game = pos.game()
    c = cell(game, D3)
    assert game.lobbyist_owner(cell(game, NORTH)) == 1
    assert game.totals(c) == [1, 1, 0]  # P1: 0 physical + 1 virtual
    assert game.controller(c) == -1
    # CORE-01-05-05/06: the contribution creates and moves no Influence object.
    assert game.influence_on(c) == [1, 0, 0]
    assert game.on_board == [1, 1, 0] and game.supply == [2, 2, 3]


def test_CORE_01_05_04_two_owned_lobbyists_give_control_without_physical_influence():
    pos = Position(cfg("core-3p", table_size=5))
    pos.put(D3, "DOM-W3", influence=[1, 0, 0])
    pos.put(NORTH, "Lobbyist", influence=[0, 1, 0])
    pos.put(EAST, "Lobbyist", influence=[0, 2, 1])
    game = pos.game()
    c = cell(game, D3)
    assert game.totals(c) == [1, 2, 0]
    assert game.controller(c) == 1


@pytest.mark.parametrize("lobby_infl", [[0, 0, 0], [1, 1, 0], [2, 0, 2]])
def test_R13_unowned_lobbyist_adds_nothing(lobby_infl):
    pos = Position(cfg("core-3p", table_size=5))
    pos.put(D3, "DOM-W3", influence=[0, 0, 1])
    pos.put(NORTH, "Lobbyist", influence=lobby_infl)
    game = pos.game()
    assert game.lobbyist_owner(cell(game, NORTH)) == -1
    assert game.totals(cell(game, D3)) == [0, 0, 1]
    assert game.controller(cell(game, D3)) == 2


@pytest.mark.parametrize("topology, totals", [("square", [1, 0]), ("hex", [1, 1])])
def test_CORE_01_00_08_R1_lobbyist_adjacency_follows_the_topology(topology, totals):
    # 4,1 is diagonal to 3,2: not adjacent on the square table, adjacent on the hex table (axial +1,-1).
    pos = Position(cfg("core-2p", table_size=5, topology=topology))
    pos.put(D3, "DOM-W3", influence=[1, 0])
    pos.put(NORTH, "Committee")
    pos.put(NE, "Lobbyist", influence=[0, 1])
    game = pos.game()
    assert game.totals(cell(game, D3)) == totals


def test_R13_bc11_lobbyist_next_to_lobbyist():
    # L1 at 3,2 (P0: 1), L2 at 4,2 (P1: 1), a FOR-W3 at 3,1 next to L1 only.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put(D3, "Lobbyist", influence=[1, 0])
    pos.put(EAST, "Lobbyist", influence=[0, 1])
    pos.put(NORTH, "FOR-W3")
    game = pos.game()
    l1, l2, res = cell(game, D3), cell(game, EAST), cell(game, NORTH)
    # R13: ownership counts physical Influence only, so each Lobbyist keeps its owner.
    assert game.lobbyist_owner(l1) == 0 and game.lobbyist_owner(l2) == 1
    # R13, BC-11: virtual Influence never counts towards a Lobbyist itself, so each controls its own tile.
    assert game.totals(l1) == [1, 0] and game.controller(l1) == 0
    assert game.totals(l2) == [0, 1] and game.controller(l2) == 1
    assert game.totals(res) == [1, 0] and game.controller(res) == 0  # 3,1 touches L1 only (square)


def test_R13_bc11_lobbyist_control_counts_physical_influence_only():
    """RULINGS R13: a neighbouring Lobbyist's +1 does not count on a Lobbyist; a physical tie is no control."""
    pos = Position(cfg("core-2p", table_size=5))
    pos.put(D3, "Lobbyist", influence=[1, 0])
    pos.put(EAST, "Lobbyist", influence=[0, 2])
    pos.put(NORTH, "Lobbyist", influence=[1, 1])  # next to L1 (P0 owns it): still a tie, nobody controls
    game = pos.game()
    assert game.totals(cell(game, EAST)) == [0, 2] and game.controller(cell(game, EAST)) == 1
    assert game.totals(cell(game, D3)) == [1, 0] and game.controller(cell(game, D3)) == 0
    assert game.totals(cell(game, NORTH)) == [1, 1] and game.controller(cell(game, NORTH)) == -1


def test_CORE_01_05_03_control_updates_at_once_after_a_move():
    """P1's Lobbyist ties the DOM-W3 (1 : 1); P1 moves off the Lobbyist in the last turn of the round, so at
    the settlement P0 controls alone and gets all 3 DOM (with the tie it would be 1 + 1 and 1 to Noise)."""
    pos = Position(cfg("core-2p", table_size=5))
    pos.put(D3, "DOM-W3", influence=[1, 0])
    pos.put(EAST, "Lobbyist", influence=[0, 1])
    pos.put("1,2", "Committee")
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    c = cell(game, D3)
    assert game.controller(c) == -1
    tied = game.clone()
    act(tied, "place 4,2")  # P1 keeps the Lobbyist: 1 : 1 at the settlement, split 1 + 1, 1 to Noise
    assert tied.resources_of(0) == [1, 0, 0] and tied.resources_of(1) == [1, 0, 0] and tied.noise == [1, 0, 0]
    act(game, "move-from 4,2", "move-to 1,2")
    assert game.lobbyist_owner(cell(game, EAST)) == -1
    assert game.controller(c) == 0
    assert game.resources_of(0) == [3, 0, 0] and game.resources_of(1) == [0, 0, 0] and game.noise == [0, 0, 0]
    assert events(game, "produce")[-1]["rule"] == "CORE-01-06-11"
