"""CORE-01-07 Round Structure and CORE-01-06-09..16 Resort Production (RULINGS R14, R17;
docs/rulings.md BC-01, BC-02)."""

from positions import Position, act, cfg, events, res

from bc_env.rules import effects
from bc_env.rules.effects import ActiveEffect, Modifier


def test_CORE_01_07_01_02_settlement_after_the_last_turn_of_the_round_only():
    pos = Position(cfg("core-3p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[1, 0, 0])
    pos.turn(active=1, turns_in_round=1)  # start player P0, P1 is second of three
    game = pos.game()
    act(game, "place 3,2")
    assert not events(game, "settlement") and game.round == 1 and game.turns_in_round == 2
    assert game.current_player == 2
    act(game, game.action_to_string(game.legal_actions()[0]), "place 3,2")  # P2 places a tile, then Influence
    assert events(game, "settlement") == [{"round": 1, "type": "settlement", "rule": "CORE-01-07-02"}]
    assert game.round == 2 and game.turns_in_round == 0
    assert game.current_player == 0 == game.start_player  # RULINGS R6: the next round starts with P0 again


def _production_position():
    """3 players, P2 takes the last turn of round 1.

    ::

        y\\x   1     2     3
        1    Ho    F5    I2
        2    I4    SC    D3
        3          D1    Co
    """
    pos = Position(cfg("core-3p", table_size=5))
    pos.put("3,2", "DOM-W3", influence=[2, 1, 0])  # P0 controls: 3 DOM
    pos.put("2,1", "FOR-W5", influence=[1, 1, 1])  # three-way tie: 1 FOR each, 2 to Noise
    pos.put("1,2", "INF-W4", influence=[0, 1, 1])  # P1/P2 tie: 2 INF each, 0 to Noise
    pos.put("2,3", "DOM-W1", influence=[1, 1, 0])  # P0/P1 tie: 0 each, 1 to Noise
    pos.put("3,1", "INF-W2")  # nobody: nothing (CORE-01-06-13)
    pos.put("1,1", "Hotspot", influence=[0, 0, 1], resolved=True)  # CORE-01-06-08: Hotspots produce nothing
    pos.put("3,3", "Committee")
    pos.player(0, supply=0)
    pos.player(1, supply=0)
    pos.player(2, supply=1)
    pos.turn(active=2, turns_in_round=2)
    return pos


def test_CORE_01_06_11_to_15_R14_production_single_controller_and_ties():
    game = _production_position().game()
    bank = list(game.bank)
    since = len(game.events)
    act(game, "place 3,3")
    assert res(game, 0) == {"DOM": 3, "FOR": 1, "INF": 0}
    assert res(game, 1) == {"DOM": 0, "FOR": 1, "INF": 2}
    assert res(game, 2) == {"DOM": 0, "FOR": 1, "INF": 2}
    assert game.noise == [1, 2, 0]  # CORE-01-06-15
    assert game.bank == [bank[0] - 4, bank[1] - 5, bank[2] - 4]  # CORE-01-06-12: from the Bank
    lab = game.topo.label
    produced = [
        (lab(e["cell"]), e["players"], e["share"], e["noise"], e["rule"]) for e in events(game, "produce", since)
    ]
    # BC-01: ascending cell order (2,1 = 7; 1,2 = 11; 3,2 = 13; 2,3 = 17).
    assert produced == [
        ("2,1", [0, 1, 2], 1, 2, "CORE-01-06-14"),
        ("1,2", [1, 2], 2, 0, "CORE-01-06-14"),
        ("3,2", [0], 3, 0, "CORE-01-06-11"),
        ("2,3", [0, 1], 0, 1, "CORE-01-06-14"),
    ]


def test_CORE_01_05_04_production_by_virtual_control():
    # P1 has no Influence on the FOR-W4 but owns the adjacent Lobbyist: P1 controls and gets 4 FOR.
    pos = Position(cfg("core-2p", table_size=5))
    pos.put("3,2", "FOR-W4")
    pos.put("4,2", "Lobbyist", influence=[0, 1])
    pos.put("1,2", "Committee")
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    act(game, "place 1,2")
    assert res(game, 1) == {"DOM": 0, "FOR": 4, "INF": 0} and res(game, 0) == {"DOM": 0, "FOR": 0, "INF": 0}


def _bank_order_position(low_owner: int, high_owner: int, stock: int):
    pos = Position(cfg("core-2p", table_size=5, bank_stock=stock))
    infl = {0: [1, 0], 1: [0, 1]}
    pos.put("1,2", "DOM-W3", influence=infl[low_owner])  # cell 11
    pos.put("3,2", "DOM-W3", influence=infl[high_owner])  # cell 13
    pos.put("2,1", "Committee")
    pos.turn(active=1, turns_in_round=1)
    return pos.game()


def test_bc01_R17_finite_bank_production_in_ascending_cell_order():
    # Bank DOM 4: the DOM-W3 at 1,2 (cell 11) produces first and takes 3; the one at 3,2 gets the last 1.
    game = _bank_order_position(low_owner=1, high_owner=0, stock=4)
    act(game, "place 2,1")
    assert game.resources_of(1)[0] == 3 and game.resources_of(0)[0] == 1 and game.bank[0] == 0
    game = _bank_order_position(low_owner=0, high_owner=1, stock=4)
    act(game, "place 2,1")
    assert game.resources_of(0)[0] == 3 and game.resources_of(1)[0] == 1 and game.bank[0] == 0
    assert [e["share"] for e in events(game, "produce")] == [3, 1]


def test_bc02_finite_bank_tie_split_works_on_what_was_taken():
    # W5 tied 1 : 1 with only 3 DOM in the Bank: take 3, 1 each, 1 to Noise (not 2 each).
    pos = Position(cfg("core-2p", table_size=5, bank_stock=3))
    pos.put("3,2", "DOM-W5", influence=[1, 1])
    pos.put("1,2", "Committee")
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    act(game, "place 1,2")
    assert game.resources_of(0)[0] == 1 and game.resources_of(1)[0] == 1
    assert game.noise[0] == 1 and game.bank[0] == 0


def test_bc02_empty_bank_produces_nothing():
    pos = Position(cfg("core-2p", table_size=5, bank_stock=2))
    pos.put("3,2", "DOM-W5", influence=[1, 0])
    pos.put("1,2", "Committee")
    pos.player(1, resources={"DOM": 2})
    pos.bank(DOM=0, FOR=2, INF=2)
    pos.turn(active=1, turns_in_round=1)
    game = pos.game()
    act(game, "place 1,2")
    assert game.resources_of(0) == [0, 0, 0]
    assert not events(game, "produce")
    assert events(game, "settlement")


class _Blockade(Modifier):
    """A test-only prohibition (the core game registers no modifiers): production of the tile at ``cell``."""

    kinds = frozenset({"production"})

    def prohibits(self, game, active, effect):
        return effect.kind == "production" and effect.tile == dict(active.data)["cell"]


def test_CORE_01_06_17_prohibited_production_is_zero_and_distributes_nothing(monkeypatch):
    monkeypatch.setitem(effects.MODIFIERS, "test-blockade", _Blockade())
    game = _production_position().game()
    blocked = game.topo.parse("2,1")  # the FOR-W5 three-way tie
    game.active_effects = [ActiveEffect("test-blockade", 0, effects.PERMANENT, data=(("cell", blocked),))]
    bank = list(game.bank)
    since = len(game.events)
    act(game, "place 3,3")
    assert events(game, "production-prohibited", since) == [
        {"cell": blocked, "type": "production-prohibited", "rule": "CORE-01-06-17"}
    ]
    # No FOR for anybody, none from the Bank, none to Noise; the other ResortTiles produce as without it.
    assert [res(game, p)["FOR"] for p in range(3)] == [0, 0, 0]
    assert game.bank[1] == bank[1] and game.noise == [1, 0, 0]
    assert res(game, 0) == {"DOM": 3, "FOR": 0, "INF": 0}
    assert [game.topo.label(e["cell"]) for e in events(game, "produce", since)] == ["1,2", "3,2", "2,3"]
    # The events keep ascending cell order (BC-01): the prohibition is logged where the production would be.
    kinds = [(e["type"], e.get("cell")) for e in events(game, since=since) if e["type"] != "draw"]
    assert kinds.index(("production-prohibited", blocked)) < kinds.index(("produce", game.topo.parse("1,2")))


def test_CORE_01_06_17_a_prohibition_elsewhere_changes_nothing(monkeypatch):
    monkeypatch.setitem(effects.MODIFIERS, "test-blockade", _Blockade())
    game = _production_position().game()
    empty = game.topo.parse("3,3")  # a Committee: it never produces, so the prohibition never applies
    game.active_effects = [ActiveEffect("test-blockade", 0, effects.PERMANENT, data=(("cell", empty),))]
    act(game, "place 3,3")
    assert not events(game, "production-prohibited")
    assert res(game, 0) == {"DOM": 3, "FOR": 1, "INF": 0} and game.noise == [1, 2, 0]
