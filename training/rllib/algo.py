"""The RLlib PPO configuration of a run, built from a :class:`training.config.TrainConfig`.

The ``[ppo]`` table maps onto RLlib's PPO one to one (RLlib name in brackets): learning_rate (lr), n_steps * n_envs
(train_batch_size_per_learner: the steps sampled per update, as sb3's rollout), batch_size (minibatch_size),
n_epochs (num_epochs), gamma, gae_lambda (lambda_), clip_range (clip_param), ent_coef (entropy_coeff), vf_coef
(vf_loss_coeff), max_grad_norm (grad_clip, by global norm). Like sb3's PPO there is no KL penalty and no value
clipping. Each of ``rllib.num_env_runners`` env runners steps one batched env of ``n_envs`` games
(:class:`.env.PoolVectorEnv`, RLlib's ``gym_env_vectorize_mode = "vector_entry_point"``).
"""

from __future__ import annotations

from dataclasses import asdict

from gymnasium import VectorizeMode
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from bc_env.rules import RulesConfig

from ..config import TrainConfig
from .env import PoolVectorEnv
from .module import MaskedMLPModule

#: The one trained module (RLlib's name for the module of a single-agent algorithm).
MODULE_ID = DEFAULT_MODULE_ID


def build_config(
    cfg: TrainConfig, rules: RulesConfig, *, num_gpus_per_learner: float = 0, init_policy: str = ""
) -> PPOConfig:
    p = cfg.ppo
    model_config = {"hidden": list(cfg.net_arch), "activation": cfg.activation, "init_policy": init_policy}
    env_config = {"rules": rules.to_dict(), "reward": cfg.reward, "pool": asdict(cfg.pool), "seed": cfg.seed}
    rollout = p.n_steps * cfg.n_envs
    runners = max(cfg.rllib.num_env_runners, 1)
    return (
        PPOConfig()
        .environment(PoolVectorEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=cfg.rllib.num_env_runners,
            num_envs_per_env_runner=cfg.n_envs,
            gym_env_vectorize_mode=VectorizeMode.VECTOR_ENTRY_POINT.value,
            rollout_fragment_length=max(1, rollout // (runners * cfg.n_envs)),
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.rllib.num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule, model_config=model_config))
        .training(
            lr=p.learning_rate,
            train_batch_size_per_learner=rollout,
            minibatch_size=p.batch_size,
            num_epochs=p.n_epochs,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            kl_coeff=0.0,
            vf_clip_param=float("inf"),
        )
        .reporting(metrics_num_episodes_for_smoothing=100)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
