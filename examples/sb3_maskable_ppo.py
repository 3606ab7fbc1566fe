"""sb3-contrib's MaskablePPO on the registered Gymnasium id, for a few hundred steps (the API, not a strong bot:
see docs/training.md for the real recipe), then one game against the random bot.

    python examples/sb3_maskable_ppo.py [STEPS]          # needs the train extra: pip install -e '.[train]'
"""

from __future__ import annotations

import sys

import gymnasium
from sb3_contrib import MaskablePPO

import bc_env  # registers "balance_control/BalanceControl-v0" with Gymnasium


def main(steps: int = 128) -> None:
    # One learner seat against random opponents played inside step(); action_masks() is the env's own method.
    env = gymnasium.make(bc_env.GYMNASIUM_ID, config="core-2p")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [32]}, seed=0, device="cpu"
    )
    model.learn(total_timesteps=steps)
    obs, info = env.reset(seed=1)
    done, reward = False, 0.0
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, reward, done, truncated, info = env.step(action)
    print(f"trained {model.num_timesteps} steps; a game against random as seat {info['learner_seat']}: reward {reward}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
