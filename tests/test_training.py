"""Training end to end on a tiny budget: train, checkpoint, resume, export, load, play; and the export format."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from bc_env.encoding import Encoder  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from benchmarking.runner import play_game  # noqa: E402
from policies.neural import NeuralPolicy, PolicyFileError  # noqa: E402
from training.config import TrainConfig, TrainConfigError  # noqa: E402
from training.demonstrations import collect_demonstrations  # noqa: E402
from training.train import RunDirError, action_kinds, train  # noqa: E402

# the recorded fingerprints need the torch thread count they were recorded with (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("recorded_torch_threads")


TINY = "configs/train/tiny.toml"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, training_fingerprint):
    runs = tmp_path_factory.mktemp("runs")
    cfg = TrainConfig.load(TINY).override([f'runs_dir="{runs}"'])
    summary = train(cfg, progress=False)
    summary["fingerprint"] = training_fingerprint.fingerprint(cfg.run_dir)  # before any test changes the run
    return cfg, summary


def test_tiny_run_is_the_run_recorded_before_the_training_core(tiny_run, training_fingerprint):
    """The same seed gives the same policies (every snapshot, the evaluated and the final one), the same
    evaluations and every file the sb3 trainer wrote before it moved onto training/core.py (issue 31)."""
    _, summary = tiny_run
    recorded = json.loads((ROOT / "tests" / "fixtures" / "training-tiny.json").read_text())
    golden = recorded["sb3"]
    now = summary["fingerprint"]
    # exact float32 bytes: one recording per kind of CPU (tools/training_fingerprint.py)
    assert now["weights"] in training_fingerprint.recorded_weights(recorded, "sb3"), now["weights"]
    assert now["evals"] == golden["evals"]
    assert set(golden["files"]) <= set(now["files"]), set(golden["files"]) - set(now["files"])


def test_tiny_run_writes_everything(tiny_run):
    cfg, summary = tiny_run
    run = cfg.run_dir
    assert summary["steps"] >= cfg.total_steps
    for name in ("config.json", "evals.json", "learning_curve.png", "policy.npz", "policy.json", "summary.json"):
        assert (run / name).is_file(), name
    assert (run / "checkpoint" / "model.zip").is_file() and (run / "checkpoint" / "state.json").is_file()
    assert list((run / "tb").glob("events.out.tfevents.*")), "TensorBoard logs"
    assert len(list((run / "pool").glob("snapshot-*.npz"))) >= 1
    cloned = NeuralPolicy(run / "bc" / "cloned")  # the behaviour-cloned policy before PPO
    assert cloned.manifest.data["training"]["steps"] == 0
    evals = json.loads((run / "evals.json").read_text())
    assert evals[-1]["step"] == summary["steps"]
    assert set(evals[-1]) == {"step", "wall_seconds", "random", "heuristic"}


def test_resume_continues_the_step_counter_and_pool(tiny_run):
    cfg, summary = tiny_run
    state_before = json.loads((cfg.run_dir / "checkpoint" / "state.json").read_text())
    more = cfg.override([f"total_steps={cfg.total_steps * 2}"])
    resumed = train(more, resume=True, progress=False)
    assert resumed["steps"] >= 2 * cfg.total_steps
    state_after = json.loads((cfg.run_dir / "checkpoint" / "state.json").read_text())
    assert state_after["backend"]["num_timesteps"] > state_before["backend"]["num_timesteps"]
    assert state_after["steps"] == state_after["backend"]["num_timesteps"]
    old = [s["step"] for s in state_before["run"]["snapshots"]]
    new = [s["step"] for s in state_after["run"]["snapshots"]]
    assert len(new) <= cfg.pool.max_snapshots and new == sorted(new)
    assert max(new) > max(old), "snapshots continue after the resume"
    assert state_after["run"]["evals"][: len(state_before["run"]["evals"])] == state_before["run"]["evals"]
    bc = json.loads((cfg.run_dir / "policy.json").read_text())["training"]["behaviour_cloning"]
    assert bc["games"] == cfg.bc_games and bc["decisions"] > 0, "the resumed export still records behaviour cloning"
    kept = list((cfg.run_dir / "tb").glob("progress-until-*.csv"))
    assert len(kept) == 1 and len(kept[0].read_text().splitlines()) > 1, "the first invocation's CSV rows are kept"


def test_resume_with_a_mismatched_config_is_refused(tiny_run):
    cfg, _ = tiny_run
    with pytest.raises(RunDirError, match="net_arch"):
        train(cfg.override(["net_arch=[16]"]), resume=True, progress=False)
    with pytest.raises(RunDirError, match="rules"):
        train(cfg.override(['rules="core-3p"']), resume=True, progress=False)


def test_a_new_run_does_not_overwrite_an_existing_one(tiny_run):
    cfg, _ = tiny_run
    with pytest.raises(RunDirError, match="--resume"):
        train(cfg, progress=False)


def _matches_torch_in_random_games(bot, model, games: int, seed: int) -> int:
    """Along random games of core-2p: the NumPy bot's logits equal the torch policy's at ~10% of the positions
    and the bot's action is always legal. Returns how many positions were compared."""
    from training.export import torch_logits

    encoder = Encoder(RulesConfig.preset("core-2p"))
    rng = random.Random(seed)
    checked = 0
    for g in range(games):
        game = Game.new("core-2p", g)
        while not game.is_terminal():
            if rng.random() < 0.1:
                obs = encoder.encode(game, game.current_player)
                np.testing.assert_allclose(bot.logits(obs), torch_logits(model, obs)[0], rtol=1e-4, atol=1e-4)
                checked += 1
            assert bot.act(game) in game.legal_actions()
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])  # random play reaches varied positions
    return checked


