"""The PettingZoo AEC loop: every seat plays a uniformly random legal action until the game ends.

python examples/pettingzoo_loop.py [PRESET] [SEED]
"""

from __future__ import annotations

import sys

import numpy as np

from bc_env import balance_control_v0


def main(preset: str = "core-4p", seed: int = 0) -> None:
    env = balance_control_v0.env(config=preset)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None  # each agent steps None once at the end (PettingZoo's dead-step protocol)
        else:
            legal = np.flatnonzero(observation["action_mask"])  # the engine's legal actions for this agent
            action = int(rng.choice(legal))
            decisions[agent] += 1
        env.step(action)
    env.close()
    game = env.game
    print(f"{preset}, seed {seed}: {sum(decisions.values())} decisions, {game.round} rounds; per agent {decisions}")
    print(f"winners: {', '.join(f'player_{p}' for p in game.winners())}; returns {game.returns()}")


if __name__ == "__main__":
    main(*(f(a) for f, a in zip((str, int), sys.argv[1:])))
