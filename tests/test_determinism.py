"""Determinism (DESIGN: "the seed drives one explicit RNG object inside the state, never the global random").

* the same seed and the same actions give identical games (``to_dict()`` and event logs), in this process
  and in a fresh ``python -c`` process with a different ``PYTHONHASHSEED``;
* different seeds give different draw orders (CORE-01-03-02) and every seat starts sometimes (R6);
* ``Game.new`` and play neither read nor change Python's global ``random`` (nor NumPy's global RNG).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bc_env.rules import Game, replay

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("core-2p", "core-3p", "core-4p", "core-5p", "core-6p", "core-4p-variants", "core-4p-hex")
SEEDS = (0, 7, 123456789)


def play(preset: str, seed: int) -> tuple[Game, list[int]]:
    """One game with actions chosen by ``random.Random(seed)``."""
    game = Game.new(preset, seed)
    rng = random.Random(seed)
    actions = []
    while not game.is_terminal():
        legal = game.legal_actions()
        a = legal[rng.randrange(len(legal))]
        actions.append(a)
        game.apply(a)
    return game, actions


def game_digest(game: Game) -> str:
    """sha256 of the canonical JSON of the whole state, event log included."""
    return hashlib.sha256(json.dumps(game.to_dict(), sort_keys=True).encode("utf-8")).hexdigest()


def digests() -> dict[str, str]:
    """``preset/seed`` -> digest of the final state and of the action list; run here and in subprocesses."""
    out = {}
    for preset in PRESETS:
        for seed in SEEDS:
            game, actions = play(preset, seed)
            out[f"{preset}/{seed}"] = game_digest(game) + ":" + hashlib.sha256(str(actions).encode()).hexdigest()
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_same_seed_and_actions_give_identical_games_in_one_process(preset: str) -> None:
    for seed in SEEDS:
        first, actions = play(preset, seed)
        again, actions_again = play(preset, seed)
        assert actions_again == actions  # same seed: same legal sets, so the same chooser picks the same
        follower = Game.new(preset, seed)
        for i, a in enumerate(actions):
            if i % 25 == 0:
                assert follower.to_dict() == _replayed(preset, seed, actions[:i]).to_dict()
            follower.apply(a)
        for game in (again, follower, replay(preset, seed, [first.action_to_string(a) for a in actions])):
            assert game.events == first.events
            assert game.to_dict() == first.to_dict()
            assert game_digest(game) == game_digest(first)


def _replayed(preset: str, seed: int, actions: list[int]) -> Game:
    game = Game.new(preset, seed)
    for a in actions:
        game.apply(a)
    return game


def test_same_seed_gives_identical_games_across_processes_and_hash_seeds() -> None:
    """Fresh interpreters with other PYTHONHASHSEEDs (string hashing, set order) play the same games."""
    here = digests()
    code = (
        "import json, sys; sys.path.insert(0, 'tests'); from test_determinism import digests; "
        "print(json.dumps({'hash': hash('balance-control'), 'digests': digests()}))"
    )
    string_hashes = set()
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert proc.returncode == 0, proc.stderr
        there = json.loads(proc.stdout.strip().splitlines()[-1])
        string_hashes.add(there["hash"])
        differ = sorted(k for k in here if here[k] != there["digests"].get(k))
        assert not differ, f"games differ with PYTHONHASHSEED={hash_seed}: {differ}"
        assert there["digests"] == here
    assert len(string_hashes) == 2, "the subprocesses did not run with different string hash seeds"


@pytest.mark.parametrize("preset", PRESETS)
def test_CORE_01_03_02_different_seeds_give_different_draw_orders(preset: str) -> None:
    orders = set()
    starts = set()
    for seed in range(60):
        game = Game.new(preset, seed)
        orders.add((game.drawn, *game.draw_pile))
        starts.add(game.start_player)
    assert len(orders) == 60, "two seeds gave the same draw order"
    assert starts == set(range(Game.new(preset, 0).num_players)), "RULINGS R6: some seat never starts"
    # Neighbouring and far-apart seeds differ too.
    for a, b in ((1, 2), (0, 1 << 32), (10**9, 10**9 + 1)):
        assert Game.new(preset, a).draw_pile != Game.new(preset, b).draw_pile


def test_game_new_and_play_do_not_touch_the_global_random_state() -> None:
    random.seed(20240601)
    np.random.seed(7)
    state = random.getstate()
    np_state = np.random.get_state()
    for preset in PRESETS:
        game, _ = play(preset, 3)
        clone = Game.from_dict(json.loads(json.dumps(game.to_dict()))).clone()
        clone.legal_action_mask()
        assert random.getstate() == state, f"{preset}: the engine used Python's global random"
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]


def test_global_random_state_does_not_change_games() -> None:
    """Game.new depends on its seed only, not on whatever the global RNGs hold."""
    random.seed(1)
    np.random.seed(1)
    first = play("core-4p-variants", 5)[0].to_dict()
    random.seed(2)
    np.random.seed(2)
    random.random()
    second = play("core-4p-variants", 5)[0].to_dict()
    assert first == second