def test_exported_bot_plays_legal_games_and_matches_torch(tiny_run):
    from sb3_contrib import MaskablePPO

    cfg, _ = tiny_run
    bot = NeuralPolicy(cfg.run_dir / "policy")
    assert bot.manifest.data["rules"]["players"] == 2
    model = MaskablePPO.load(cfg.run_dir / "checkpoint" / "model.zip", device="cpu")
    assert _matches_torch_in_random_games(bot, model, games=6, seed=3) > 20
    result = play_game("core-2p", [bot, bot], seed=1)
    assert result is not None


def test_policy_files_load_without_pickle(tiny_run, tmp_path):
    cfg, _ = tiny_run
    src = cfg.run_dir / "policy"
    data = dict(np.load(src.with_suffix(".npz"), allow_pickle=False))
    np.savez(tmp_path / "bad.npz", **{**data, "w0": np.array([{"x": 1}], dtype=object)})  # needs pickle
    (tmp_path / "bad.json").write_text(src.with_suffix(".json").read_text())
    with pytest.raises(PolicyFileError, match="pickle"):
        NeuralPolicy(tmp_path / "bad")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something-else"}))
    np.savez(tmp_path / "other.npz", **data)
    with pytest.raises(PolicyFileError, match="manifest"):
        NeuralPolicy(tmp_path / "other")


def test_config_overrides_and_errors():
    cfg = TrainConfig.load(TINY)
    assert cfg.override(["ppo.learning_rate=0.001", "pool.p_random=0.5"]).ppo.learning_rate == 0.001
    with pytest.raises(TrainConfigError, match="unknown config key"):
        cfg.override(["no_such_key=1"])
    with pytest.raises(TrainConfigError, match="must be an integer"):
        cfg.override(["total_steps=1.5"])
    with pytest.raises(TrainConfigError, match="p_random"):
        cfg.override(["pool.p_random=2"])
    assert cfg.override(["max_seconds=30"]).max_seconds == 30.0
    for bad, msg in (('device="tpu"', "device"), ("max_seconds=-1", "max_seconds"), ('reward="elo"', "reward")):
        with pytest.raises(TrainConfigError, match=msg):
            cfg.override([bad])


def test_max_seconds_stops_a_run_and_still_exports(tmp_path):
    cfg = TrainConfig.load(TINY).override(
        [f'runs_dir="{tmp_path}"', "total_steps=10000000", "max_seconds=3", "bc_games=0", 'reward="margin"']
    )
    summary = train(cfg, progress=False)
    assert summary["stopped_by"] == "max_seconds"
    assert 0 < summary["steps"] < cfg.total_steps
    manifest = json.loads((cfg.run_dir / "policy.json").read_text())
    assert manifest["training"]["stopped_by"] == "max_seconds" and manifest["training"]["device"] == "cpu"
    with pytest.raises(RunDirError, match="reward"):  # the reward scheme is part of a run's identity
        train(cfg.override(['reward="zero_sum"']), resume=True, progress=False)


def test_demonstrations_do_not_depend_on_the_number_of_workers():
    rules = RulesConfig.preset("core-2p")
    one = collect_demonstrations(rules, 6, seed=5, workers=1)
    two = collect_demonstrations(rules, 6, seed=5, workers=2)
    for a, b in zip(one, two, strict=True):
        np.testing.assert_array_equal(a, b)
    obs, masks, acts, values, weights = one
    assert len(obs) == len(masks) == len(acts) == len(values) == len(weights) > 50
    assert np.all(weights == 1.0), "no learner: every position weighs 1"
    assert masks[np.arange(len(acts)), acts].all(), "every demonstrated action is legal"
    assert np.all(np.abs(values) <= 1.0) and np.any(values != 0)  # discounted final zero_sum rewards


