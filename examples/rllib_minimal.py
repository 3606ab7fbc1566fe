"""Ray RLlib: one PPO iteration with the project's batched env and masked module, on a local Ray.

    python examples/rllib_minimal.py          # needs the rllib extra: pip install -e '.[rllib]'

``balance-control train --backend rllib --config ...`` is the full run (snapshots, evaluation, checkpoints, export;
docs/training.md); this shows the pieces: ``training.rllib.algo.build_config`` turns a training config into RLlib's
``PPOConfig`` whose env runner steps one ``PoolVectorEnv`` (``bc_env.vector.LearnerVectorEnv``: ``n_envs`` games
in one batched env, the learner in one seat of each, bots from the opponent pool in the others).
"""

from __future__ import annotations

import logging

import ray

from bc_env.rules import RulesConfig
from training.config import TrainConfig
from training.rllib.algo import build_config


def main() -> None:
    cfg = TrainConfig.load("configs/train/tiny.toml").override(
        ['backend="rllib"', "bc_games=0", "ppo.n_steps=64", "ppo.batch_size=32", "rllib.num_env_runners=0"]
    )
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # RLlib's notes about its API stacks
    ray.init(num_cpus=1, object_store_memory=100_000_000, include_dashboard=False, logging_level="ERROR")
    try:
        algo = build_config(cfg, RulesConfig.resolve(cfg.rules)).build_algo()
        result = algo.train()  # sample 64 decisions, then one PPO update
        steps = result["num_env_steps_sampled_lifetime"]
        print(f"one RLlib PPO iteration on {cfg.rules}: {steps} environment steps sampled and learned from")
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
