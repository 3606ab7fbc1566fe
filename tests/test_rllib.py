"""The Ray RLlib backend (training/rllib): the batched env its env runners step, the masked module, and a tiny run on
local Ray end to end (train, checkpoint, resume, export, load, play)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

import torch  # noqa: E402

import policies  # noqa: E402
from bc_env.encoding import Encoder  # noqa: E402
from bc_env.rules import Game, RulesConfig  # noqa: E402
from bc_env.vector import LearnerVectorEnv  # noqa: E402
from benchmarking.runner import play_game, play_match  # noqa: E402
from policies.neural import NeuralPolicy  # noqa: E402
from training.config import PoolConfig, TrainConfig, TrainConfigError  # noqa: E402
from training.rllib.env import PoolVectorEnv  # noqa: E402
from training.rllib.module import MASKED_LOGIT  # noqa: E402
from training.rllib.trainer import RunDirError, train  # noqa: E402

TINY = "configs/train/tiny.toml"
ROOT = Path(__file__).resolve().parent.parent


def _env(players: str = "core-2p", num_envs: int = 4, **pool: float) -> PoolVectorEnv:
    rules = RulesConfig.resolve(players).to_dict()
    config = {"rules": rules, "pool": asdict(PoolConfig(**pool)), "seed": 5, "reward": "zero_sum", "num_envs": num_envs}
    return PoolVectorEnv(config)


def _first_legal(obs: dict) -> np.ndarray:
    return np.argmax(obs["action_mask"], axis=1)


def test_env_is_one_batched_env_of_pool_games_with_rllibs_autoreset():
    env = _env(p_random=1.0, p_heuristic=0.0)  # every opponent is the random bot, played inside the env
    obs, infos = env.reset(seed=11)
    assert isinstance(env, LearnerVectorEnv) and env.num_envs == 4 and infos == {}
    assert obs["observation"].shape == (4, env.core.obs_dim) and obs["action_mask"].dtype == np.int8
    assert env.single_observation_space["action_mask"].shape == (env.core.num_actions,)
    assert all(o[0].name == "random" for o in env.slot_opponents)
    ended = 0
    for _ in range(400):
        seats = env.seat.copy()
        before = [g for g in env.core.games]
        obs, reward, terminated, truncated, infos = env.step(_first_legal(obs))
        assert not truncated.any() and infos == {}
        for i in np.flatnonzero(terminated).tolist():  # the final observation and the learner's reward
            game = env.core.ended[i]
            assert game is before[i] and game.is_terminal() and reward[i] == game.returns()[seats[i]]
            assert not obs["action_mask"][i].any()
            np.testing.assert_array_equal(obs["observation"][i], Encoder(game.config).encode(game, int(seats[i])))
            ended += 1
        assert not reward[~terminated].any()
        assert np.array_equal(env.core.to_move, env.seat)  # the learner is to move in every game
        if ended >= 2:
            break
    assert ended >= 2
    pending = np.flatnonzero(terminated)
    obs, reward, terminated, _, _ = env.step(_first_legal(obs))  # the rows that ended: action ignored, next game
    assert not reward[pending].any() and not terminated[pending].any()
    assert obs["action_mask"][pending].any(axis=1).all()


def test_env_draws_each_new_games_opponents_from_the_pool():
    env = _env(p_random=0.5, p_heuristic=0.5, num_envs=8)
    env.reset(seed=3)
    names = [o[0].name for o in env.slot_opponents]
    assert set(names) == {"random", "heuristic"}, names
    env.set_snapshots([{"name": "s", "path": str(policies.BOTS_DIR / "ppo-core-2p"), "step": 1}])
    assert env.sampler.snapshots[0]["step"] == 1


#: The digest of the trace below. Importing Ray takes ~7 s of CPU, so the determinism across processes and hash
#: seeds is checked against this recorded value rather than in a fresh process (tests/crossproc.py). It changes
#: only when the env, the encoder, the engine or the pool's bots change what they do for a seed: then re-record it.
ENV_TRACE_DIGEST = "75da73363c68eb5cc12a0a25f2a148c6020fc1a1cbd75bc2b4d48893b9ab5b8f"


def test_env_is_reproducible_from_its_seed():
    def trace() -> str:
        env = _env(p_random=0.5, p_heuristic=0.5)
        obs, _ = env.reset(seed=2)
        h = hashlib.sha256()
        for _ in range(60):
            action = np.argmax(obs["action_mask"][:, ::-1], axis=1)
            action = obs["action_mask"].shape[1] - 1 - action  # the last legal action of each game
            h.update(action.tobytes() + obs["observation"].tobytes() + obs["action_mask"].tobytes())
            obs, reward, terminated, _, _ = env.step(action)
            h.update(reward.tobytes() + terminated.tobytes())
        return h.hexdigest()

    first = trace()
    assert first == trace()  # the env keeps no state between resets with the same seed
    assert first == ENV_TRACE_DIGEST  # nor between processes (another hash seed, the recorded run)


def test_the_env_runner_steps_one_batched_env_of_n_envs_games():
    """RLlib's env runner builds one PoolVectorEnv of n_envs games (gym_env_vectorize_mode "vector_entry_point"),
    not n_envs one-game envs, and samples through it: the episodes are its games."""
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from training.rllib.algo import build_config

    cfg = TrainConfig.load(TINY).override(['backend="rllib"', "bc_games=0", "n_envs=6", "rllib.num_env_runners=0"])
    runner = SingleAgentEnvRunner(config=build_config(cfg, RulesConfig.resolve("core-2p")))
    try:
        env = runner.env.unwrapped
        assert type(env) is PoolVectorEnv and env.num_envs == runner.num_envs == 6
        episodes = runner.sample(num_timesteps=120, random_actions=False)
        assert sum(len(e) for e in episodes) >= 120 and len(episodes) >= 6  # an episode per game at least
        first = episodes[0].get_observations(0)
        assert first["observation"].shape == (env.core.obs_dim,) and first["action_mask"].any()
        actions = np.concatenate([e.get_actions() for e in episodes])
        masks = np.concatenate([e.get_observations()["action_mask"][:-1] for e in episodes])
        assert masks[np.arange(len(actions)), actions].all(), "every sampled action was legal"
    finally:
        runner.stop()


def test_backend_rllib_refuses_what_it_does_not_train_and_switches_off_behaviour_cloning():
    from training.rllib.trainer import RLlibBackend

    cfg = TrainConfig.load(TINY)
    with pytest.raises(TrainConfigError, match="mlp"):
        cfg.override(['backend="rllib"', 'network="spatial"'])
    backend = RLlibBackend(cfg.override(['backend="rllib"']))  # tiny.toml clones 2 games first: the sb3 backend's
    assert backend.cfg.bc_games == 0 and cfg.bc_games == 2
    assert backend.describe(RulesConfig.resolve("core-2p")).startswith(
        "note: backend 'rllib' does not clone behaviour: bc_games = 2 is switched off"
    )
    for bad, msg in (
        ('backend="jax"', "backend"),
        ("rllib.num_env_runners=-1", "num_env_runners"),
        ('rllib.policies="per_seat"', "unknown config key"),  # one learner seat per game: one policy
    ):
        with pytest.raises(TrainConfigError, match=msg):
            cfg.override([bad])
    assert cfg.backend == "sb3"  # the default: existing configs keep their trainer


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, training_fingerprint):
    """256 steps through the command line (output piped, as in a log file), then --resume to 512 in this process:
    4 PPO iterations of 128 steps, snapshots, evaluations, checkpoints."""
    runs = tmp_path_factory.mktemp("runs")
    cfg = TrainConfig.load(TINY).override([f'runs_dir="{runs}"', 'backend="rllib"', "bc_games=0", "total_steps=256"])
    t = time.time()
    sets = ["--set", f'runs_dir="{runs}"', "--set", "total_steps=256"]
    cmd = [sys.executable, "-m", "balance_control", "train", "--config", TINY, "--backend", "rllib", *sets]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    first = json.loads((cfg.run_dir / "summary.json").read_text())
    first["output"] = (done.stdout, done.stderr)
    first["fingerprint"] = training_fingerprint.fingerprint(cfg.run_dir)
    state1 = json.loads((cfg.run_dir / "checkpoint" / "state.json").read_text())
    second = train(cfg.replace(total_steps=512), resume=True, progress=False)
    return cfg, first, state1, second, time.time() - t


def test_the_run_directory_has_every_file_it_had_before_the_training_core(tiny_run):
    """Every file the rllib run directory had before the backend moved onto training/core.py (issue 31). The
    weights are not compared: RLlib's first PPO iteration has two outcomes for one seed here (a start-up race
    between Ray's env runner and the learner, seen with the code before the move too; docs/training.md). Since the
    env runners step the batched env (issue 26: single-agent RLlib) the module's directory is RLlib's
    ``default_policy`` instead of ``main``: the fixture names it so."""
    _, first, *_ = tiny_run
    golden = json.loads((ROOT / "tests" / "fixtures" / "training-tiny.json").read_text())["rllib"]
    later = {"pool/snapshot-000000512.json", "pool/snapshot-000000512.npz"}  # this run stops at 256 steps
    assert set(golden["files"]) - later <= set(first["fingerprint"]["files"])


def test_the_command_line_run_says_what_it_does_and_keeps_rays_noise_in_a_log(tiny_run):
    """issue 28: the tiny config runs on RLlib as it is (behaviour cloning switched off with a note), and piped
    output is the run's own lines only: no Ray warnings, no core_worker lines, no colour codes, no nan."""
    cfg, first, *_ = tiny_run
    out, err = first["output"]
    assert out.startswith("note: backend 'rllib' does not clone behaviour: bc_games = 2 is switched off")
    lines = (out + err).splitlines()
    assert any(line.startswith("tiny: rules core-2p, RLlib ") for line in lines)
    assert [line.split(":")[0] for line in err.splitlines()] == ["step 256"], err  # one evaluation line
    assert out.splitlines()[-1].startswith("done: tiny 256 steps")
    for noise in ("\x1b[", "WARNING", "Warning", "core_worker", "(pid=", "Traceback"):
        assert noise not in out + err, noise
    assert not re.search(r"\bnan\b", out + err)
    log = (cfg.run_dir / "ray.log").read_text()
    assert "core_worker.cc" in log or "WARNING" in log, "Ray's own output went to ray.log"
    assert "\x1b[" not in log


