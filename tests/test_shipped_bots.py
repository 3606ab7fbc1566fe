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

SHIPPED = {"ppo-core-2p": "core-2p", "ppo-core-4p": "core-4p", "zero-core-2p": "core-2p", "zero-core-4p": "core-4p"}
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name, preset", SHIPPED.items())
def test_shipped_bot_files_and_manifest(name, preset):
    base = ROOT / "policies" / "bots" / name
    manifest = json.loads(base.with_suffix(".json").read_text())
    assert manifest["format"] == "balance-control-policy" and manifest["version"] == 1
    assert RulesConfig.from_dict(manifest["rules"]) == RulesConfig.preset(preset)
    layout = manifest.get("observation_layout", "core")
    assert manifest["encoder_version"] == (ENCODER_VERSION if layout == "core" else layout)
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
        f"for name, preset in {tuple(SHIPPED.items())!r}:\n"
        "    bot = policies.load(name)\n"
        "    seats = [bot] + [policies.load('random', seed=s) for s in range(1, int(preset[5]))]\n"
        "    play_game(preset, seats, seed=3)\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("name", [n for n in SHIPPED if n.startswith("zero-")])
def test_zero_bots_were_learned_from_random_weights(name):
    """Issue 26's bots from zero: no behaviour cloning, no initial policy, trained by the selfplay backend from the
    config the docs name (configs/train/<name>.toml), on the rules and layout that config gives."""
    import tomllib

    training = json.loads((policies.BOTS_DIR / f"{name}.json").read_text())["training"]
    assert training["imitation"] == "none (trained from random weights)"
    assert "init_from" not in training and "behaviour_cloning" not in training
    cfg = training["config"]
    assert cfg["init_policy"] == "" and cfg["bc_games"] == 0 and cfg["backend"] == "selfplay"
    recipe = tomllib.loads((ROOT / "configs" / "train" / f"{name}.toml").read_text())
    for key in ("rules", "reward", "net_arch", "activation"):
        assert cfg[key] == recipe[key], key
    assert cfg["selfplay"]["obs_layout"] == recipe["selfplay"]["obs_layout"]
    assert training["steps"] > 0 and 0 < training["wall_seconds"] <= recipe["max_seconds"] + 60
