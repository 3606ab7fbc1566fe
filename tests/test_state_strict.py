"""The state loader is the project's trust boundary (hardening issue): strict keys, types, ranges, counts and
consistency, with a StateError naming the field (docs/state-schema.md). Fuzzed with hypothesis over mid-game
states of every preset (tools/fuzz_states.py runs the same mutations at scale)."""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bc_env.rules import BalanceControlError, Game, StateError, preset_names

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import fuzz_states  # noqa: E402

STATES = fuzz_states.sample_states(random.Random(5), per_preset=1)


def _state(preset: str = "exp01-4p", steps: int = 40) -> dict:
    game = Game.new(preset, 3)
    rng = random.Random(3)
    for _ in range(steps):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game.to_dict()


def _rejects(data: dict, match: str) -> None:
    with pytest.raises(StateError, match=match):
        Game.from_dict(data)


def test_unknown_and_misspelled_keys_are_refused_everywhere():
    base = _state()
    paths = [((), "rounds"), (("players", 0), "suply"), (("board", 0), "resolve"), (("measures",), "hand")]
    paths += [(("measures", "decks", "EXP-01"), "open_"), (("bank",), "ECO ")]
    for path, key in paths:
        data = copy.deepcopy(base)
        node = data
        for k in path:
            node = node[k]
        node[key] = 0
        with pytest.raises(StateError):
            Game.from_dict(data)
    data = copy.deepcopy(base)
    data["suspended"] = []
    _rejects(data, r"state has unknown key\(s\) 'suspended'")


def test_counters_are_bounded_and_consistent():
    base = _state("core-4p")
    for key, value, match in [("turn", 10**18, "turn"), ("round", 10**6, "round"), ("turns_in_round", 9, "turns_in"),
                              ("start_player", 1.5, "start_player")]:  # fmt: skip
        data = copy.deepcopy(base)
        data[key] = value
        _rejects(data, match)
    data = copy.deepcopy(base)
    data["turn"] += 1  # no longer (round - 1) * players + turns_in_round (CORE-01-07-01)
    _rejects(data, "does not match round")
    data = copy.deepcopy(base)
    data["active"] = (data["active"] + 1) % 4  # not the player whose turn it is (RULINGS R6)
    _rejects(data, "is not the player whose turn it is")
    data = copy.deepcopy(base)
    data["players"][0]["deployed"] = 10**9
    _rejects(data, "deployed")


def test_CORE_01_04_05_a_board_island_is_refused():
    data = _state("core-4p")
    tile = next(t for t in data["draw_pile"] if t <= 36)  # a resort tile (ids 1..36), not a Hotspot
    data["draw_pile"].remove(tile)
    far = {"cell": "0,0", "tile": tile, "influence": [0, 0, 0, 0]}
    data["board"].append(far)
    _rejects(data, "not connected to the Start Committee")


def test_effects_in_force_are_bounded_by_the_cards_and_their_data_checked():
    base = _state()
    base["active_effects"] = []
    effect = {"id": "EXP-01-M06", "owner": 1, "until": "consumed", "from_round": 1, "data": {"target": 0}}
    ok = copy.deepcopy(base)
    ok["active_effects"] = [effect, effect]  # a Measure resolves at most twice per game (EXP-01-06-15)
    Game.from_dict(ok)
    for effects, match in [
        ([effect] * 3, "at most 2 times"),
        ([{**effect, "owner": 1.5}], "owner"),
        ([{**effect, "owner": True}], "owner"),
        ([{**effect, "data": {"target": 99}}], "target"),
        ([{**effect, "data": {"target": 0, "cell": 10**9}}], "cell"),
        ([{**effect, "data": {"target": 0, "colour": 1}}], "unknown key"),
        ([{**effect, "until": "forever"}], "until"),
        ([{**effect, "extra": 1}], "unknown key"),
        (
            [{"id": "EXP-01-M02", "owner": 0, "until": "end_of_settlement", "from_round": 1, "data": {"cell": 0}}],
            "not a Board tile",
        ),
    ]:
        data = copy.deepcopy(base)
        data["active_effects"] = effects
        _rejects(data, match)


def test_the_event_log_is_bounded():
    base = _state("core-2p")
    deep: object = 1
    for _ in range(10):
        deep = [deep]
    for events, match in [([{"type": "x", "rule": "y", "data": deep}], "nested deeper"), ([{"type": 1}], "string"),
                          ([5], "object")]:  # fmt: skip
        data = copy.deepcopy(base)
        data["events"] = events
        _rejects(data, match)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_mutated_states_are_rejected_or_play_to_the_end_under_the_invariants(seed):
    rng = random.Random(seed)
    data, what = fuzz_states.mutate(rng.choice(STATES), rng)
    try:
        game = Game.from_dict(data)
    except BalanceControlError:
        return
    fuzz_states.play_out(game, rng)  # raises on any broken invariant


def test_every_preset_state_round_trips_unchanged():
    for preset in preset_names():
        data = _state(preset, steps=25)
        assert Game.from_dict(copy.deepcopy(data)).to_dict() == data


def test_all_turns_of_a_round_taken_only_during_its_settlement():
    """CORE-01-07-01/02: turns_in_round equals the player count only while the Round Settlement runs (a paused
    settlement is part of the state); anywhere else it is refused."""
    data = Game.new("core-2p", 3).to_dict()
    data["turns_in_round"] = 2
    data["turn"] = (data["round"] - 1) * 2 + 2
    data["active"] = (data["start_player"] + 1) % 2
    with pytest.raises(StateError, match="exists only during the Round Settlement"):
        Game.from_dict(data)


@pytest.mark.parametrize("spelling", ["08,7", " 8,7", "8,7 ", "+8,7", "8, 7", "8,07", "８,7", "0_8,7"])
def test_a_cell_has_one_spelling_in_state_keys(spelling):
    """One cell, two spellings (issue 30): regulations.attached keyed by "8,7" and "08,7" loaded, the second entry
    silently replacing the first while placed/returned counted both. A cell key must be written as the engine
    writes it (Topology.label); anything else is refused naming the key, never merged or overwritten."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from exp02_support import Scenario02, incomplete_ok

    sc = Scenario02()
    sc.put("8,7", "Committee")
    sc.reg("8,7", "control")
    sc.reg(spelling, "security-level")
    with incomplete_ok(), pytest.raises(StateError, match=r"regulations\.attached: .*(written '8,7'|written 'x,y')"):
        Game.from_dict(sc.data)
    del sc.data["regulations"]["attached"]["8,7"]
    sc.data["regulations"]["placed"] = 1  # alone, the other spelling is refused too
    with incomplete_ok(), pytest.raises(StateError, match=r"regulations\.attached: "):
        Game.from_dict(sc.data)


def test_board_cells_have_one_spelling():
    data = _state("core-4p", steps=10)
    cell = data["board"][1]["cell"]
    x, y = cell.split(",")
    data["board"][1]["cell"] = f"0{x},{y}"
    with pytest.raises(StateError, match=rf"is written '{cell}'"):
        Game.from_dict(data)