def test_tiny_rllib_run_trains_checkpoints_and_resumes(tiny_run):
    cfg, first, state1, second, _seconds = tiny_run
    run = cfg.run_dir
    assert first["steps"] == 256 and state1["steps"] == 256 and state1["backend"]["iterations"] == 2
    assert second["steps"] == 512 and second["iterations"] == 4, "the step counter continues after --resume"
    for name in ("config.json", "evals.json", "progress.jsonl", "learning_curve.png", "summary.json", "policy.json"):
        assert (run / name).is_file(), name
    assert len(list((run / "tb").glob("events.out.tfevents.*"))) == 2, "TensorBoard logs of both invocations"
    assert (run / "checkpoint" / "algo" / "rllib_checkpoint.json").is_file()
    rows = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [r["steps"] for r in rows] == [128, 256, 384, 512]
    evals = json.loads((run / "evals.json").read_text())
    assert [e["step"] for e in evals] == [256, 512], "the first invocation's evaluation is kept"
    state = json.loads((run / "checkpoint" / "state.json").read_text())
    snapshots = state["run"]["snapshots"]
    assert [s["step"] for s in snapshots] == [256, 512]  # the pool survives the resume
    assert all(NeuralPolicy(s["path"]).num_actions == Game.new("core-2p", 0).num_actions for s in snapshots)
    with pytest.raises(RunDirError, match="already holds a run"):
        train(cfg, progress=False)
    with pytest.raises(RunDirError, match="refusing to resume"):
        train(cfg.override(["ppo.learning_rate=0.1"]), resume=True, progress=False)


