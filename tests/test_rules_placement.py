"""CORE-01-04-04..08 DrawAndPlaceTile on a finite table (RULINGS R2, R3), discard (CORE-01-04-06/07) and
TileRecycling (VAR-01-01, RULINGS R4, docs/rulings.md BC-08)."""

import pytest
from positions import Position, act, cfg, events, legal, refused, rules_of

from bc_env.rules import IllegalActionError


def test_CORE_01_04_05_08_R2_square_table_edge_5x5():
    # Start Committee at 2,2; a row of tiles to the east edge (x = 4). 5,2 is off the table.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "DOM-W1")
    pos.put("4,2", "FOR-W1")
    pos.drawn("Committee")
    game = pos.game()
    assert game.phase_name == "place_tile"
    assert legal(game) == [
        "place-tile 2,1",
        "place-tile 3,1",
        "place-tile 4,1",
        "place-tile 1,2",
        "place-tile 2,3",
        "place-tile 3,3",
        "place-tile 4,3",
    ]
    # RULINGS R3: placing is mandatory, nothing else is offered (no pass).
    assert game.layout.pass_ not in game.legal_actions()
    refused(game, "place-tile 3,2", "place_tile")  # CORE-01-04-08: occupied
    refused(game, "place-tile 0,0", "place_tile")  # CORE-01-04-05: not adjacent to a Board tile
    with pytest.raises(IllegalActionError, match="^cannot parse action 'place-tile 5,2': cell 5,2 is outside the 5x5"):
        game.string_to_action("place-tile 5,2")  # RULINGS R2: not on the table at all


def test_CORE_01_04_05_R2_square_corner():
    pos = Position(cfg("core-2p", table_size=5))
    for cell in ("3,2", "4,2", "4,1", "4,0"):
        pos.put(cell, "Committee")
    pos.drawn("Lobbyist")
    game = pos.game()
    assert legal(game) == [
        "place-tile 3,0",
        "place-tile 2,1",
        "place-tile 3,1",
        "place-tile 1,2",
        "place-tile 2,3",
        "place-tile 3,3",
        "place-tile 4,3",
    ]


def test_CORE_01_04_05_R1_R2_hex_table_edge():
    # Hex radius 2 around 2,2: row y=0 holds x=2..4 only. A tile at 2,1 and one at the edge cell 2,0.
    pos = Position(cfg("core-4p-hex", table_size=5))
    pos.put("2,1", "DOM-W1")
    pos.put("2,0", "DOM-W1")
    pos.drawn("Hotspot")
    game = pos.game()
    assert not game.topo.on_table[0] and not game.topo.on_table[1]  # 0,0 and 1,0 are off the hex table
    assert legal(game) == [
        "place-tile 3,0",
        "place-tile 1,1",
        "place-tile 3,1",
        "place-tile 1,2",
        "place-tile 3,2",
        "place-tile 1,3",
        "place-tile 2,3",
    ]


def test_CORE_01_04_04_05_placing_moves_the_drawn_tile_to_the_board_then_political_phase():
    pos = Position(cfg("core-3p", table_size=5))
    tile = pos.drawn("INF-W4")
    pos.turn(active=1)
    game = pos.game()
    pile_before = list(game.draw_pile)
    act(game, "place-tile 2,3")
    cell = game.topo.parse("2,3")
    assert game.tile_at[cell] == tile and game.drawn == -1
    assert game.draw_pile == pile_before  # nothing else drawn
    assert game.phase_name == "political" and game.current_player == 1
    assert events(game, "place-tile") == [
        {"player": 1, "tile": tile, "cell": cell, "type": "place-tile", "rule": "CORE-01-04-05"}
    ]


def _full_table(preset: str, size: int, **changes):
    """A table with every cell taken; P0 holds one Influence on a DOM-W3 and takes the political action."""
    pos = Position(cfg(preset, table_size=size, **changes))
    w3 = pos.put("1,0", "DOM-W3", influence=[1, 0])
    pos.fill()
    pile = pos.pile_only("Hotspot", "Committee", "Lobbyist")  # drawn in this order
    return pos, w3, pile


