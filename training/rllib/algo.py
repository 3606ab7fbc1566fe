"""The RLlib PPO configuration of a run, built from a :class:`training.config.TrainConfig`.

The ``[ppo]`` table maps onto RLlib's PPO one to one (RLlib name in brackets): learning_rate (lr), n_steps * n_envs
(train_batch_size_per_learner: the steps sampled per update, as sb3's rollout), batch_size (minibatch_size),
n_epochs (num_epochs), gamma, gae_lambda (lambda_), clip_range (clip_param), ent_coef (entropy_coeff), vf_coef
(vf_loss_coeff), max_grad_norm (grad_clip, by global norm). Like sb3's PPO there is no KL penalty and no value
clipping. ``n_envs`` environments are stepped by each of ``rllib.num_env_runners`` env runners.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from bc_env.rules import RulesConfig

from ..config import TrainConfig
from .env import BalanceControlMultiAgentEnv
from .module import MaskedMLPModule


def module_ids(cfg: TrainConfig, players: int) -> list[str]:
    """The trained policies: ``main`` (one shared policy) or ``seat_<i>`` (one per seat)."""
    return ["main"] if cfg.rllib.policies == "shared" else [f"seat_{i}" for i in range(players)]


def policy_mapping(policies: str):  # type: ignore[no-untyped-def]
    """Agent ``player_<i>`` -> its module: ``main`` for all, or ``seat_<i>``."""
    if policies == "shared":
        return _shared
    return _per_seat


def _shared(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return "main"


def _per_seat(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return "seat_" + agent_id.rsplit("_", 1)[1]


def build_config(
    cfg: TrainConfig, rules: RulesConfig, *, num_gpus_per_learner: float = 0, init_policy: str = ""
) -> PPOConfig:
    p = cfg.ppo
    ids = module_ids(cfg, rules.players)
    model_config = {"hidden": list(cfg.net_arch), "activation": cfg.activation, "init_policy": init_policy}
    env_config = {
        "rules": rules.to_dict(),
        "reward": cfg.reward,
        "pool": asdict(cfg.pool),
        "p_self": cfg.rllib.p_self,
        "seed": cfg.seed,
    }
    rollout = p.n_steps * cfg.n_envs
    runners = max(cfg.rllib.num_env_runners, 1)
    return (
        PPOConfig()
        .environment(BalanceControlMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=cfg.rllib.num_env_runners,
            num_envs_per_env_runner=cfg.n_envs,
            rollout_fragment_length=max(1, rollout // (runners * cfg.n_envs)),
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=cfg.rllib.num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(
            policies=set(ids),
            policy_mapping_fn=policy_mapping(cfg.rllib.policies),
            policies_to_train=ids,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    mid: RLModuleSpec(module_class=MaskedMLPModule, model_config=model_config) for mid in ids
                }
            )
        )
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