def test_action_kinds_follow_the_layout_blocks():
    for preset in ("core-2p", "exp01-4p"):
        game = Game.new(preset, 0)
        kinds = action_kinds(RulesConfig.preset(preset))
        assert len(kinds) == game.num_actions
        for action in range(game.num_actions):  # the kind is the action string's verb
            verb = game.action_to_string(action).split()[0]
            first = int(np.flatnonzero(kinds == kinds[action])[0])
            assert game.action_to_string(first).split()[0] == verb, (preset, action)
        assert len(set(kinds.tolist())) == (9 if preset == "core-2p" else 15)


def test_dagger_demonstrations_follow_the_learner_and_keep_the_teachers_labels(tiny_run):
    cfg, _ = tiny_run
    rules = RulesConfig.preset("core-2p")
    teacher = collect_demonstrations(rules, 2, seed=9)
    dagger = collect_demonstrations(rules, 2, seed=9, learner=cfg.run_dir / "policy", mistake_weight=3.0)
    obs, masks, acts, values, weights = dagger
    assert masks[np.arange(len(acts)), acts].all(), "labels are legal actions of the positions"
    # the tiny learner disagrees with the teacher often: those positions weigh 3, its agreements 1
    learner = NeuralPolicy(cfg.run_dir / "policy")
    assert set(np.unique(weights).tolist()) == {1.0, 3.0}
    chosen = np.where(masks, learner.logits(obs), -np.inf).argmax(axis=1)  # what the learner played there
    np.testing.assert_array_equal(weights == 3.0, chosen != acts)
    assert (weights == 3.0).sum() > len(acts) // 10
    assert len(obs) != len(teacher[0]) or not np.array_equal(obs, teacher[0]), "the learner drives the games"
    cfg2 = cfg.override(["name=dagger", "bc_dagger_rounds=1", "total_steps=256", "bc_mistake_weight=3.0"])
    summary = train(cfg2, progress=False)
    bc = json.loads((cfg2.run_dir / "policy.json").read_text())["training"]["behaviour_cloning"]
    assert bc["dagger_rounds"] == 1 and (cfg2.run_dir / "bc" / "dagger-0.npz").is_file()
    assert summary["steps"] >= 256


# ---------------------------------------------------------------------------- the spatial network


@pytest.fixture(scope="module")
def spatial_run(tmp_path_factory):
    runs = tmp_path_factory.mktemp("spatial-runs")
    cfg = TrainConfig.load(TINY).override(
        [
            f'runs_dir="{runs}"',
            'name="tiny-spatial"',
            'network="spatial"',
            "conv_channels=8",
            "conv_layers=2",
            'activation="relu"',
        ]  # fmt: skip
    )
    summary = train(cfg, progress=False)
    return cfg, summary


def test_spatial_bot_matches_torch_and_plays_legal_games(spatial_run):
    from sb3_contrib import MaskablePPO

    from training.export import torch_logits

    cfg, _ = spatial_run
    bot = NeuralPolicy(cfg.run_dir / "policy")
    net = bot.manifest.data["network"]
    assert (net["type"], net["channels"], net["layers"], net["extra"]) == ("spatial", 8, 2, 1 + 2 * 3)
    model = MaskablePPO.load(cfg.run_dir / "checkpoint" / "model.zip", device="cpu")
    assert _matches_torch_in_random_games(bot, model, games=3, seed=4) > 10
    encoder = Encoder(RulesConfig.preset("core-2p"))
    batch = np.stack([encoder.encode(Game.new("core-2p", s), 0) for s in range(3)])
    np.testing.assert_allclose(bot.logits(batch), torch_logits(model, batch), rtol=1e-4, atol=1e-4)


def test_spatial_cell_logits_follow_the_action_layout(spatial_run, tmp_path):
    """The 1x1 head's output channel k is the layout's block k (action k * N + cell): a bias on channel 1 makes
    the Place block the most likely, and the legal mask still decides what the bot plays."""
    import shutil

    cfg, _ = spatial_run
    src = cfg.run_dir / "policy"
    arrays = dict(np.load(src.with_suffix(".npz"), allow_pickle=False))
    arrays["cell.b"] = arrays["cell.b"].copy()
    arrays["cell.b"][1] += 100.0
    np.savez(tmp_path / "biased.npz", **arrays)
    shutil.copy(src.with_suffix(".json"), tmp_path / "biased.json")
    bot = NeuralPolicy(tmp_path / "biased")
    game = Game.new("core-2p", 0)
    logits = bot.logits(Encoder("core-2p").encode(game, game.current_player))
    n = game.layout.n
    assert n <= int(np.argmax(logits)) < 2 * n
    assert bot.act(game) in game.legal_actions(), "the mask still decides (place-tile is the pending decision)"


