"""CORE-01-06-01..08 Hotspots (RULINGS R5, docs/rulings.md BC-06)."""

import pytest
from positions import Position, act, cfg, events, rules_of


def test_CORE_01_06_01_to_06_R5_table_edge_counts_as_closed():
    # A Hotspot on the east edge of the 5x5 table has 3 neighbours: 3,2, 4,1 and 4,3 (5,2 is off the table).
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Committee")
    pos.put("4,2", "Hotspot", influence=[1, 0])
    pos.put("4,1", "Committee")
    tile = pos.drawn("DOM-W2")
    game = pos.game()
    h = game.topo.parse("4,2")
    assert game.topo.neighbors[h] == tuple(game.topo.parse(c) for c in ("4,1", "3,2", "4,3"))
    since = len(game.events)
    act(game, "place-tile 4,3")
    assert game.resolved[h]
    assert game.influence_on(h) == [2, 0]  # CORE-01-06-05/06: one Influence from P0's supply
    assert game.supply == [2, 4] and game.on_board == [2, 0] and game.deployed == [2, 0]
    assert game.created == [0, 0]
    # CORE-01-06-02/03: checked right after the placement, resolved before the Political Action.
    assert events(game, since=since) == [
        {"player": 0, "tile": tile, "cell": game.topo.parse("4,3"), "type": "place-tile", "rule": "CORE-01-04-05"},
        {"cell": h, "player": 0, "type": "hotspot-resolved", "rule": "CORE-01-06-05"},
    ]
    assert game.phase_name == "political" and game.current_player == 0


def test_CORE_01_06_01_not_resolved_while_a_neighbour_is_empty():
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Committee")
    pos.put("4,2", "Hotspot", influence=[1, 0])
    pos.drawn("DOM-W2")
    game = pos.game()
    act(game, "place-tile 4,3")  # 4,1 is still open
    assert not game.resolved[game.topo.parse("4,2")]
    assert not events(game, "hotspot-resolved")


def test_CORE_01_06_01_R1_hex_edge():
    # Hex radius 2: the Hotspot at 2,0 has 3 table neighbours: 3,0, 1,1 and 2,1.
    pos = Position(cfg("core-4p-hex", table_size=5))
    pos.put("2,1", "Committee")
    pos.put("2,0", "Hotspot", influence=[0, 1, 0, 0])
    pos.put("3,0", "Committee")
    pos.drawn("INF-W1")
    pos.turn(active=2, turns_in_round=2)
    game = pos.game()
    h = game.topo.parse("2,0")
    assert len(game.topo.neighbors[h]) == 3
    act(game, "place-tile 1,1")
    assert game.resolved[h] and game.influence_on(h) == [0, 2, 0, 0]  # P1 gets it although P2 placed the tile


def test_CORE_01_05_03A_hotspot_majority_counts_owned_lobbyists():
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Lobbyist", influence=[0, 1])
    pos.put("4,2", "Hotspot", influence=[1, 0])
    pos.put("4,1", "Lobbyist", influence=[0, 1])
    pos.drawn("DOM-W2")
    game = pos.game()
    act(game, "place-tile 4,3")  # P0 1 physical vs P1 2 virtual
    h = game.topo.parse("4,2")
    assert game.influence_on(h) == [1, 1] and game.supply == [3, 1]


def _three_hotspots(p0_supply: int, with_influence: bool = True) -> Position:
    """Two open Hotspots H1 (1,1) and H2 (3,1) share the hole 2,1; a third Hotspot H3 is drawn for it.

    ::

        y\\x  0   1   2   3   4
        0        Co  Lo  Co
        1    Co  H1  ..  H2  Co
        2        Co  SC  Co

    P0 has 1 Influence on H1, on H2 and on the Lobbyist at 2,0 (which gives P0 +1 on the hole 2,1).
    """
    pos = Position(cfg("core-2p", table_size=5))
    for c in ("1,2", "3,2", "0,1", "1,0", "3,0", "4,1"):
        pos.put(c, "Committee")
    infl = [1, 0] if with_influence else [0, 0]
    pos.put("1,1", "Hotspot", influence=infl)
    pos.put("3,1", "Hotspot", influence=infl)
    pos.put("2,0", "Lobbyist", influence=infl)
    pos.drawn("Hotspot")
    pos.player(0, supply=p0_supply)
    return pos


