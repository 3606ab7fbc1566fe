"""Observation encoder (bc_env.encoding): layout, seat-relative values of hand-built positions,
incremental tracking == full rebuild, bounds."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bc_env.encoding import ENCODER_VERSION, TILE_CHANNELS, Encoder, encode
from bc_env.rules import PHASE_NAMES, Game, RulesConfig, preset_names

PRESETS = preset_names()


# ---------------------------------------------------------------------------- layout


@pytest.mark.parametrize("preset", ["core-2p", "core-4p", "core-6p", "core-4p-hex"])
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
    assert enc.spec["phase"][1] == (len(PHASE_NAMES),)
    vec = encode(Game.new(preset, 0))
    assert vec.dtype == np.float32 and vec.shape == (enc.size_total,)
    planes, rest = enc.split(vec)
    assert planes.shape == (enc.num_channels, enc.size, enc.size) and rest.shape == (enc.vector_size,)
    views = enc.views(vec)
    views["supply"][0] = 0.5  # views write through to the flat vector
    assert vec[enc.spec["supply"][0]] == 0.5
    assert ENCODER_VERSION == 1 and enc.version == 1


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
    d["round"], d["turns_in_round"], d["turn"] = 3, 3, 11
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
    # The Lobbyist itself is controlled by seat 2 (BC-11): relative player 1.
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
    assert v["phase"].tolist() == [float(name == "political") for name in PHASE_NAMES]
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


def test_docs_observation_python_blocks_run():
    for block in re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        exec(compile(block, str(DOC), "exec"), {})