def test_a_spatial_policy_file_with_a_wrong_shape_is_refused(spatial_run, tmp_path):
    cfg, _ = spatial_run
    src = cfg.run_dir / "policy"
    arrays = dict(np.load(src.with_suffix(".npz"), allow_pickle=False))
    arrays["mix.w"] = arrays["mix.w"][:, :-1]
    np.savez(tmp_path / "bad.npz", **arrays)
    (tmp_path / "bad.json").write_text(src.with_suffix(".json").read_text())
    with pytest.raises(PolicyFileError, match="mix.w"):
        NeuralPolicy(tmp_path / "bad")
    manifest = json.loads(src.with_suffix(".json").read_text())
    del manifest["network"]["channels"]
    np.savez(tmp_path / "nodims.npz", **dict(np.load(src.with_suffix(".npz"), allow_pickle=False)))
    (tmp_path / "nodims.json").write_text(json.dumps(manifest))
    with pytest.raises(PolicyFileError, match="channels"):
        NeuralPolicy(tmp_path / "nodims")


# ---------------------------------------------------------------------------- starting from a trained policy


def test_a_run_started_from_a_trained_policy_begins_with_its_weights(spatial_run, tiny_run):
    """``init_policy``: with a learning rate of 0 nothing is learned, so the run exports exactly the policy it
    started from (trunk and action head copied; the value head is not part of an export). An MLP policy and a
    different shape are refused, naming what differs, before anything is trained."""
    cfg, _ = spatial_run
    src = cfg.run_dir / "policy"
    start = cfg.override(
        ['name="from-policy"', f'init_policy="{src}"', "bc_games=0", "total_steps=128", "ppo.learning_rate=0.0"]
    )
    train(start, progress=False)
    before = np.load(src.with_suffix(".npz"), allow_pickle=False)
    after = np.load(start.run_dir / "policy.npz", allow_pickle=False)
    assert sorted(before.files) == sorted(after.files)
    for name in before.files:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    provenance = json.loads((start.run_dir / "policy.json").read_text())["training"]
    assert provenance["config"]["init_policy"] == str(src)
    parent = json.loads(src.with_suffix(".json").read_text())
    assert provenance["init_from"] == {"name": parent["name"], "source": str(src), "training": parent["training"]}

    # The chain goes on: a run started from this one names it, and through it the first run, also when the
    # final export comes from a resumed invocation.
    child = start.override(['name="from-child"', f'init_policy="{start.run_dir / "policy"}"', "total_steps=64"])
    train(child, progress=False)
    train(child.override(["total_steps=128"]), progress=False, resume=True)
    chain = json.loads((child.run_dir / "policy.json").read_text())["training"]
    assert chain["steps"] == 128
    assert chain["init_from"]["name"] == "from-policy"
    assert chain["init_from"]["training"]["init_from"]["training"] == parent["training"]

    wider = cfg.override(['name="wider"', f'init_policy="{src}"', "bc_games=0", "conv_channels=16"])
    with pytest.raises(TrainConfigError, match="conv_channels = 8, this run has 16"):
        train(wider, progress=False)
    assert not wider.run_dir.exists(), "refused before the run directory is made"
    from sb3_contrib import MaskablePPO

    from training.export import load_policy_weights

    mlp_cfg, _ = tiny_run
    mlp_model = MaskablePPO.load(mlp_cfg.run_dir / "checkpoint" / "model.zip", device="cpu")
    with pytest.raises(ValueError, match="has a spatial network, this run's network is mlp"):
        load_policy_weights(mlp_model, NeuralPolicy(src))


def test_init_policy_must_be_a_trained_policy_for_the_same_rules_and_network(spatial_run, tiny_run):
    from training.train import init_policy

    cfg, _ = spatial_run
    src = str(cfg.run_dir / "policy")
    core2p = RulesConfig.preset("core-2p")
    assert init_policy(cfg.override([f'init_policy="{src}"']), core2p).name
    shipped = cfg.override(['init_policy="ppo-core-2p"', "conv_channels=64", "conv_layers=3"])
    assert init_policy(shipped, core2p).name == "ppo-core-2p"
    mlp_cfg, _ = tiny_run
    for c, name, rules, msg in (
        (cfg, "heuristic", "core-2p", "not a trained policy"),
        (cfg, "no/such/policy", "core-2p", "unknown policy"),
        (cfg, src, "core-4p", "trained for rules core-2p, this run is core-4p"),
        (mlp_cfg, src, "core-2p", "has a spatial network, this run's network is mlp"),
        (cfg.override(['activation="tanh"']), src, "core-2p", "activation = 'relu', this run has 'tanh'"),
        (cfg.override(["conv_layers=3"]), src, "core-2p", "conv_layers = 2, this run has 3"),
        (mlp_cfg.override(["net_arch=[16]"]), str(mlp_cfg.run_dir / "policy"), "core-2p", r"net_arch = \(32,\)"),
    ):
        with pytest.raises(TrainConfigError, match=msg):
            init_policy(c.override([f'init_policy="{name}"']), RulesConfig.preset(rules))
