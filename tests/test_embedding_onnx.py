"""The torch-free ONNX path end to end: the shipped bots exported to ONNX (training.export, needs torch) and run
with onnxruntime in a process where torch cannot be imported choose the same actions as the NumPy bots on
seeded games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]
BOTS = {"ppo-core-2p": "core-2p", "ppo-core-4p": "core-4p"}

#: Runs in a fresh interpreter with torch blocked: plays seeded games with the NumPy bot in every seat and checks
#: that the ONNX bot would choose the same action at every decision (and that the logits agree).
CHECK = r"""
import json, sys
sys.modules["torch"] = None  # any import of torch now fails: the ONNX path must not need it
import numpy as np
import policies
from bc_env.encoding import Encoder
from bc_env.rules import Game
from embedding.onnx import OnnxPolicy

name, preset, path, seeds = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
numpy_bot, onnx_bot = policies.load(name), OnnxPolicy(path)
decisions = worst = 0
for seed in seeds:
    game = Game.new(preset, seed)
    enc = Encoder(game.config)
    while not game.is_terminal():
        a, b = numpy_bot.act(game), onnx_bot.act(game)
        assert a == b, (seed, decisions, game.action_to_string(a), game.action_to_string(b))
        if decisions % 25 == 0:
            obs = enc.encode(game, game.current_player)
            worst = max(worst, float(np.abs(numpy_bot.logits(obs) - onnx_bot.logits(obs)).max()))
        game.apply(a)
        decisions += 1
assert "torch" not in [m.split(".")[0] for m in sys.modules if sys.modules[m] is not None]
print(json.dumps({"decisions": decisions, "max_logit_diff": worst}))
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from training.export import export_policy_onnx

    out = tmp_path_factory.mktemp("onnx")
    return {name: export_policy_onnx(name, out / name) for name in BOTS}


@pytest.mark.parametrize("name", sorted(BOTS))
def test_onnx_bot_chooses_the_numpy_bots_actions_without_torch(exported, name):
    path = exported[name]
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["onnx"]["file"] == path.name and manifest["name"] == name
    seeds = [0, 1] if name == "ppo-core-2p" else [0]
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, name, BOTS[name], str(path), json.dumps(seeds)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["decisions"] > 100 * len(seeds)
    assert result["max_logit_diff"] < 1e-3


def test_onnx_policy_refuses_bad_files(tmp_path):
    from embedding.onnx import OnnxPolicy
    from policies.neural import PolicyFileError

    with pytest.raises(PolicyFileError, match="needs both"):
        OnnxPolicy(tmp_path / "missing")
    (tmp_path / "x.onnx").write_bytes(b"nope")
    (tmp_path / "x.json").write_text('{"format": "balance-control-policy", "version": 1}')
    with pytest.raises(PolicyFileError, match="'onnx' entry"):
        OnnxPolicy(tmp_path / "x")


def test_an_mlp_policy_exports_too(tmp_path):
    """The MLP network type (the shipped bots are spatial): a small random MLP policy, exported and run."""
    import numpy as np

    from bc_env.encoding import ENCODER_VERSION, Encoder
    from bc_env.rules import Game, RulesConfig
    from embedding.onnx import OnnxPolicy
    from policies.neural import NeuralPolicy, save_policy
    from training.export import export_policy_onnx

    rules = RulesConfig.preset("core-3p")
    game = Game.new(rules, 2)
    obs, n = Encoder(rules).size_total, game.num_actions
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.1, (16, obs)), rng.normal(0, 0.1, 16)), (rng.normal(0, 1.0, (n, 16)), np.zeros(n))]
    manifest = {
        "name": "tiny-mlp",
        "rules": rules.to_dict(),
        "encoder_version": ENCODER_VERSION,
        "action_layout": {"version": 1, "num_actions": n},
        "network": {"activation": "tanh", "hidden": [16]},
    }
    path = save_policy(tmp_path / "tiny-mlp", layers, manifest)
    numpy_bot = NeuralPolicy(path)
    onnx_bot = OnnxPolicy(export_policy_onnx(numpy_bot, tmp_path / "out" / "tiny-mlp"))
    for _ in range(60):
        if game.is_terminal():
            break
        action = numpy_bot.act(game)
        assert onnx_bot.act(game) == action
        game.apply(action)


def test_onnx_export_takes_a_batch_of_observations(exported):
    """The batch axis is dynamic (issue 28): five positions in one run give the NumPy bot's logits for each."""
    import numpy as np
    import onnxruntime as ort

    import policies
    from bc_env.encoding import Encoder
    from bc_env.rules import Game

    path = exported["ppo-core-2p"]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (inp,), (out,) = session.get_inputs(), session.get_outputs()
    assert isinstance(inp.shape[0], str) and isinstance(out.shape[0], str)  # a named, not a fixed, batch axis
    game, bot = Game.new("core-2p", 4), policies.load("ppo-core-2p")
    encoder, obs = Encoder(game.config), []
    for _ in range(5):
        obs.append(encoder.encode(game, game.current_player))
        game.apply(game.legal_actions()[-1])
    (logits,) = session.run(None, {inp.name: np.stack(obs).astype(np.float32)})
    assert logits.shape == (5, game.num_actions)
    assert np.abs(logits - np.stack([bot.logits(o) for o in obs])).max() < 1e-3
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["onnx"]["batch"] == "dynamic"