def test_rllib_export_is_the_learners_policy_and_plays_through_policies_load(tiny_run):
    from ray.rllib.core.rl_module.rl_module import RLModule

    cfg, *_ = tiny_run
    bot = policies.load(str(cfg.run_dir / "policy"))
    assert isinstance(bot, NeuralPolicy) and bot.kind == "mlp"
    assert bot.manifest.data["training"]["backend"] == "rllib" and bot.manifest.data["training"]["steps"] == 512
    module = RLModule.from_checkpoint(
        cfg.run_dir / "checkpoint" / "algo" / "learner_group" / "learner" / "rl_module" / "default_policy"
    )
    game = Game.new("core-2p", 4)
    encoder = Encoder(game.config)
    checked = 0
    while not game.is_terminal() and checked < 30:
        obs = encoder.encode(game, game.current_player)
        mask = game.legal_action_mask()
        batch = {
            "obs": {
                "observation": torch.as_tensor(obs[None]),
                "action_mask": torch.as_tensor(mask[None].astype(np.int8)),
            }
        }
        logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        assert np.all(logits[~mask] == MASKED_LOGIT), "illegal actions are masked in the module"
        np.testing.assert_allclose(logits[mask], bot.logits(obs)[mask], rtol=1e-4, atol=1e-5)
        assert int(np.argmax(logits)) == bot.act(game)
        game.apply(bot.act(game))
        checked += 1
    result = play_game("core-2p", [bot, policies.load("random", seed=1)], seed=7)
    assert result is not None
    match = play_match("core-2p", [str(cfg.run_dir / "policy"), "random"], games=2, seed=1)
    assert match.entrants[0].games == 2


