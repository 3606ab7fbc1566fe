"""One call from an SB3 model to a bot (issue 13): training.export.export_sb3(model, path, config)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

import policies  # noqa: E402
from bc_env.encoding import Encoder  # noqa: E402
from bc_env.env import SingleAgentEnv  # noqa: E402
from bc_env.rules import BalanceControlError, Game  # noqa: E402
from training.export import ExportError, export_sb3, torch_logits  # noqa: E402


def _mlp(config="core-2p", obs_format="flat", activation=None):
    kwargs = {"net_arch": [16]}
    if activation is not None:
        kwargs["activation_fn"] = activation
    env = SingleAgentEnv(config, obs_format=obs_format)
    policy = "MlpPolicy" if obs_format == "flat" else "MultiInputPolicy"
    return MaskablePPO(policy, env, n_steps=64, batch_size=32, policy_kwargs=kwargs, seed=0, device="cpu")


def test_an_mlp_model_becomes_a_bot_in_one_call(tmp_path):
    model = _mlp()
    model.learn(64)
    bot = export_sb3(model, tmp_path / "mine", "core-2p")
    assert bot.name == "mine" and bot.kind == "mlp"
    again = policies.load(str(tmp_path / "mine"), config="core-2p")
    game = Game.new("core-2p", 4)
    obs = Encoder("core-2p").encode(game, game.current_player)
    np.testing.assert_allclose(again.logits(obs), torch_logits(model, obs)[0], atol=1e-4)
    assert again.act(game) in game.legal_actions()
    manifest = again.manifest.data
    assert manifest["training"]["exported_with"] == "training.export.export_sb3"
    assert manifest["network"]["activation"] == "tanh"


def test_sb3s_own_progress_bar_works_with_the_train_extra(capsys):
    """issue 28: ``model.learn(progress_bar=True)`` needs rich (and tqdm), both in the [train] extra."""
    model = _mlp()
    model.learn(64, progress_bar=True)
    assert model.num_timesteps == 64


def test_a_relu_model_keeps_its_activation(tmp_path):
    import torch

    bot = export_sb3(_mlp(activation=torch.nn.ReLU), tmp_path / "relu", "core-2p")
    assert bot.manifest.activation == "relu"


def test_a_spatial_model_exports_too(tmp_path):
    from training.spatial import SpatialPolicy
    from training.spatial import policy_kwargs as spatial_kwargs

    kwargs = spatial_kwargs(Encoder("core-2p"), 4, 2, [16], "relu")
    model = MaskablePPO(SpatialPolicy, SingleAgentEnv("core-2p"), n_steps=64, policy_kwargs=kwargs, device="cpu")
    bot = export_sb3(model, tmp_path / "sp", "core-2p")
    assert bot.kind == "spatial"


def test_a_model_of_other_rules_is_refused_before_writing(tmp_path):
    model = _mlp("core-3p")
    with pytest.raises(ExportError, match=r"observation has shape \(6958,\).*core-2p has \(6235,\)"):
        export_sb3(model, tmp_path / "x", "core-2p")
    assert not (tmp_path / "x.npz").exists()
    assert issubclass(ExportError, BalanceControlError)


def test_a_planes_model_is_refused(tmp_path):
    with pytest.raises(ExportError, match="obs_format='flat'"):
        export_sb3(_mlp(obs_format="planes"), tmp_path / "p", "core-2p")