@pytest.mark.parametrize(
    "supply, resolved_with_influence, no_supply",
    [(1, ["2,1"], ["1,1", "3,1"]), (2, ["2,1", "1,1"], ["3,1"]), (3, ["2,1", "1,1", "3,1"], [])],
)
def test_R5_several_hotspots_placed_tile_first_then_ascending_cells(supply, resolved_with_influence, no_supply):
    game = _three_hotspots(supply).game()
    since = len(game.events)
    act(game, "place-tile 2,1")
    lab = game.topo.label
    logged = [(e["type"], lab(e["cell"])) for e in events(game, since=since)[1:]]
    order = ["2,1", "1,1", "3,1"]  # placed tile (cell 7) first, then 6, then 8
    assert [c for _, c in logged] == order
    assert [c for t, c in logged if t == "hotspot-resolved"] == resolved_with_influence
    assert [c for t, c in logged if t == "hotspot-no-supply"] == no_supply
    assert all(game.resolved[game.topo.parse(c)] for c in order)  # BC-06: resolved either way
    for c in order:
        want = 1 if c in resolved_with_influence else 0
        assert game.influence_on(game.topo.parse(c))[0] == want + (0 if c == "2,1" else 1)
    assert game.supply[0] == supply - len(resolved_with_influence)
    assert [r for t, r in rules_of(game, since)[1:]] == [
        "CORE-01-06-05" if c in resolved_with_influence else "CORE-01-06-07" for c in order
    ]


def test_R5_bc06_hotspot_into_an_already_closed_hole_without_majority():
    # Same hole, but nobody has Influence around: the placed Hotspot resolves at once without a majority, and
    # so do the two Hotspots it closes.
    game = _three_hotspots(4, with_influence=False).game()
    since = len(game.events)
    act(game, "place-tile 2,1")
    h = game.topo.parse("2,1")
    assert events(game, since=since)[1] == {
        "cell": h,
        "tied": [],
        "type": "hotspot-no-majority",
        "rule": "CORE-01-05-02",
    }
    assert [game.topo.label(e["cell"]) for e in events(game, "hotspot-no-majority", since)] == ["2,1", "1,1", "3,1"]
    assert game.resolved[h]
    assert game.supply == [4, 4] and game.on_board == [0, 0]


def test_CORE_01_05_02_bc06_hotspot_tie_resolves_without_placement():
    pos = Position(cfg("core-3p", table_size=5))
    pos.put("3,2", "Committee")
    pos.put("4,2", "Hotspot", influence=[1, 1, 0])
    pos.put("4,1", "Committee")
    pos.drawn("DOM-W2")
    game = pos.game()
    before = list(game.infl), list(game.supply)
    act(game, "place-tile 4,3")
    h = game.topo.parse("4,2")
    assert game.resolved[h]
    assert events(game, "hotspot-no-majority") == [
        {"cell": h, "tied": [0, 1], "type": "hotspot-no-majority", "rule": "CORE-01-05-02"}
    ]
    assert (game.infl, game.supply) == before


def test_CORE_01_06_07_bc06_majority_player_without_supply():
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Committee", influence=[3, 0])
    pos.put("4,2", "Hotspot", influence=[1, 0])
    pos.put("4,1", "Committee")
    pos.drawn("DOM-W2")
    game = pos.game()
    assert game.supply[0] == 0
    act(game, "place-tile 4,3")
    h = game.topo.parse("4,2")
    assert game.resolved[h] and game.influence_on(h) == [1, 0]
    assert events(game, "hotspot-no-supply") == [
        {"cell": h, "player": 0, "type": "hotspot-no-supply", "rule": "CORE-01-06-07"}
    ]


def test_R5_bc06_a_hotspot_resolves_only_once():
    # A Hotspot already marked resolved (as after a tie, BC-06) does not resolve again when it is closed;
    # a second, unresolved Hotspot closed by the same placement does.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "Committee")
    pos.put("4,2", "Hotspot", influence=[1, 0], resolved=True)
    pos.put("4,1", "Committee")
    pos.put("2,3", "Committee")
    pos.put("3,3", "Committee")  # connects 3,4 to the Start Committee (CORE-01-04-05)
    pos.put("3,4", "Committee")
    pos.put("4,4", "Hotspot", influence=[0, 1])
    pos.drawn("DOM-W2")
    game = pos.game()
    act(game, "place-tile 4,3")  # closes 4,2 (again) and 4,4 (first time: neighbours 4,3 and 3,4)
    assert [(e["type"], game.topo.label(e["cell"])) for e in events(game) if e["type"].startswith("hotspot")] == [
        ("hotspot-resolved", "4,4")
    ]
    assert game.influence_on(game.topo.parse("4,2")) == [1, 0]
    assert game.influence_on(game.topo.parse("4,4")) == [0, 2]
