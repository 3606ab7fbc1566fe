"""The trained bots shipped in policies/bots/: safe files, torch-free loading, always legal."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import policies
from bc_env.encoding import ENCODER_VERSION
from bc_env.rules import Game, RulesConfig

SHIPPED = {"ppo-core-2p": "core-2p", "ppo-core-4p": "core-4p"}
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name, preset", SHIPPED.items())
def test_shipped_bot_files_and_manifest(name, preset):
    base = ROOT / "policies" / "bots" / name
    manifest = json.loads(base.with_suffix(".json").read_text())
    assert manifest["format"] == "balance-control-policy" and manifest["version"] == 1
    assert RulesConfig.from_dict(manifest["rules"]) == RulesConfig.preset(preset)
    assert manifest["encoder_version"] == ENCODER_VERSION
    assert manifest["action_layout"]["num_actions"] == Game.new(preset, 0).num_actions
    for key in ("run", "steps", "wall_seconds", "command", "machine", "torch", "git_commit"):
        assert key in manifest["training"], key
    with np.load(base.with_suffix(".npz"), allow_pickle=False) as arrays:
        assert all(arrays[k].dtype == np.float32 for k in arrays.files)
    assert base.with_suffix(".npz").stat().st_size < 12_000_000


@pytest.mark.parametrize("name, preset", SHIPPED.items())
def test_shipped_bot_always_picks_a_legal_action(name, preset):
    bot = policies.load(name)
    rng = random.Random(5)
    decisions = 0
    for seed in range(3):
        game = Game.new(preset, seed)
        while not game.is_terminal():
            if game.current_player == seed % game.num_players:
                action = bot.act(game)
                decisions += 1
            else:
                legal = game.legal_actions()
                action = legal[rng.randrange(len(legal))]
            assert action in game.legal_actions()
            game.apply(action)
    assert decisions > 50


def test_shipped_bots_load_and_play_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"  # any import of torch now fails
        "import policies\n"
        "from benchmarking.runner import play_game\n"
        "for name, preset in (('ppo-core-2p', 'core-2p'), ('ppo-core-4p', 'core-4p')):\n"
        "    bot = policies.load(name)\n"
        "    seats = [bot] + [policies.load('random', seed=s) for s in range(1, int(preset[5]))]\n"
        "    play_game(preset, seats, seed=3)\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
