"""The compact observation layouts ``compact-v1`` and ``compact-v2`` (bc_env/encoding/compact.py, docs/observation.md
"Compact layout")."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_encoding import _at, _position

from bc_env.encoding import Encoder
from bc_env.encoding.compact import COMPACT_PHASES, CompactEncoder, compact_digest
from bc_env.rules import Game, RulesConfig, preset_names
from bc_env.rules.components import KIND_NAMES
from bc_env.rules.state import game_to_dict
from bc_env.vector import SelfPlayVectorEnv

CORE_PRESETS = [p for p in preset_names() if not (lambda c: c.exp01 or c.exp02 or c.exp03)(RulesConfig.resolve(p))]
KIND = {name: i + 1 for i, name in enumerate(KIND_NAMES)}  # the kind plane: engine kind + 1, 0 empty, -1 off table


def test_board_planes_of_a_hand_built_position_are_seat_relative_for_observer_1():
    game = _position()
    enc = CompactEncoder("core-4p")
    v = enc.views(enc.encode(game, 1))
    assert v["kind"][_at(8, 7)] == KIND["resort"]
    assert v["kind"][_at(7, 7)] == KIND["start-committee"]
    assert v["kind"][_at(8, 8)] == KIND["lobbyist"]
    assert v["kind"][_at(6, 7)] == KIND["committee"]
    assert v["kind"][_at(7, 6)] == KIND["hotspot"] and v["resolved"][_at(7, 6)] == 1.0
    assert v["kind"][_at(7, 8)] == KIND["grassroots"]
    assert v["kind"][_at(0, 0)] == 0.0 and v["kind"][_at(9, 7)] == 0.0  # empty (a square table has no off cells)
    assert v["resolved"].sum() == 1.0
    # DOM-W3 at (8,7): resort DOM (index 0, stored + 1), printed value 3 (CORE-01-02-17).
    assert v["resort"][_at(8, 7)] == 1.0 and v["value"][_at(8, 7)] == 3.0
    assert v["resort"].sum() == 1.0 and v["value"].sum() == 3.0
    # Physical Influence by seat: (8,7) [0, 2, 1, 0], (8,8) [0, 0, 3, 0], (7,8) [1, 0, 0, 0]; observer 1 sees
    # seat 1 as relative 0 (RULINGS R6).
    assert v["influence"][:, 7, 8].tolist() == [2, 1, 0, 0]
    assert v["influence"][:, 8, 8].tolist() == [0, 3, 0, 0]
    assert v["influence"][:, 8, 7].tolist() == [0, 0, 0, 1]
    assert v["influence"].sum() == 7
    # Placement frontier (R3): empty cells next to Board tiles only.
    assert v["frontier"][_at(9, 7)] == 1.0 and v["frontier"][_at(8, 7)] == 0.0 and v["frontier"][_at(12, 12)] == 0
    assert v["frontier"].sum() == len(game.frontier)


def test_off_table_cells_of_a_hex_table_are_minus_one():
    game = Game.new("core-4p-hex", 1)
    enc = CompactEncoder("core-4p-hex")
    kind = enc.views(enc.encode(game, 0))["kind"].ravel()
    on = np.array(game.topo.on_table)
    assert (kind[~on] == -1).all() and (~on).any()
    assert (kind[on] >= 0).all()


def test_non_board_values_rotate_with_the_observer():
    game = _position()
    enc = CompactEncoder("core-4p")
    for observer in range(4):
        v = enc.views(enc.encode(game, observer))
        order = [(observer + k) % 4 for k in range(4)]
        pl = dict(
            zip(("supply", "on_board", "starting", "deployed", "created", "start_used", "turns_left"), v["players"])
        )
        assert pl["supply"].tolist() == [game.supply[p] for p in order]
        assert pl["on_board"].tolist() == [game.on_board[p] for p in order]
        assert pl["deployed"].tolist() == [game.deployed[p] for p in order]
        assert pl["created"].tolist() == [game.created[p] for p in order]
        assert pl["start_used"].tolist() == [float(p == 1) for p in order]
        assert pl["turns_left"].tolist() == [game.turns_left(p) for p in order]
        assert v["resources"].tolist() == [game.resources_of(p) for p in order]
        assert v["seats"].tolist() == [(3 - observer) % 4, (2 - observer) % 4]  # start player 3, seat 2 decides
    v = enc.views(enc.encode(game, 2))
    assert v["resources"][0].tolist() == [9, 0, 2]  # raw counts, no saturation
    assert v["players"][3].tolist() == [4, 0, 1, 2]  # deployed of seats 2, 3, 0, 1


def test_global_values_of_a_hand_built_position():
    game = _position()
    enc = CompactEncoder("core-4p")
    v = enc.views(enc.encode(game, 0))
    assert v["hand"].tolist() == [0, 0, 0]  # no tile in hand during the Political Action
    gate, pile, discard, rnd, turn, phase = v["game"].tolist()
    assert gate == 0.0  # seat 3 has not deployed its Starting Influence (CORE-01-08-02)
    assert (pile, discard, rnd, turn) == (len(game.draw_pile), 0, 3, 3)
    assert COMPACT_PHASES[int(phase)] == "political"
    assert v["noise"].tolist() == [1, 0, 0]
    assert v["bank"].tolist() == [0, 0, 0, 0]  # unlimited Bank (R17): not encoded
    assert v["effect"].tolist() == [0, -1, -1, 0, 0, 0, 0, 0, 0]


def test_tile_in_hand_during_placement():
    v = CompactEncoder("core-4p").views(CompactEncoder("core-4p").encode(_position(phase="place_tile"), 2))
    assert v["hand"].tolist() == [KIND["resort"], 3, 5]  # INF-W5: resort INF (index 2, + 1), value 5
    assert COMPACT_PHASES[int(v["game"][5])] == "place_tile"


def test_move_source_and_payment_context():
    enc = CompactEncoder("core-4p")
    game = _position(phase="move_to", active=1, pending={"kind": "move", "from": "8,7"})
    v = enc.views(enc.encode(game, 1))
    assert v["effect"][:3].tolist() == [0, -1, game.topo.parse("8,7")]
    assert v["seats"][1] == 0  # the observer decides
    game = _position(phase="pay", active=1, pending={"kind": "formalize", "tile": "6,7", "paid": ["DOM"]})
    v = enc.views(enc.encode(game, 1))
    assert v["effect"].tolist() == [1, game.topo.parse("6,7"), -1, 1, 0, 0, 0, 0, 0]


def test_layout_views_tile_the_vector_without_gaps():
    for preset in CORE_PRESETS:
        enc = CompactEncoder(preset)
        pos = 0
        for offset, shape in enc.spec.values():
            assert offset == pos
            pos += int(np.prod(shape))
        assert pos == enc.size_total < 0.3 * __import__("bc_env").encoding.Encoder(preset).size_total


def test_encoding_is_deterministic_and_overwrites_the_whole_row():
    enc = CompactEncoder("core-3p")
    a, b = Game.new("core-3p", 4), Game.new("core-3p", 4)
    rng = np.random.default_rng(0)
    row = np.full(enc.size_total, 7.0, dtype=np.float32)
    for _ in range(120):
        if a.is_terminal():
            break
        for p in range(3):
            enc.encode_into(a, p, row)
            assert np.array_equal(row, CompactEncoder("core-3p").encode(b, p))
        legal = a.legal_actions()
        x = legal[int(rng.integers(len(legal)))]
        a.apply(x)
        b.apply(x)


def test_refuses_expansions_other_games_and_bad_observers():
    with pytest.raises(ValueError, match="core configurations only"):
        CompactEncoder("exp01-4p")
    enc = CompactEncoder("core-4p")
    with pytest.raises(ValueError, match="another configuration"):
        enc.encode(Game.new("core-2p", 1), 0)
    with pytest.raises(ValueError, match="observer"):
        enc.encode(Game.new("core-4p", 1), 4)
    with pytest.raises(ValueError, match="obs_layout"):
        SelfPlayVectorEnv("core-4p", 2, obs_layout="compact-v0")


@pytest.mark.parametrize("preset", CORE_PRESETS)
def test_a_fork_writes_what_the_encoder_writes_at_every_step_of_whole_games(preset):
    """CompactFork (the batched env's per-slot encoder) keeps the tile planes between calls; its rows equal the
    stateless encoder's for every seat at every step of two whole games in turn, after a jump back to an earlier
    position of the same game (a board with fewer tiles) and after another game (the planes start over)."""
    enc = CompactEncoder(preset)
    fork = enc.fork()
    assert fork is not enc and fork.fork() is not fork
    rng = np.random.default_rng(5)
    row = np.full(enc.size_total, 7.0, dtype=np.float32)
    resolved = 0
    for seed in (0, 1):
        g = Game.new(preset, seed)
        early = None
        while not g.is_terminal():
            for p in {g.current_player, (g.current_player + 1) % g.num_players}:
                fork.encode_into(g, p, row)
                assert np.array_equal(row, enc.encode(g, p)), (seed, g.round, p)
            if early is None and len(g.board) > 6:
                early = g.clone()
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
        resolved += sum(map(bool, g.resolved))
        assert early is not None and len(early.board) < len(g.board)
        for p in range(g.num_players):
            fork.encode_into(early, p, row)  # another Game object, fewer tiles
            assert np.array_equal(row, enc.encode(early, p))
        fork.encode_into(g, 0, row)  # back to the finished game: the planes start over again
        assert np.array_equal(row, enc.encode(g, 0))
    assert resolved > 0  # the Resolved plane was written


# Pins compact-v1: a change of its layout or of any value is a new layout name (docs/observation.md).
COMPACT_DIGESTS = {"core-2p": "85cef3a449f9fa8f", "core-4p": "4963d31c23644cf1", "core-4p-hex": "35d1117a4bc9aeca"}


@pytest.mark.parametrize("preset", sorted(COMPACT_DIGESTS))
def test_compact_v1_is_pinned(preset):
    assert compact_digest(preset, 1) == COMPACT_DIGESTS[preset]


@pytest.mark.parametrize("preset", ["core-2p", "core-4p"])
def test_vector_env_with_compact_v1_matches_the_core_env_and_the_encoder(preset):
    core = SelfPlayVectorEnv(preset, 8, seed=3)
    compact = SelfPlayVectorEnv(preset, 8, seed=3, obs_layout="compact-v1")
    assert compact.obs_dim == CompactEncoder(preset).size_total and compact.encoder_version == "compact-v1"
    enc = CompactEncoder(preset)
    _, mask_a, _ = core.reset()
    obs, mask_b, to_move = compact.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        assert np.array_equal(mask_a, mask_b) and np.array_equal(core.to_move, to_move)
        for i in (0, 5):
            assert np.array_equal(obs[i], enc.encode(compact.games[i], int(to_move[i])))
        m = mask_b
        actions = np.argmax(np.where(m, rng.random(m.shape), -1.0), axis=1)
        *_, r_a, d_a = core.step(actions)
        obs, mask_b, to_move, r_b, d_b = compact.step(actions)
        assert np.array_equal(d_a, d_b) and np.array_equal(r_a, r_b)
        ended += int(d_b.sum())
        for i in np.flatnonzero(d_b).tolist():  # the finished game, without its log
            assert compact.ended[i].is_terminal() and compact.ended[i].returns() == core.ended[i].returns()
            assert compact.ended[i].events == [] and core.ended[i].events
        # compact-v1 never reads the event log: its games drop it after every action; the core layout's keep it
        assert all(not g.events for g in compact.games) and all(g.events for g in core.games)
    assert ended > 0


def test_a_game_that_forgets_its_events_plays_on_exactly_as_one_that_keeps_them():
    """``Game.forget_events``: the log is emptied, later events are logged as before, and no rule reads it: the
    state, the legal actions and the outcome are those of a twin that kept its log."""
    keep, forget = Game.new("core-4p", 5), Game.new("core-4p", 5)
    rng = np.random.default_rng(5)
    while not keep.is_terminal():
        legal = keep.legal_actions()
        assert forget.legal_actions() == legal
        a = legal[int(rng.integers(len(legal)))]
        before = len(keep.events)
        keep.apply(a)
        forget.forget_events()
        assert forget.events == []
        forget.apply(a)
        assert forget.events == keep.events[before:]
    a, b = game_to_dict(forget), game_to_dict(keep)
    assert a.pop("events") == b.pop("events")[before:]  # the last action's events only
    assert a == b and forget.winners() == keep.winners()


def test_docs_list_the_compact_layout():
    text = (Path(__file__).resolve().parents[1] / "docs" / "observation.md").read_text()
    enc, enc2 = CompactEncoder("core-4p"), CompactEncoder("core-4p", "compact-v2")
    v1_part, v2_part = text.split("## Compact layout")[1].split("### `compact-v2`")

    def rows(part: str) -> list[tuple[str, int, tuple[int, ...]]]:
        found = re.findall(r"^\| `(\w+)` \| (\d+) \| \(([\d, ]+)\) \|", part, re.M)
        return [(n, int(o), tuple(int(x) for x in s.replace(",", " ").split())) for n, o, s in found]

    assert rows(v1_part) == [(n, o, s) for n, (o, s) in enc.spec.items()]
    assert f"{enc.size_total:,} floats" in text
    assert rows(v2_part) == [("slack_at_most", *enc2.spec["slack_at_most"])]  # compact-v2: compact-v1 and one block
    assert f"core-4p {enc2.size_total:,}" in v2_part


# --- compact-v2: compact-v1 and the slack thermometer ---------------------------------------------------------------


@pytest.mark.parametrize("preset", ["core-2p", "core-4p", "core-4p-hex"])
def test_compact_v2_is_compact_v1_then_the_core_layouts_slack_for_every_seat_of_whole_games(preset):
    """Every step of two seeded random games: the first values of a compact-v2 row are the compact-v1 row, the rest
    is the core layout's ``slack_at_most`` (RULINGS R12) of the same observer, and the fork writes the same row."""
    v1, v2 = CompactEncoder(preset), CompactEncoder(preset, "compact-v2")
    core = Encoder(preset)
    assert v2.layout == v2.version == "compact-v2" and v1.layout == "compact-v1"
    P = v2.num_players
    assert v2.size_total == v1.size_total + P * 17 and v2.spec["slack_at_most"] == (v1.size_total, (P, 17))
    assert np.array_equal(v2.input_scale[: v1.size_total], v1.input_scale)
    assert (v2.input_scale[v1.size_total :] == 1).all()
    seen = set()
    for seed in (1, 2):
        g = Game.new(preset, seed)
        fork = v2.fork()
        row = np.empty(v2.size_total, dtype=np.float32)
        rng = np.random.default_rng(seed)
        while not g.is_terminal():
            for p in range(P):
                x = v2.encode(g, p)
                assert np.array_equal(x[: v1.size_total], v1.encode(g, p))
                slack = v2.views(x)["slack_at_most"]
                assert np.array_equal(slack, core.views(core.encode(g, p))["slack_at_most"])
                seen.update(int(s) for s in slack.sum(axis=1))
            fork.encode_into(g, g.current_player, row)
            assert np.array_equal(row, v2.encode(g, g.current_player))
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
    assert len(seen) > 5  # many slack values met, the clamped ends among them


def test_compact_v2_slack_of_a_hand_built_clock():
    """At the start of a core-2p game each player's slack is its turns left minus a Place per Influence not on the
    Board and a FormalizeInfluence per Influence not yet created (RULINGS R12), far above 8: every bin is 0. Later
    the bins read as a thermometer (bin k: slack <= k - 8), seat-relative for the observer."""
    g = Game.new("core-2p", 3)
    enc = CompactEncoder("core-2p", "compact-v2")
    cap = g.cap
    slack = [g.turns_left(p) - (cap - g.on_board[p]) - max(0, cap - g.starting[p] - g.created[p]) for p in (0, 1)]
    for observer in (0, 1):
        bins = enc.views(enc.encode(g, observer))["slack_at_most"]
        for k in (0, 1):
            s = slack[(observer + k) % 2]
            assert bins[k].tolist() == [1.0 if s <= b else 0.0 for b in range(-8, 9)], (observer, k, s)


COMPACT_V2_DIGESTS = {"core-2p": "5412355415a2b4c2", "core-4p": "ded2abeed12c46e4", "core-4p-hex": "50bbfcf91823ea1e"}


@pytest.mark.parametrize("preset", sorted(COMPACT_V2_DIGESTS))
def test_compact_v2_is_pinned(preset):
    assert compact_digest(preset, 1, layout="compact-v2") == COMPACT_V2_DIGESTS[preset]


def test_vector_env_writes_compact_v2_rows_and_refuses_an_unknown_layout():
    env = SelfPlayVectorEnv("core-2p", 4, seed=3, obs_layout="compact-v2")
    enc = CompactEncoder("core-2p", "compact-v2")
    assert env.obs_dim == enc.size_total and env.encoder_version == "compact-v2"
    obs, mask, to_move = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(100):
        for i in range(4):
            assert np.array_equal(obs[i], enc.encode(env.games[i], int(to_move[i])))
        actions = np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=1)
        obs, mask, to_move, _, _ = env.step(actions)
    known = "'core', 'compact-v1', 'compact-v2'"
    with pytest.raises(ValueError, match=f"obs_layout must be one of {known}, got 'compact-v3'"):
        SelfPlayVectorEnv("core-2p", 1, obs_layout="compact-v3")
    with pytest.raises(ValueError, match="unknown compact layout 'compact-v3'"):
        CompactEncoder("core-2p", "compact-v3")