def test_train_command_with_backend_rllib_reports_config_errors_cleanly(capsys, tmp_path):
    from training.cli import main

    # The shipped 2-player config trains the spatial network with behaviour cloning: sb3 only.
    assert main(["--config", "configs/train/ppo-core-2p.toml", "--backend", "rllib", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: backend 'rllib' trains the mlp network only") and "Traceback" not in err
    args = ["--config", TINY, "--backend", "rllib", "--set", f'runs_dir="{tmp_path}"']
    assert main([*args, "--resume"]) == 2
    assert "cannot resume" in capsys.readouterr().err


def test_the_ppo_config_maps_the_training_config():
    from training.rllib.algo import build_config

    cfg = TrainConfig.load(TINY).override(['backend="rllib"', "bc_games=0", "n_envs=4"])
    config = build_config(cfg, RulesConfig.resolve("core-4p"))
    assert config.env is PoolVectorEnv and config.num_envs_per_env_runner == 4
    assert config.gym_env_vectorize_mode == "vector_entry_point"
    assert config.train_batch_size_per_learner == cfg.ppo.n_steps * cfg.n_envs
    assert config.rollout_fragment_length == cfg.ppo.n_steps
    assert (config.minibatch_size, config.num_epochs, config.clip_param) == (64, 1, cfg.ppo.clip_range)


def test_init_policy_starts_the_module_from_an_exported_policy(tiny_run):
    from training.rllib.module import MaskedMLPModule

    cfg, *_ = tiny_run
    path = str(cfg.run_dir / "policy")
    env = _env(num_envs=1)
    space, actions = env.single_observation_space, env.single_action_space
    model_config = {"hidden": list(cfg.net_arch), "activation": cfg.activation, "init_policy": path}
    module = MaskedMLPModule(observation_space=space, action_space=actions, model_config=model_config)
    o, _ = env.reset(seed=9)
    batch = {"obs": {k: torch.as_tensor(v) for k, v in o.items()}}
    logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    mask = o["action_mask"][0].astype(bool)
    expected = NeuralPolicy(path).logits(o["observation"][0])[mask]
    np.testing.assert_allclose(logits[mask], expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="layer 0"):
        MaskedMLPModule(observation_space=space, action_space=actions, model_config={**model_config, "hidden": [16]})


def test_without_ray_the_train_command_says_which_extra_to_install(monkeypatch, capsys):
    import sys

    from training.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    monkeypatch.delitem(sys.modules, "training.rllib.trainer")
    assert main(["--config", TINY, "--backend", "rllib"]) == 2
    assert "pip install -e '.[rllib]'" in capsys.readouterr().err


def test_the_run_identity_records_the_encoder_version_of_the_rules_layout():
    """An RLlib bot records the per-layout encoder version the policy loader checks (engine-redesign issue),
    so a bot trained on EXP-01 rules loads."""
    from bc_env.encoding import encoder_version
    from bc_env.rules import RulesConfig
    from training.rllib.trainer import identity

    cfg = TrainConfig.load(TINY).override(['backend="rllib"', "bc_games=0"])
    for preset in ("core-2p", "exp01-4p"):
        rules = RulesConfig.preset(preset)
        assert identity(cfg, rules)["encoder_version"] == encoder_version(rules)
    assert identity(cfg, RulesConfig.preset("exp01-4p"))["encoder_version"] == "2+EXP-01.1"