@pytest.mark.parametrize("topology", ["square", "hex"])
def test_CORE_01_04_06_07_unplaceable_tiles_are_discarded_and_redrawn_until_the_pile_is_empty(topology):
    pos, _, pile = _full_table("core-2p", 3, topology=topology)
    game = pos.game()
    discarded_before = list(game.discard)
    assert game.draw_pile == list(reversed(pile))
    since = len(game.events)
    act(game, "place 1,0")  # P0's political action; P1 draws next and nothing fits
    # CORE-01-04-06/07: each drawn tile goes face up to the discard, then the player draws again.
    assert game.discard == [*discarded_before, *pile]
    assert game.draw_pile == []
    assert rules_of(game, since) == [
        ("place-influence", "CORE-01-04-11"),
        ("draw", "CORE-01-04-04"),
        ("discard", "CORE-01-04-06"),
        ("draw", "CORE-01-04-04"),
        ("discard", "CORE-01-04-06"),
        ("draw", "CORE-01-04-04"),
        ("discard", "CORE-01-04-06"),
        ("draw-pile-empty", "CORE-01-09-01"),
        ("settlement", "CORE-01-07-02"),  # RULINGS R8: P0 took a turn in this round
        ("produce", "CORE-01-06-11"),
        ("game-over", "CORE-01-09-03"),
    ]
    assert [e["player"] for e in events(game, "discard", since)] == [1, 1, 1]
    assert [e["tile"] for e in events(game, "discard", since)] == pile
    assert game.is_terminal()
    assert game.resources_of(0) == [3, 0, 0]  # final settlement: P0 controls the DOM-W3


@pytest.mark.parametrize("topology", ["square", "hex"])
def test_VAR_01_01_R4_bc08_recycling_with_no_placeable_tile_ends_the_game(topology):
    pos, _, pile = _full_table("core-2p", 3, topology=topology, tile_recycling=True)
    game = pos.game()
    discarded_before = list(game.discard)
    rng_before = game.rng.state
    since = len(game.events)
    act(game, "place 1,0")
    # R4: no tile left could be placed, so the DrawPile counts as exhausted; BC-08: the drawn tile goes
    # back on top without a shuffle (the RNG is untouched) and the game ends as with an empty pile (R8).
    assert game.draw_pile == list(reversed(pile))
    assert game.discard == discarded_before
    assert game.rng.state == rng_before
    assert rules_of(game, since) == [
        ("place-influence", "CORE-01-04-11"),
        ("draw", "CORE-01-04-04"),
        ("draw-pile-exhausted", "RULINGS-R4"),
        ("settlement", "CORE-01-07-02"),
        ("produce", "CORE-01-06-11"),
        ("game-over", "CORE-01-09-03"),
    ]
    assert events(game, "draw", since)[0]["tile"] == pile[0]
    assert game.is_terminal() and game.winners() == [0]


def test_VAR_01_01_R4_recycling_last_tile_unplaceable():
    pos = Position(cfg("core-2p", table_size=3, tile_recycling=True))
    pos.fill("Committee")
    (last,) = pos.pile_only("Grassroots")
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    since = len(game.events)
    act(game, "place 1,0")  # P1 ends round 1: a regular settlement, then P0 cannot draw a placeable tile
    assert game.draw_pile == [last]
    assert [t for t, _ in rules_of(game, since)] == [
        "place-influence",
        "settlement",
        "draw",
        "draw-pile-exhausted",
        "game-over",  # BC-07: no turn taken in round 2, so no second settlement
    ]


def test_CORE_01_04_06_without_recycling_the_last_tile_is_discarded():
    pos = Position(cfg("core-2p", table_size=3))
    pos.fill()
    (last,) = pos.pile_only("Grassroots")
    game = pos.game()
    act(game, "place 1,0")
    assert game.draw_pile == [] and game.discard[-1] == last and game.is_terminal()
