"""Observation encoder (bc_env.encoding): layout, seat-relative values of hand-built positions,
incremental tracking == full rebuild, bounds, the core encoding pinned bit for bit, and the EXP-01
features (ECO, Labor Market, Investment Program, Measure market, hands, active effects, new decisions)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from exp01_support import M, Scenario, act, finish_turn

from bc_env.encoding import ENCODER_VERSION, TILE_CHANNELS, Encoder, encode
from bc_env.encoding.observation import CORE_PHASES, EFFECT_TIMINGS, MEASURE_ZONES
from bc_env.rules import PHASE_NAMES, Game, RulesConfig, preset_names

PRESETS = preset_names()
EXP01_PRESETS = [p for p in PRESETS if p.startswith("exp01-")]
CORE_PRESETS = [p for p in PRESETS if p.startswith("core")]


# ---------------------------------------------------------------------------- layout


@pytest.mark.parametrize("preset", ["core-2p", "core-4p", "core-6p", "core-4p-hex", "exp01-2p", "exp01-6p"])
def test_layout_views_tile_the_vector_without_gaps(preset):
    enc = Encoder(preset)
    spans = sorted((off, off + int(np.prod(shape))) for off, shape in enc.spec.values())
    assert spans[0][0] == 0
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end == start, "named views must be contiguous and not overlap"
    assert spans[-1][1] == enc.size_total == enc.board_size + enc.vector_size
    assert enc.board_size == enc.num_channels * enc.size * enc.size
    assert len(enc.channel_names) == enc.num_channels
    P = RulesConfig.preset(preset).players
    assert enc.spec["influence"][1] == (P, enc.size, enc.size)
    assert enc.spec["resources"][1] == (P, len(RulesConfig.preset(preset).resorts))
    expansion = preset.startswith("exp01-")
    # The core decisions only without an expansion (target / exchange exist only with one).
    assert enc.spec["phase"][1] == ((len(PHASE_NAMES),) if expansion else (len(CORE_PHASES),))
    assert enc.spec["effect_kind"][1] == ((6,) if expansion else (2,))
    assert ("measure_zone" in enc.spec) == ("tile_special" in enc.spec) == expansion
    vec = encode(Game.new(preset, 0))
    assert vec.dtype == np.float32 and vec.shape == (enc.size_total,)
    planes, rest = enc.split(vec)
    assert planes.shape == (enc.num_channels, enc.size, enc.size) and rest.shape == (enc.vector_size,)
    views = enc.views(vec)
    views["supply"][0] = 0.5  # views write through to the flat vector
    assert vec[enc.spec["supply"][0]] == 0.5
    assert ENCODER_VERSION == 2 and enc.version == (2 if not expansion else "2+EXP-01.1")


def test_encoder_imports_no_rl_framework():
    code = (
        "import bc_env.encoding, bc_env.rules, sys; "
        "print(sorted(m for m in ('pettingzoo', 'gymnasium', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_hex_table_marks_off_table_cells():
    enc = Encoder("core-4p-hex")
    v = enc.views(encode(Game.new("core-4p-hex", 1), 0))
    off = v["tile"][TILE_CHANNELS.index("off_table")]
    assert off[0, 0] == 1.0 and off[7, 7] == 0.0  # a corner of the grid is off the hexagonal table (R1, R2)
    assert np.all(v["tile"].sum(axis=0) == 1.0), "every grid cell has exactly one tile channel set"


# ---------------------------------------------------------------------------- hand-built position


def _tile_id(game: Game, name: str, taken: set[int]) -> int:
    for spec in game.catalogue:
        if spec.name == name and spec.id not in taken:
            taken.add(spec.id)
            return spec.id
    raise AssertionError(name)


def _position(phase: str = "political", active: int = 2, pending: dict | None = None) -> Game:
    """core-4p, start player 3. Board around the Start Committee (7,7):

    (8,7) DOM-W3 with Influence [0, 2, 1, 0]       (8,8) Lobbyist with Influence [0, 0, 3, 0]
    (6,7) Committee, (7,6) Hotspot (resolved), (7,8) Grassroots with Influence [1, 0, 0, 0]
    """
    base = Game.new("core-4p", seed=5)
    d = base.to_dict()
    taken: set[int] = {0}
    layout = [
        ("8,7", "DOM-W3", [0, 2, 1, 0]),
        ("8,8", "Lobbyist", [0, 0, 3, 0]),
        ("6,7", "Committee", [0, 0, 0, 0]),
        ("7,6", "Hotspot", [0, 0, 0, 0]),
        ("7,8", "Grassroots", [1, 0, 0, 0]),
    ]
    board = [{"cell": "7,7", "tile": 0, "influence": [0, 0, 0, 0]}]
    for cell, name, infl in layout:
        entry = {"cell": cell, "tile": _tile_id(base, name, taken), "influence": infl}
        if name == "Hotspot":
            entry["resolved"] = True
        board.append(entry)
    d["board"] = board
    pile = [t for t in range(1, len(base.catalogue)) if t not in taken]
    if phase == "place_tile":
        d["drawn_tile"] = _tile_id(base, "INF-W5", taken)
        pile.remove(d["drawn_tile"])
    else:
        d["drawn_tile"] = None
    d["draw_pile"] = pile
    d["discard"] = []
    on_board = [1, 2, 4, 0]
    supply = [1, 0, 1, 2]
    resources = [(0, 0, 0), (1, 1, 1), (9, 0, 2), (0, 0, 0)]
    d["players"] = [
        {
            "supply": supply[p],
            "starting": 2,
            "created": supply[p] + on_board[p] - 2,
            "deployed": on_board[p],
            "resources": dict(zip(("DOM", "FOR", "INF"), resources[p])),
            "start_committee_used": p == 1,
        }
        for p in range(4)
    ]
    totals = [sum(r[i] for r in resources) for i in range(3)]
    d["bank"] = {"DOM": -totals[0] - 1, "FOR": -totals[1], "INF": -totals[2]}
    d["noise"] = {"DOM": 1, "FOR": 0, "INF": 0}
    in_round = (active - 3) % 4  # the active player's turn of round 3 from start player 3 (RULINGS R6)
    d["round"], d["turns_in_round"], d["turn"] = 3, in_round, 8 + in_round
    d["start_player"], d["active"], d["phase"] = 3, active, phase
    d["pending"] = pending
    d["events"] = []
    return Game.from_dict(d)


def _at(x: int, y: int) -> tuple[int, int]:
    return (y, x)  # planes are indexed [channel, y, x]


def test_CORE_01_05_board_planes_are_seat_relative_for_observer_1():
    game = _position()
    enc = Encoder("core-4p")
    v = enc.views(enc.encode(game, 1))
    cap = 7.0
    # Tile channels: DOM-W3 at (8,7) is a resort tile of resort DOM with printed value 3 (CORE-01-02-17).
    assert v["tile"][TILE_CHANNELS.index("resort")][_at(8, 7)] == 1.0
    assert v["tile"][TILE_CHANNELS.index("start_committee")][_at(7, 7)] == 1.0
    assert v["tile"][TILE_CHANNELS.index("lobbyist")][_at(8, 8)] == 1.0
    assert v["tile"][TILE_CHANNELS.index("empty")][_at(8, 7)] == 0.0
    assert v["tile"][TILE_CHANNELS.index("empty")][_at(0, 0)] == 1.0
    assert v["resort"][0][_at(8, 7)] == 1.0 and v["resort"][1:, 7, 8].sum() == 0.0
    assert v["value"][0][_at(8, 7)] == pytest.approx(3 / 5)
    assert v["resolved"][0][_at(7, 6)] == 1.0
    # Physical Influence on (8,7) is [0, 2, 1, 0] by seat; observer 1 sees seat 1 as relative 0.
    assert [v["influence"][k][_at(8, 7)] for k in range(4)] == pytest.approx([2 / cap, 1 / cap, 0, 0])
    # CORE-01-05-04, R13: seat 2 owns the Lobbyist at (8,8): +1 virtual on (8,7) for relative player 1.
    assert [v["lobbyist"][k][_at(8, 7)] for k in range(4)] == pytest.approx([0, 0.25, 0, 0])
    # Totals on (8,7) are 2 (seat 1) vs 1 + 1 virtual (seat 2): a tie, nobody controls (CORE-01-05-02,
    # CORE-01-05-03A); without the Lobbyist seat 1 would.
    assert [v["control"][k][_at(8, 7)] for k in range(4)] == [0, 0, 0, 0]
    # The Lobbyist itself is controlled by seat 2, its owner (R13, BC-11): relative player 1.
    assert [v["control"][k][_at(8, 8)] for k in range(4)] == [0, 1, 0, 0]
    # The Grassroots at (7,8) has seat 0's Influence and seat 2's Lobbyist next to it: a 1-1 tie, no control.
    assert [v["influence"][k][_at(7, 8)] for k in range(4)] == pytest.approx([0, 0, 0, 1 / cap])
    assert v["control"][:, 8, 7].sum() == 0.0
    # Placement frontier (R3): empty cells next to Board tiles only.
    assert v["frontier"][0][_at(9, 7)] == 1.0 and v["frontier"][0][_at(8, 7)] == 0.0
    assert v["frontier"][0][_at(12, 12)] == 0.0
    assert v["reserved_planes"].sum() == 0.0


def test_non_board_features_rotate_with_the_observer():
    game = _position()
    enc = Encoder("core-4p")
    for observer in range(4):
        v = enc.views(enc.encode(game, observer))
        order = [(observer + k) % 4 for k in range(4)]
        assert v["supply"] == pytest.approx([game.supply[p] / 7 for p in order])
        assert v["on_board"] == pytest.approx([game.on_board[p] / 7 for p in order])
        assert v["start_used"].tolist() == [float(p == 1) for p in order]
        assert v["to_act"].tolist() == [float(p == 2) for p in order]  # seat 2 decides
        assert v["start_player"].tolist() == [float(p == 3) for p in order]
        res = np.array([game.resources_of(p) for p in order], dtype=np.float32)
        assert v["resources"] == pytest.approx(np.minimum(res, 8) / 8)
        assert v["resources_log"] == pytest.approx(np.minimum(np.log2(res + 1) / 6, 1))
    v = enc.views(enc.encode(game, 2))
    assert v["resources"][0].tolist() == [1.0, 0.0, 0.25]  # seat 2 holds 9 DOM (saturates), 0 FOR, 2 INF
    assert v["deployed"].tolist() == [1.0, 0.0, 0.5, 1.0]  # seats 2, 3, 0, 1: min(deployed, 2) / 2 (R11)
    assert v["formalize_gate"][0] == 0.0  # seat 3 has not deployed its Starting Influence (CORE-01-08-02)


def test_global_features_of_a_hand_built_position():
    game = _position()
    enc = Encoder("core-4p")
    v = enc.views(enc.encode(game, 0))
    assert v["phase"].tolist() == [float(name == "political") for name in CORE_PHASES]
    assert v["hand_kind"].sum() == 0.0  # no tile in hand during the Political Action
    names = enc.tile_type_names
    # 4 DOM-W3 in the catalogue (CORE-01-02-10), one on the Board: 3 / 4 left in the DrawPile.
    assert v["pile"][names.index("DOM-W3")] == pytest.approx(0.75)
    assert v["pile"][names.index("Lobbyist")] == pytest.approx(8 / 9)
    assert v["pile"][names.index("INF-W5")] == 1.0
    assert v["pile_size"][0] == pytest.approx(len(game.draw_pile) / (len(game.catalogue) - 1))
    assert v["round"][0] == pytest.approx(3 / enc._max_round)
    assert v["turn_in_round"][0] == pytest.approx(3 / 4)
    assert v["noise"][0] == pytest.approx(1 / 6) and v["noise"][1] == 0.0  # log2(1 + 1) / 6
    assert v["bank"].sum() == 0.0 and v["bank_finite"][0] == 0.0  # unlimited Bank (R17): not encoded
    assert v["effect_kind"].sum() == 0.0 and v["paid"].sum() == 0.0 and v["gain_options"].sum() == 0.0
    assert v["move_source"].sum() == 0.0 and v["effect_tile"].sum() == 0.0
    assert v["reserved"].sum() == 0.0


def test_tile_in_hand_is_encoded_during_placement():
    game = _position(phase="place_tile")
    v = Encoder("core-4p").views(encode(game, 2))
    assert v["phase"][PHASE_NAMES.index("place_tile")] == 1.0
    assert v["hand_kind"].tolist() == [0, 1, 0, 0, 0, 0, 0]  # a ResortTile
    assert v["hand_resort"].tolist() == [0, 0, 1]  # INF
    assert v["hand_value"][0] == 1.0  # W5 / 5
    names = Encoder("core-4p").tile_type_names
    assert v["pile"][names.index("INF-W5")] == 0.0  # the drawn tile is no longer in the DrawPile


def test_move_context_marks_the_source_cell():
    game = _position(phase="move_to", active=1, pending={"kind": "move", "from": "8,7"})
    assert game.phase_name == "move_to"
    v = Encoder("core-4p").views(encode(game, 1))
    assert v["move_source"][0][_at(8, 7)] == 1.0 and v["move_source"].sum() == 1.0
    assert v["phase"][PHASE_NAMES.index("move_to")] == 1.0
    assert v["to_act"].tolist() == [1, 0, 0, 0]


def test_payment_context_marks_effect_tile_and_paid_resorts():
    # Seat 1 holds one Resource of each resort: a Standard Committee (2 distinct, CORE-01-04-15) leaves a
    # choice; after paying DOM the choice FOR / INF is still open (BC-05).
    game = _position(phase="pay", active=1, pending={"kind": "formalize", "tile": "6,7", "paid": ["DOM"]})
    assert game.legal_actions() == [game.string_to_action("pay FOR"), game.string_to_action("pay INF")]
    v = Encoder("core-4p").views(encode(game, 1))
    assert v["effect_tile"][0][_at(6, 7)] == 1.0 and v["effect_tile"].sum() == 1.0
    assert v["effect_kind"].tolist() == [1.0, 0.0]
    assert v["paid"].tolist() == pytest.approx([1 / 6, 0, 0])


# ---------------------------------------------------------------------------- tracking and bounds


@pytest.mark.parametrize("preset", PRESETS)
def test_incremental_encoding_equals_full_rebuild_in_random_games(preset):
    """The event-driven board tracker never drifts from a rebuild from the state (every observer)."""
    enc, ref = Encoder(preset), Encoder(preset)
    rng = random.Random(3)
    game = Game.new(preset, seed=3)
    step = 0
    while True:
        if step % 3 == 0 or game.is_terminal():
            for observer in range(game.num_players):
                got = enc.encode(game, observer)
                ref._rebuild(game)
                want = ref.encode(game, observer)
                if not np.array_equal(got, want):
                    bad = [k for k, x in enc.views(got).items() if not np.array_equal(x, ref.views(want)[k])]
                    pytest.fail(f"step {step}, observer {observer}: views differ: {bad}")
                assert got.min() >= 0.0 and got.max() <= 1.0
        if game.is_terminal():
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        step += 1
    assert enc.rebuilds <= 2  # one at the start (+1 for a VAR-01-01 exhausted pile), not one per step


def test_a_different_game_object_triggers_a_rebuild():
    enc = Encoder("core-2p")
    a, b = Game.new("core-2p", 1), Game.new("core-2p", 2)
    va = enc.encode(a, 0)
    enc.encode(b, 0)
    assert np.array_equal(enc.encode(a, 0), va)
    clone = a.clone()
    clone.apply(clone.legal_actions()[0])
    assert not np.array_equal(enc.encode(clone, 0), va)
    assert np.array_equal(enc.encode(a, 0), va)


def test_encoder_rejects_a_game_of_another_configuration():
    with pytest.raises(ValueError, match="core-2p"):
        Encoder("core-2p").encode(Game.new("core-4p", 0), 0)
    with pytest.raises(ValueError, match="observer"):
        Encoder("core-2p").encode(Game.new("core-2p", 0), 2)


# ---------------------------------------------------------------------------- the core encoding, bit for bit

# sha256 prefixes of every encoding along one random game per core preset, made with encoder version 2 (version 1
# plus the game-clock views). Any change of the core encoding's layout must bump ENCODER_VERSION and these digests;
# a rule fix changes only values (the R13 fix of Lobbyist control changed the core-4p walk, BC-11).
CORE_DIGESTS = {
    ("core-2p", 1): "3751628ba5016382",
    ("core-3p", 1): "d155d79af6e8ea53",
    ("core-4p", 1): "65f0cfced4045136",  # a4efa492383e3c5d before the R13 fix of Lobbyist control (BC-11)
    ("core-4p-hex", 1): "661b028573df03fe",
    ("core-4p-variants", 1): "34a2219d5297f2c9",
    ("core-5p", 1): "1943f6c50dede06a",
    ("core-6p", 1): "4cc03d74afd7920b",
}


def _encoding_digest(preset: str, seed: int) -> str:
    """One seeded random game's encodings, hashed (tools/make_identity.py: the same walk for every preset)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from make_identity import encoding_digest

    return encoding_digest(preset, seed)


