"""A CleanRL-style single-file PPO loop on the batched environment (``bc_env.vector``): 8 games of core-2p in one
``LearnerVectorEnv`` (the learner in one seat, uniformly random opponents in the others), masked actions, GAE, the
clipped surrogate. A few iterations, seconds on a CPU; the full trainer is ``--backend selfplay``
(docs/training.md). Run from the repository root: ``python examples/cleanrl_vector.py`` (needs ``.[train]``)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from bc_env.vector import LearnerVectorEnv

NUM_ENVS, NUM_STEPS, ITERATIONS, EPOCHS, MINIBATCHES = 8, 64, 3, 2, 4
GAMMA, GAE_LAMBDA, CLIP, ENT_COEF, VF_COEF, LR = 0.99, 0.95, 0.2, 0.01, 0.5, 3e-4


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, 64), nn.Tanh(), layer(64, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_dim, 64), nn.Tanh(), layer(64, num_actions, 0.01))

    def get_action_and_value(self, obs, mask, action=None):
        logits = self.actor(obs).masked_fill(~mask, -1e9)  # illegal actions get no probability
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(obs).squeeze(1)


def main() -> None:
    torch.manual_seed(0)
    envs = LearnerVectorEnv("core-2p", NUM_ENVS, seed=0)
    obs_dim, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_dim, num_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=LR, eps=1e-5)
    obs_b = torch.zeros((NUM_STEPS, NUM_ENVS, obs_dim))
    mask_b = torch.zeros((NUM_STEPS, NUM_ENVS, num_actions), dtype=torch.bool)
    act_b, logp_b, rew_b, done_b, val_b = (torch.zeros((NUM_STEPS, NUM_ENVS)) for _ in range(5))
    obs, _ = envs.reset(seed=0)
    next_obs, next_done = torch.tensor(obs), torch.zeros(NUM_ENVS)
    games, total = 0, 0.0
    for iteration in range(1, ITERATIONS + 1):
        for t in range(NUM_STEPS):  # one call steps every game: the learner's move, then the opponents'
            obs_b[t], done_b[t] = next_obs, next_done
            mask_b[t] = torch.tensor(envs.action_masks())
            with torch.no_grad():
                action, logp, _, value = agent.get_action_and_value(next_obs, mask_b[t])
            act_b[t], logp_b[t], val_b[t] = action, logp, value
            obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            rew_b[t] = torch.tensor(reward)
            next_obs, next_done = torch.tensor(obs), torch.tensor(terminated | truncated, dtype=torch.float32)
            games, total = games + int(terminated.sum()), total + float(reward[terminated].sum())
        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.get_action_and_value(next_obs, torch.tensor(envs.action_masks()))[3]
            adv_b, last = torch.zeros_like(rew_b), torch.zeros(NUM_ENVS)
            for t in reversed(range(NUM_STEPS)):
                not_done = 1.0 - (next_done if t == NUM_STEPS - 1 else done_b[t + 1])
                following = next_value if t == NUM_STEPS - 1 else val_b[t + 1]
                delta = rew_b[t] + GAMMA * following * not_done - val_b[t]
                adv_b[t] = last = delta + GAMMA * GAE_LAMBDA * not_done * last
            ret_b = adv_b + val_b
        b_obs, b_mask = obs_b.reshape(-1, obs_dim), mask_b.reshape(-1, num_actions)
        b_act, b_logp, b_adv, b_ret = act_b.reshape(-1).long(), logp_b.reshape(-1), adv_b.reshape(-1), ret_b.reshape(-1)
        size = NUM_STEPS * NUM_ENVS
        for _ in range(EPOCHS):  # the PPO update: clipped surrogate, value loss, entropy bonus
            for mb in torch.randperm(size).split(size // MINIBATCHES):
                _, logp, entropy, value = agent.get_action_and_value(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - CLIP, 1 + CLIP)).mean()
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                loss = pg_loss - ENT_COEF * entropy.mean() + VF_COEF * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        print(
            f"iteration {iteration}: {games} games finished, mean reward {total / max(games, 1):+.2f}; "
            f"policy loss {pg_loss.item():+.4f}, value loss {v_loss.item():.4f}"
        )
    envs.close()
    print(f"trained {ITERATIONS * size} learner steps on {NUM_ENVS} batched games")


if __name__ == "__main__":
    main()
