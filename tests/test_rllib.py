"""The Ray RLlib backend (training/rllib): the multi-agent env, the masked module, and a tiny run on local Ray end to
end (train, checkpoint, resume, export, load, play)."""

from __future__ import annotations

import hashlib
import importlib.util
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
from benchmarking.runner import play_game, play_match  # noqa: E402
from policies.neural import NeuralPolicy  # noqa: E402
from training.config import PoolConfig, TrainConfig, TrainConfigError  # noqa: E402
from training.rllib.env import LEARNER, BalanceControlMultiAgentEnv  # noqa: E402
from training.rllib.module import MASKED_LOGIT  # noqa: E402
from training.rllib.trainer import RunDirError, train  # noqa: E402

TINY = "configs/train/tiny.toml"
ROOT = Path(__file__).resolve().parent.parent


def _env(players: str = "core-2p", **pool: float) -> BalanceControlMultiAgentEnv:
    rules = RulesConfig.resolve(players).to_dict()
    return BalanceControlMultiAgentEnv(
        {"rules": rules, "pool": asdict(PoolConfig(**pool)), "p_self": 1.0, "seed": 5, "reward": "zero_sum"}
    )


def _play_out(env: BalanceControlMultiAgentEnv, obs: dict) -> tuple[dict, dict, list[str]]:
    """Step the env with the first legal action until the game ends; the final rewards and the agents that acted."""
    actors: list[str] = []
    while True:
        assert len(obs) == 1, "one observation: the agent to act"
        (agent, o), *_ = obs.items()
        assert o["action_mask"].any() and env.aec.game.current_player == int(agent.split("_")[1])
        actors.append(agent)
        obs, rewards, terminated, truncated, _ = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
        assert not truncated["__all__"]
        if terminated["__all__"]:
            return obs, rewards, actors


def test_env_seats_bots_inside_and_learner_agents_outside():
    env = _env(p_random=1.0, p_heuristic=0.0)  # the opponent is always the random bot, played inside the env
    for episode in range(2):
        obs, _ = env.reset(seed=11) if episode == 0 else env.reset()
        learner = env.possible_agents[episode % 2]  # the learner's seat rotates
        assert env.seats[episode % 2] == LEARNER and env.seats[1 - episode % 2] != LEARNER
        final_obs, rewards, actors = _play_out(env, obs)
        assert set(actors) == {learner} and set(rewards) == {learner} and set(final_obs) == {learner}
        game = env.aec.game
        assert game.is_terminal() and rewards[learner] == game.returns()[episode % 2]
        assert not final_obs[learner]["action_mask"].any()


def test_env_live_self_play_makes_every_seat_an_agent():
    env = _env("core-4p", p_random=0.0, p_heuristic=0.0)  # no snapshots yet and p_self = 1: all learner seats
    obs, _ = env.reset(seed=3)
    assert env.seats == [LEARNER] * 4
    final_obs, rewards, actors = _play_out(env, obs)
    assert set(actors) == set(rewards) == set(final_obs) == set(env.possible_agents)
    assert [rewards[a] for a in env.possible_agents] == list(env.aec.game.returns())


#: The digest of the trace below. Importing Ray takes ~7 s of CPU, so the determinism across processes and hash
#: seeds is checked against this recorded value rather than in a fresh process (tests/crossproc.py). It changes
#: only when the env, the encoder, the engine or the pool's bots change what they do for a seed: then re-record it.
ENV_TRACE_DIGEST = "08f7e31032c1340f9d02f8aeb611e4d2c275c0b83b9bb812bd9fddaca5cb0fce"


def test_env_is_reproducible_from_its_seed():
    def trace() -> str:
        env = _env(p_random=0.5, p_heuristic=0.5)
        obs, _ = env.reset(seed=2)
        h = hashlib.sha256()
        for _ in range(60):
            (agent, o), *_ = obs.items()
            action = int(np.flatnonzero(o["action_mask"])[-1])
            h.update(f"{agent}:{action}:".encode() + o["observation"].tobytes() + o["action_mask"].tobytes())
            obs, _, term, _, _ = env.step({agent: action})
            if term["__all__"]:
                obs, _ = env.reset()
        return h.hexdigest()

    first = trace()
    assert first == trace()  # the env keeps no state between episodes of the same seed
    assert first == ENV_TRACE_DIGEST  # nor between processes (another hash seed, the recorded run)


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
        ('rllib.policies="league"', "policies"),
        ("rllib.p_self=2", "p_self"),
    ):
        with pytest.raises(TrainConfigError, match=msg):
            cfg.override([bad])
    assert cfg.backend == "sb3"  # the default: existing configs keep their trainer


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
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
    first["fingerprint"] = _fingerprint_tool().fingerprint(cfg.run_dir)
    state1 = json.loads((cfg.run_dir / "checkpoint" / "state.json").read_text())
    second = train(cfg.replace(total_steps=512), resume=True, progress=False)
    return cfg, first, state1, second, time.time() - t


def _fingerprint_tool():
    spec = importlib.util.spec_from_file_location("training_fingerprint", ROOT / "tools" / "training_fingerprint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_run_directory_has_every_file_it_had_before_the_training_core(tiny_run):
    """Every file the rllib run directory had before the backend moved onto training/core.py (issue 31). The
    weights are not compared: RLlib's first PPO iteration has two outcomes for one seed here (a start-up race
    between Ray's env runner and the learner, seen with the code before the move too; docs/training.md)."""
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
        cfg.run_dir / "checkpoint" / "algo" / "learner_group" / "learner" / "rl_module" / "main"
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


def test_per_seat_policies_map_each_seat_to_its_own_module():
    from training.rllib.algo import build_config

    cfg = TrainConfig.load(TINY).override(['backend="rllib"', "bc_games=0", 'rllib.policies="per_seat"'])
    config = build_config(cfg, RulesConfig.resolve("core-4p"))
    assert sorted(config.policies) == ["seat_0", "seat_1", "seat_2", "seat_3"]
    assert [config.policy_mapping_fn(f"player_{i}", None) for i in range(4)] == ["seat_0", "seat_1", "seat_2", "seat_3"]
    shared = build_config(cfg.override(['rllib.policies="shared"']), RulesConfig.resolve("core-4p"))
    assert sorted(shared.policies) == ["main"] and shared.policy_mapping_fn("player_3", None) == "main"
    assert config.train_batch_size_per_learner == cfg.ppo.n_steps * cfg.n_envs
    assert (config.minibatch_size, config.num_epochs, config.clip_param) == (64, 1, cfg.ppo.clip_range)


def test_init_policy_starts_the_module_from_an_exported_policy(tiny_run):
    from training.rllib.module import MaskedMLPModule

    cfg, *_ = tiny_run
    path = str(cfg.run_dir / "policy")
    env = _env()
    space, actions = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    model_config = {"hidden": list(cfg.net_arch), "activation": cfg.activation, "init_policy": path}
    module = MaskedMLPModule(observation_space=space, action_space=actions, model_config=model_config)
    obs, _ = env.reset(seed=9)
    (_, o), *_ = obs.items()
    batch = {"obs": {k: torch.as_tensor(v[None]) for k, v in o.items()}}
    logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    mask = o["action_mask"].astype(bool)
    np.testing.assert_allclose(logits[mask], NeuralPolicy(path).logits(o["observation"])[mask], rtol=1e-5, atol=1e-6)
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