@pytest.mark.parametrize("preset", CORE_PRESETS)
def test_core_encoding_is_pinned_for_this_encoder_version(preset):
    assert sorted(p for p, _ in CORE_DIGESTS) == sorted(CORE_PRESETS), "a digest for every core preset"
    assert _encoding_digest(preset, 1) == CORE_DIGESTS[(preset, 1)]


def test_an_unknown_event_forces_a_rebuild_and_a_known_one_does_not():
    enc = Encoder("exp01-4p")
    game = Game.new("exp01-4p", 2)
    enc.encode(game, 0)
    before = enc.rebuilds
    game.apply(game.legal_actions()[0])  # place the drawn tile: a known event
    enc.encode(game, 0)
    assert enc.rebuilds == before
    game.events.append({"type": "some-future-event", "rule": "EXP-99"})
    got = enc.encode(game, 0)
    assert enc.rebuilds == before + 1
    ref = Encoder("exp01-4p")
    assert np.array_equal(got, ref.encode(game, 0))


# ---------------------------------------------------------------------------- EXP-01


def _cell(game_or_sc, label: str) -> int:
    return int(game_or_sc.topo.parse(label))


def _exp_position(phase: str = "political", pending: dict | None = None) -> Game:
    """exp01-4p, round 3, start player 2, seats 2 and 3 have acted, seat 0 decides.

    Board: (8,7) ECO-W2 [0, 2, 0, 0], (8,8) DOM-W3 [0, 0, 0, 0], (7,6) Labor Market (unresolved),
    (6,7) Investment Program [1, 0, 0, 0], (7,8) Hotspot (unresolved).
    Measures: hands P0 {M02, M06}, P2 {M09}; open M01, M05, M10; draw pile M08; recycle M03 (played once);
    final discard M04, M07 (played twice); M06 played once. Seat 3 played a Measure this round.
    Active effects: M04 twice (permanent, owners 3 and 0, on (8,7)), M05 (owner 3, this settlement, on (8,8)),
    M06 (owner 2, until consumed, on player 0), M07 (owner 3, next round), M08 (owner 1, used, window of P1).
    """
    sc = Scenario("exp01-4p", seed=0)
    sc.put("8,7", "ECO-W2", influence=[0, 2, 0, 0])
    sc.put("8,8", "DOM-W3")
    sc.put("7,6", "Labor Market", resolved=False)
    sc.put("6,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.put("7,8", "Hotspot", resolved=False)
    sc.resources(0, ECO=2, FOR=1, DOM=1, INF=1)
    sc.resources(2, ECO=9, INF=3)
    sc.zones(draw=[M["M08"]], open_=[M["M01"], M["M05"], M["M10"]], recycle=[M["M03"]], final=[M["M04"], M["M07"]])
    sc.hand(0, M["M02"], M["M06"])
    sc.hand(2, M["M09"])
    for key, n in (("M03", 1), ("M04", 2), ("M07", 2), ("M06", 1)):
        sc.counter(M[key], n)
    sc.at(player=0, round_=3, turns_in_round=2, start_player=2)
    sc.data["measures"]["last_play_round"] = [0, 2, 0, 3]
    eco, dom = _cell(sc, "8,7"), _cell(sc, "8,8")
    sc.effect(M["M04"], 3, "permanent", from_round=1, cell=eco)
    sc.effect(M["M04"], 0, "permanent", from_round=2, cell=eco)
    sc.effect(M["M05"], 3, "end_of_settlement", from_round=3, cell=dom)
    sc.effect(M["M06"], 2, "consumed", from_round=2, target=0)
    sc.effect(M["M07"], 3, "end_of_round", from_round=4)
    sc.effect(M["M08"], 1, "end_of_player_turn", from_round=3, player=1, turn=7, used=True)
    sc.data["phase"] = phase
    sc.data["pending"] = pending
    return sc.game()


def test_EXP_01_ECO_resort_and_new_tiles_in_board_planes_hand_and_pile():
    game = _exp_position()
    enc = Encoder("exp01-4p")
    assert enc.resorts == ("DOM", "FOR", "INF", "ECO")  # EXP-01-01-01: the fourth resort
    v = enc.views(enc.encode(game, 0))
    assert v["resort"][3][_at(8, 7)] == 1.0 and v["resort"][:3, 7, 8].sum() == 0.0  # ECO-W2
    assert v["value"][0][_at(8, 7)] == pytest.approx(2 / 5)
    assert v["tile"][TILE_CHANNELS.index("hotspot")][_at(7, 6)] == 1.0  # EXP-01-02-11: a Hotspot
    assert v["tile"][TILE_CHANNELS.index("system")][_at(6, 7)] == 1.0  # EXP-01-02-13/14: a System Tile
    assert enc.specials == ("labor-market", "investment-program")
    assert v["tile_special"][0][_at(7, 6)] == 1.0 and v["tile_special"][0].sum() == 1.0
    assert v["tile_special"][1][_at(6, 7)] == 1.0 and v["tile_special"][1].sum() == 1.0
    assert v["tile_special"][:, 8, 7].sum() == 0.0, "a core Hotspot is no special tile"
    # Seat 0 controls the Investment Program, seat 1 the ECO-W2 (relative 1 for observer 0).
    assert v["control"][0][_at(6, 7)] == 1.0 and v["control"][1][_at(8, 7)] == 1.0
    # Pile composition (EXP-01-02-05, -10, -13): ECO-W1 x2 and ECO-W3 x1 all left, the rest on the Board.
    names = enc.tile_type_names
    assert names[-5:] == ("ECO-W1", "ECO-W2", "ECO-W3", "Labor Market", "Investment Program")
    pile = dict(zip(names, v["pile"].tolist()))
    assert pile["ECO-W1"] == 1.0 and pile["ECO-W3"] == 1.0
    assert pile["ECO-W2"] == pile["Labor Market"] == pile["Investment Program"] == 0.0
    assert pile["Hotspot"] == pytest.approx(7 / 8), "the Labor Market is not counted as a core Hotspot"
    # ECO in the per-resort views: seat 0 holds 2 ECO (linear /8); seat 2 holds 9 ECO (saturates).
    assert v["resources"][0].tolist() == pytest.approx([1 / 8, 1 / 8, 1 / 8, 2 / 8])
    assert v["resources"][2].tolist() == pytest.approx([0, 0, 3 / 8, 1.0])
    assert v["bank"].shape == (4,) and v["noise"].shape == (4,)


def test_EXP_01_02_16_measure_market_hands_counters_seen_by_observer_2():
    game = _exp_position()
    enc = Encoder("exp01-4p")
    v = enc.views(enc.encode(game, 2))
    cards = enc.card_names
    k = {key: cards.index(key) for key in cards}
    zone = {key: MEASURE_ZONES[int(np.argmax(v["measure_zone"][k[key]]))] for key in cards}
    assert v["measure_zone"].sum(axis=1).tolist() == [1.0] * 10, "every card in exactly one zone"
    assert zone == {
        M["M01"]: "open", M["M05"]: "open", M["M10"]: "open", M["M08"]: "draw_pile", M["M03"]: "recycle_pile",
        M["M04"]: "final_discard", M["M07"]: "final_discard", M["M02"]: "hand", M["M06"]: "hand", M["M09"]: "hand",
    }  # fmt: skip
    # Deck piles (draw, open, recycle, final) / 10 cards.
    assert v["measure_piles"].tolist() == [pytest.approx([0.1, 0.3, 0.1, 0.2])]
    # EXP-01-06-11..13: play counters / 2.
    plays = {key: v["measure_plays"][k[key]] for key in cards}
    assert plays[M["M04"]] == plays[M["M07"]] == 1.0 and plays[M["M03"]] == plays[M["M06"]] == 0.5
    assert plays[M["M01"]] == 0.0
    # Hands are public (RULINGS R19), seat-relative: observer 2 sees seat 2 as 0 and seat 0 as 2.
    assert np.flatnonzero(v["measure_hand"][0]).tolist() == [k[M["M09"]]]
    assert np.flatnonzero(v["measure_hand"][2]).tolist() == [k[M["M02"]], k[M["M06"]]]
    assert v["measure_hand"][1].sum() == v["measure_hand"][3].sum() == 0.0
    assert v["hand_size"].tolist() == [0.5, 0.0, 1.0, 0.0]
    # EXP-01-06-18: seat 3 (relative 1) played a Measure in round 3; seat 1 in round 2 does not count.
    assert v["measure_played"].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert v["additional_action"][0] == 0.0
    assert v["pending_card"].sum() == 0.0 and v["pending_target_player"].sum() == 0.0


def test_EXP_01_06_active_effects_owner_target_duration_seen_by_observer_1():
    game = _exp_position()
    enc = Encoder("exp01-4p")
    v = enc.views(enc.encode(game, 1))
    e = {key: i for i, key in enumerate(enc.effect_ids)}
    rel = {seat: (seat - 1) % 4 for seat in range(4)}  # observer 1: seat -> relative player
    assert v["effect_count"].tolist() == pytest.approx(
        [{"M04": 1.0, "M05": 0.5, "M06": 0.5, "M07": 0.5, "M08": 0.5}.get(key[-3:], 0.0) for key in enc.effect_ids]
    )
    # Owners, relative: M04 twice (seats 3 and 0), M06 by seat 2, M08 by seat 1 (the observer).
    assert np.flatnonzero(v["effect_owner"][e[M["M04"]]]).tolist() == sorted([rel[3], rel[0]])
    assert np.flatnonzero(v["effect_owner"][e[M["M06"]]]).tolist() == [rel[2]]
    assert np.flatnonzero(v["effect_owner"][e[M["M08"]]]).tolist() == [0]
    # EXP-01-06-M06-02: Budget Deficit targets seat 0; tile effects target no player.
    assert np.flatnonzero(v["effect_target_player"][e[M["M06"]]]).tolist() == [rel[0]]
    assert v["effect_target_player"].sum() == 1.0
    # Tile targets on the board planes: M04 on the ECO-W2 (8,7), M05 on the DOM-W3 (8,8).
    assert enc.tile_target_ids == (M["M01"], M["M02"], M["M04"], M["M05"])
    t = {key: i for i, key in enumerate(enc.tile_target_ids)}
    assert v["measure_target"][t[M["M04"]]][_at(8, 7)] == 1.0 and v["measure_target"][t[M["M04"]]].sum() == 1.0
    assert v["measure_target"][t[M["M05"]]][_at(8, 8)] == 1.0 and v["measure_target"].sum() == 2.0
    until = {key: EFFECT_TIMINGS[int(np.argmax(v["effect_until"][e[key]]))] for key in e if v["effect_count"][e[key]]}
    assert until == {
        M["M04"]: "permanent", M["M05"]: "end_of_settlement", M["M06"]: "consumed", M["M07"]: "end_of_round",
        M["M08"]: "end_of_player_turn",
    }  # fmt: skip
    # Turns left, the current one included, / (2 P): M05 ends at this round's settlement after seats 0 and 1
    # (2); Debt Brake applies next round (EXP-01-06-M07-02): 2 + 4 turns; Economic Council ends with seat 1's
    # turn (BC-28): 2; permanent and consumed effects saturate.
    left = {key: v["effect_turns_left"][e[key]] for key in e}
    assert left[M["M05"]] == pytest.approx(2 / 8) and left[M["M07"]] == pytest.approx(6 / 8)
    assert left[M["M08"]] == pytest.approx(2 / 8)
    assert left[M["M04"]] == left[M["M06"]] == 1.0 and left[M["M01"]] == 0.0
    assert np.flatnonzero(v["effect_waiting"]).tolist() == [e[M["M07"]]]  # from round 4
    assert np.flatnonzero(v["effect_used"]).tolist() == [e[M["M08"]]]  # EXP-01-06-M08-07


def test_EXP_01_06_M02_pending_play_in_the_target_decision():
    game = _exp_position(phase="target", pending={"kind": "play", "card": M["M02"]})
    assert game.phase_name == "target"
    targets = {game.action_to_string(a) for a in game.legal_actions()}
    assert targets == {"target 8,7", "target 8,8"}  # EXP-01-06-M02-02: a ResortTile
    enc = Encoder("exp01-4p")
    v = enc.views(enc.encode(game, 0))
    assert v["phase"].tolist() == [float(name == "target") for name in PHASE_NAMES]
    assert v["effect_kind"].tolist() == [float(k == "play") for k in enc.effect_kinds]
    assert np.flatnonzero(v["pending_card"]).tolist() == [enc.card_names.index(M["M02"])]
    assert v["pending_target_player"].sum() == 0.0 and v["effect_tile"].sum() == 0.0 and v["paid"].sum() == 0.0
    assert v["to_act"].tolist() == [1.0, 0.0, 0.0, 0.0]


def test_EXP_01_06_M06_pending_play_with_a_target_player_in_a_payment():
    # Budget Deficit on seat 0 adds 1 Resource of any resort (EXP-01-06-M06-04/05): ECO + ECO + DOM, FOR or INF
    # (payments are chosen in resort order DOM, FOR, INF, ECO; docs/rulings.md BC-05).
    pending = {"kind": "play", "card": M["M06"], "tile": None, "target": 2, "paid": []}
    game = _exp_position(phase="pay", pending=pending)
    assert [game.action_to_string(a) for a in game.legal_actions()] == ["pay DOM", "pay FOR", "pay INF"]
    enc = Encoder("exp01-4p")
    for observer in (0, 3):
        v = enc.views(enc.encode(game, observer))
        assert v["pending_target_player"].tolist() == [float(k == (2 - observer) % 4) for k in range(4)]
        assert np.flatnonzero(v["pending_card"]).tolist() == [enc.card_names.index(M["M06"])]
        assert v["effect_kind"].tolist() == [float(k == "play") for k in enc.effect_kinds]
        assert v["effect_tile"].sum() == 0.0, "no ContextTile (CORE-01-06-00-05)"


def test_EXP_01_06_M02_pending_play_on_a_tile_marks_the_context_tile_and_paid_resorts():
    # Economic Stimulus costs ECO + FOR (EXP-01-06-M02-01), + 1 of any resort (Budget Deficit): after FOR,
    # INF or ECO is still open.
    pending = {"kind": "play", "card": M["M02"], "tile": "8,8", "target": None, "paid": ["FOR"]}
    game = _exp_position(phase="pay", pending=pending)
    assert [game.action_to_string(a) for a in game.legal_actions()] == ["pay INF", "pay ECO"]
    enc = Encoder("exp01-4p")
    v = enc.views(enc.encode(game, 0))
    assert v["effect_tile"][0][_at(8, 8)] == 1.0 and v["effect_tile"].sum() == 1.0  # CORE-01-06-00-05 (b)
    assert v["paid"].tolist() == pytest.approx([0, 1 / 6, 0, 0])
    assert v["phase"][PHASE_NAMES.index("pay")] == 1.0


def test_EXP_01_05_investment_program_exchange_decision():
    """A ConvertResources by the controller of the Investment Program offers the exchange (EXP-01-05-03/04)."""
    sc = Scenario("exp01-4p", seed=0)
    sc.put("8,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.put("6,7", "Grassroots", influence=[1, 0, 0, 0])
    sc.resources(0, ECO=3, DOM=2)
    sc.data["config"]["action_tiles_require_control"] = True
    game = sc.game()
    act(game, "convert 6,7")
    while game.phase_name in ("pay", "gain"):
        game.apply(game.legal_actions()[0])
    assert game.phase_name == "exchange"
    enc = Encoder(game.config)
    v = enc.views(enc.encode(game, 0))
    dec = game.decision
    assert v["phase"].tolist() == [float(name == "exchange") for name in PHASE_NAMES]
    assert v["effect_kind"].tolist() == [float(k == "convert") for k in enc.effect_kinds]
    assert v["pending_gain"].tolist() == [float(r == dec.gain) for r in range(4)]
    assert v["exchange_options"].tolist() == [float(r in dec.exchanges) for r in range(4)]
    assert v["exchange_options"][3] == 0.0, "into a different resort than ECO"
    assert v["effect_tile"][0][_at(6, 7)] == 1.0
    game.apply(game.string_to_action("decline"))
    v = enc.views(enc.encode(game, 0))
    assert v["pending_gain"].sum() == v["exchange_options"].sum() == 0.0


def test_bc30_EXP_01_06_M10_04_supplemental_budget_payment_is_encoded():
    """The pay decision of Supplemental Budget's additional Resource shows the gain and the exchange chosen."""
    sc = Scenario("exp01-4p", seed=0)
    sc.put("8,7", "Investment Program", influence=[1, 0, 0, 0])
    sc.put("6,7", "Grassroots")
    sc.resources(0, ECO=2, DOM=2, FOR=1, INF=1)
    sc.at(player=0, round_=2)
    sc.effect("EXP-01-M03", 1, "end_of_round", from_round=2)
    sc.effect("EXP-01-M10", 0, "end_of_player_turn", player=0, turn=0)
    game = sc.game()
    act(game, "convert 6,7", "gain FOR", "exchange INF")
    assert game.phase_name == "pay"
    enc = Encoder(game.config)
    v = enc.views(enc.encode(game, 0))
    assert v["phase"].tolist() == [float(name == "pay") for name in PHASE_NAMES]
    assert v["effect_kind"].tolist() == [float(k == "convert") for k in enc.effect_kinds]
    assert v["pending_gain"].tolist() == [0.0, 1.0, 0.0, 0.0]
    assert v["exchange_options"].tolist() == [0.0, 0.0, 1.0, 0.0]


def test_EXP_01_v1_3_additional_action_is_encoded():
    sc = Scenario("exp01-v1.3-4p", seed=0)
    sc.put("8,7", "ECO-W2", influence=[0, 1, 0, 0])
    sc.resources(0, ECO=1)
    sc.hand(0, M["M10"])
    game = sc.game()
    act(game, f"play {M['M10']}")
    assert game.ext["measures"].extra and game.current_player == 0 and game.phase_name == "political"
    enc = Encoder(game.config)
    v = enc.views(enc.encode(game, 0))
    assert v["additional_action"][0] == 1.0 and v["measure_played"].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert v["hand_size"].sum() == 0.0 and v["effect_count"][enc.effect_ids.index(M["M10"])] == 0.5


@pytest.mark.parametrize(("preset", "event"), [("exp01-4p", "measure-applied"), ("exp01-v1.3-4p", "labor-market")])
def test_EXP_01_hotspot_resolutions_without_influence_are_tracked_incrementally(preset, event):
    """EXP-01-06-M01-04: a blocked Hotspot is resolved without Influence moving; v1.3 Labor Market
    (EXP-01-02-C-04) gives a new Influence into the supply. The tracker follows both without a rebuild."""
    sc = Scenario(preset, seed=0)
    sc.put("8,7", "Labor Market", influence=[0, 1, 0, 0], resolved=False)
    sc.put("8,6", "Committee")
    sc.put("8,8", "Committee")
    sc.draws("Committee")
    if event == "measure-applied":
        sc.effect(M["M01"], 2, "end_of_round", from_round=1, cell=_cell(sc, "8,7"))
    game = sc.game()
    enc = Encoder(game.config)
    enc.encode(game, 0)
    rebuilds = enc.rebuilds
    finish_turn(game)
    act(game, "place-tile 9,7")  # seat 1 closes the Labor Market (CORE-01-06-01)
    assert [e["type"] for e in game.events if e["type"] == event]
    got = enc.encode(game, 1)
    assert enc.rebuilds == rebuilds
    v = enc.views(got)
    assert v["resolved"][0][_at(8, 7)] == 1.0
    assert np.array_equal(got, Encoder(game.config).encode(game, 1))


@pytest.mark.parametrize("preset", ["exp01-2p", "exp01-v1.3-4p"])
def test_EXP_01_07_effect_turns_left_matches_when_the_engine_expires_the_effect(preset):
    """``effect_turns_left`` * 2P is the number of turns until the engine removes the effect (EXP-01-07-06,
    docs/rulings.md BC-22, BC-27..30), checked for every timed effect that random play puts in force."""
    enc = Encoder(preset)
    P = enc.num_players
    checked: set[str] = set()
    for seed in range(6):
        game = Game.new(preset, seed)
        rng = random.Random(seed)
        take = game.layout.take
        watch: list[tuple[tuple, int, int]] = []  # (effect key, turn when seen, predicted turns left)
        while not game.is_terminal():
            # An effect is identified without its data (Economic Council's "used" flag changes it).
            keys = [(a.id, a.owner, a.until, a.from_round) for a in game.active_effects]
            for key, turn, left in watch:
                if key not in keys:
                    assert game.turn - turn == left, f"{key}: expired after {game.turn - turn} turns, encoded {left}"
                    checked.add(key[0])
                else:
                    assert game.turn - turn < left, f"{key}: still in force after {game.turn - turn} turns"
            watch = [w for w in watch if w[0] in keys]
            views = enc.views(enc.encode(game, 0))
            ids = [key[0] for key in keys]
            for key in keys:
                timed = key[2] not in ("permanent", "consumed")
                if timed and ids.count(key[0]) == 1 and all(key != w[0] for w in watch):
                    left = round(float(views["effect_turns_left"][enc.effect_ids.index(key[0])]) * 2 * P)
                    watch.append((key, game.turn, left))
            legal = game.legal_actions()
            pref = [x for x in legal if x >= take]
            if pref and rng.random() < 0.6:
                legal = pref
            game.apply(legal[rng.randrange(len(legal))])
    assert len(checked) >= 4, checked


@pytest.mark.parametrize("preset", EXP01_PRESETS)
def test_EXP_01_incremental_equals_rebuild_with_measure_heavy_play(preset):
    """Random games that prefer Measure actions (take, play, target, exchange): every observer's
    incremental encoding equals a rebuild, values stay in [0, 1], and no step needs a rebuild."""
    enc, ref = Encoder(preset), Encoder(preset)
    phases: set[str] = set()
    for seed in range(2):
        game = Game.new(preset, seed)
        rng = random.Random(seed)
        take = game.layout.take
        while True:
            phases.add(game.phase_name)
            for observer in range(game.num_players):
                got = enc.encode(game, observer)
                ref._rebuild(game)
                want = ref.encode(game, observer)
                if not np.array_equal(got, want):
                    bad = [k for k, x in enc.views(got).items() if not np.array_equal(x, ref.views(want)[k])]
                    pytest.fail(f"seed {seed}, observer {observer}: views differ: {bad}")
                assert got.min() >= 0.0 and got.max() <= 1.0
            if game.is_terminal():
                break
            legal = game.legal_actions()
            pref = [a for a in legal if a >= take]
            if pref and rng.random() < 0.7:
                legal = pref
            game.apply(legal[rng.randrange(len(legal))])
    assert enc.rebuilds == 2, "one rebuild per new game object, none per step"
    assert "target" in phases


# ---------------------------------------------------------------------------- documentation

DOC = Path(__file__).resolve().parents[1] / "docs" / "observation.md"


def _doc_table(text: str, title: str) -> list[list[str]]:
    lines = text.splitlines()
    start = lines.index(title)
    header = next(i for i in range(start, len(lines)) if lines[i].startswith("| view"))
    rows = []
    for line in lines[header + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def test_docs_observation_tables_match_the_encoder_layout():
    text = DOC.read_text(encoding="utf-8")
    enc = Encoder("core-4p")
    rows = _doc_table(text, "### Board planes") + _doc_table(text, "### Non-board vector")
    assert [r[0].strip("`") for r in rows] == list(enc.spec), "docs list every view, in layout order"
    symbols = {"P": 4, "R": 3, "T": len(enc.tile_type_names), "H": 15, "W": 15}
    for name, shape_text, *_ in rows:
        dims = [int(symbols.get(d.strip(), d.strip() or 0)) for d in shape_text.strip("()").split(",") if d.strip()]
        assert tuple(dims) == enc.spec[name.strip("`")][1], name
    assert f"total {enc.size_total}" in text and f"C = {enc.num_channels}" in text
    assert f"encoder version {ENCODER_VERSION}" in text


def test_docs_observation_exp01_tables_match_the_encoder_layout():
    """docs/observation.md: the EXP-01 planes follow the core planes and the EXP-01 vector follows the core
    vector, in the documented order and shapes (exp01-4p)."""
    text = DOC.read_text(encoding="utf-8")
    enc = Encoder("exp01-4p")
    core_board, core_vector = _doc_table(text, "### Board planes"), _doc_table(text, "### Non-board vector")
    exp_board, exp_vector = _doc_table(text, "### EXP-01 board planes"), _doc_table(text, "### EXP-01 non-board vector")
    names = [r[0].strip("`") for r in core_board + exp_board + core_vector + exp_vector]
    assert names == list(enc.spec), "docs list every EXP-01 view, in layout order"
    symbols = {
        "P": 4, "R": 4, "T": len(enc.tile_type_names), "H": 15, "W": 15, "S": len(enc.specials),
        "K": len(enc.card_names), "D": len(enc.decks), "E": len(enc.effect_ids), "G": len(enc.tile_target_ids),
    }  # fmt: skip
    assert (symbols["S"], symbols["K"], symbols["D"], symbols["E"], symbols["G"]) == (2, 10, 1, 10, 4)
    grown = {"phase": (8,), "effect_kind": (6,)}  # documented in the EXP-01 section
    for name, shape_text, *_ in core_board + exp_board + core_vector + exp_vector:
        name = name.strip("`")
        dims = [int(symbols.get(d.strip(), d.strip() or 0)) for d in shape_text.strip("()").split(",") if d.strip()]
        assert grown.get(name, tuple(dims)) == enc.spec[name][1], name
    assert "`phase` is `(8,)`" in text and "`effect_kind` is `(6,)`" in text
    assert f"total {enc.size_total}" in text and f"C = {enc.num_channels}" in text
    assert list(enc.phase_names[6:]) == ["target", "exchange"]


def test_docs_observation_python_blocks_run():
    for block in re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        exec(compile(block, str(DOC), "exec"), {})


# ---------------------------------------------------------------------------- the game clock (version 2)


def _turns_by_playing_out(game: Game) -> list[int]:
    """Political Actions each seat still takes, counted by playing the game out (first legal action)."""
    g = game.clone()
    count = [0] * g.num_players
    seen = set()
    while not g.is_terminal():
        key = (g.turn, g.active)
        if g.phase_name == "political" and key not in seen:
            seen.add(key)
            count[g.active] += 1
        g.apply(g.legal_actions()[0])
    return count


@pytest.mark.parametrize("preset", ["core-2p", "core-4p"])
def test_clock_counts_the_turns_each_player_still_takes(preset):
    """turns_left is the number of Political Actions each relative player takes until the end (checked by
    playing the game out); the thermometers agree with it, and the slack subtracts the actions to the cap."""
    enc = Encoder(preset)
    rng = random.Random(5)
    game = Game.new(preset, 5)
    checked = 0
    while not game.is_terminal():
        if game.phase_name in ("place_tile", "political") and rng.random() < 0.15 and not game.discard:
            o = game.current_player
            views = enc.views(enc.encode(game, o))
            truth = _turns_by_playing_out(game)
            for k in range(game.num_players):
                p = (o + k) % game.num_players
                left = truth[p]
                assert game.turns_left(p) == left  # the engine's clock (CORE-01-04-04, CORE-01-09-01)
                assert round(float(views["turns_left"][k]) * enc._max_round) == left
                therm = views["turns_left_at_most"][k]
                assert [bool(x) for x in therm] == [left <= b + 1 for b in range(16)]
                needed = (game.cap - game.on_board[p]) + max(0, game.cap - game.starting[p] - game.created[p])
                assert game.actions_to_cap(p) == needed  # RULINGS R12
                slack = views["slack_at_most"][k]
                assert [bool(x) for x in slack] == [left - needed <= s for s in range(-8, 9)]
            checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert checked >= 10
    assert not enc.views(enc.encode(game, 0))["turns_left_at_most"].any(), "nothing left when the game is over"
    assert [game.turns_left(p) for p in range(game.num_players)] == [0] * game.num_players


def test_clock_scenario_last_turns_of_a_two_player_game():
    """Explicit state: 3 tiles left in the DrawPile, seat 0 in its Political Action. Seat 0 takes this turn and
    the one after next (2), seat 1 the next two (2); seat 0 has 5 on the Board, 1 in supply, 2 created: it
    needs 2 Places and 0 Formalizes (cap 7 = 4 starting + 3; one more may be created): slack 2 - 3 = -1."""
    game = Game.new("core-2p", 0)
    while game.phase_name != "political" or game.active != 0 or len(game.draw_pile) != 3:
        assert not game.is_terminal()
        game.apply(game.legal_actions()[0])
    game.on_board[0], game.supply[0], game.created[0] = 5, 1, 2
    views = Encoder("core-2p").views(Encoder("core-2p").encode(game, 0))
    assert [round(float(x) * Encoder("core-2p")._max_round) for x in views["turns_left"]] == [2, 2]
    # actions to the cap: 7 - 5 Places + (7 - 4 - 2) Formalizes = 3; slack 2 - 3 = -1 -> bins for -1 .. 8
    assert game.actions_to_cap(0) == 3 and game.turns_left(0) == 2
    assert [bool(x) for x in views["slack_at_most"][0]] == [s >= -1 for s in range(-8, 9)]


def test_encoder_versions_are_per_layout_so_core_bots_survive_expansion_changes():
    """The core layout keeps ENCODER_VERSION whatever an expansion's views do (engine-redesign issue)."""
    from bc_env.encoding import encoder_version

    assert all(encoder_version(p) == ENCODER_VERSION == Encoder(p).version for p in CORE_PRESETS)
    assert encoder_version("exp01-4p") == Encoder("exp01-4p").version == "2+EXP-01.1"
    assert encoder_version("exp01-v1.3-4p") == "2+EXP-01.1"


@pytest.mark.parametrize("preset", ["core-2p", "core-4p", "core-4p-variants", "core-6p"])
def test_the_core_vector_fast_path_writes_the_same_bytes_as_the_general_one(preset):
    """Encoder._vector_core (no expansion: each value written at its seat-relative place, no permutation) and
    Encoder._vector (the general path: a list in absolute seat order, permuted, packed) agree for every observer
    at every decision of a random game."""
    enc = Encoder(preset)
    game, rng = Game.new(preset, 11), random.Random(11)
    checked = 0
    while not game.is_terminal():
        for o in range(game.num_players):
            assert enc._vector_core(game, o) == enc._vector(game, o), (game.phase_name, o)
            checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert checked > 200
