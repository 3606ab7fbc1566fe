"""``balance_control_v0`` as an RLlib ``MultiAgentEnv``: the turn-based AEC game in RLlib's multi-agent API.

Like RLlib's ``PettingZooEnv`` wrapper, the env returns an observation only for the agent to act next (the owner
of the engine's pending decision; one turn is several decisions of the same agent) and, when the game ends, the
terminal observation and reward of every agent that played. Unlike it, not every seat is an RLlib agent: at each
reset the env draws who plays each seat (:class:`SeatSampler`):

* one seat (rotating over the episodes) is always the learner;
* every other seat is, independently, the random bot (``pool.p_random``), the heuristic bot (``pool.p_heuristic``)
  or, with the rest of the probability, the learning policy itself (``rllib.p_self`` of that share: live self-play,
  an RLlib agent too) or a frozen snapshot of it (an exported NumPy policy, as in the sb3 trainer's pool).

Bot seats are played inside ``step`` (and ``reset``), so RLlib only ever sees the learner's decisions. The agent
ids are the AEC env's (``player_<seat>``), so a policy mapping by seat works (``rllib.policies = "per_seat"``).
"""

from __future__ import annotations

import random
from typing import Any

from ray.rllib.env.multi_agent_env import MultiAgentEnv

import bc_env
from bc_env.rules import RulesConfig
from policies.base import Policy

from ..config import PoolConfig
from ..pool import PoolSampler

#: Marks a seat played by the learning policy (an RLlib agent).
LEARNER = "learner"


class SeatSampler(PoolSampler):
    """Who plays the opponent seats of an episode; one per env, with its own seeded RNG. The SB3 trainer's
    sampler (the same snapshot cache and draws), plus live self-play: a share ``p_self`` of the snapshot seats,
    and all of them before the first snapshot, is the learning policy itself."""

    def __init__(self, pool: PoolConfig, p_self: float, seed: int) -> None:
        super().__init__(pool, seed)
        self.p_self = p_self

    def sample(self) -> Policy | str:
        """A bot, or :data:`LEARNER` for a seat of the learning policy."""
        c = self.config
        x = self.rng.random()
        if x < c.p_random:
            return self._random
        if x < c.p_random + c.p_heuristic:
            return self._heuristic
        if not self.snapshots or self.rng.random() < self.p_self:
            return LEARNER
        if len(self.snapshots) == 1 or self.rng.random() < c.p_latest:
            return self._snapshot(self.snapshots[-1])
        return self._snapshot(self.snapshots[self.rng.randrange(len(self.snapshots) - 1)])


class BalanceControlMultiAgentEnv(MultiAgentEnv):
    """``env_config``: ``rules`` (a ``RulesConfig.to_dict()``), ``reward`` (scheme), ``pool`` (a ``PoolConfig`` as
    a dict), ``p_self`` and ``seed``. RLlib adds ``worker_index`` and ``vector_index``, which make each copy's
    seed distinct, so the run is reproducible for a given number of env runners and envs per runner."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        worker = int(getattr(config, "worker_index", 0))  # attributes of RLlib's EnvContext, lost by dict()
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        rules = RulesConfig.from_dict(config["rules"]) if "rules" in config else RulesConfig.resolve("core-2p")
        self.aec = bc_env.env(rules, reward_scheme=config.get("reward", "zero_sum"))
        self.players = rules.players
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = []
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self.seed0 = int(config.get("seed", 0)) + 1000 * worker + vector
        pool = PoolConfig(**config["pool"]) if "pool" in config else PoolConfig()
        self.sampler = SeatSampler(pool, float(config.get("p_self", 0.5)), self.seed0)
        self.rng = random.Random(self.seed0)
        self.episode = 0  # the learner's seat rotates with the episodes
        self.seats: list[Policy | str] = []
        self.acted: list[str] = []

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        self.sampler.set_snapshots(snapshots)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self.rng = random.Random(seed)
            self.sampler.rng = random.Random(seed * 7919 + 17)  # another stream than the games'
        learner_seat = self.episode % self.players
        self.episode += 1
        self.seats = [LEARNER if s == learner_seat else self.sampler.sample() for s in range(self.players)]
        self.aec.reset(seed=self.rng.getrandbits(62))
        self.acted = []
        self.agents = [a for a, who in zip(self.possible_agents, self.seats) if who == LEARNER]
        obs, _, _, infos = self._advance()
        return obs, infos

    def _advance(self) -> tuple[dict, dict, dict, dict]:
        """Let the bots play until a learner seat decides or the game ends; the observation dicts of that point."""
        aec = self.aec
        game = aec.game
        assert game is not None
        while not all(aec.terminations.values()):
            seat = game.current_player
            who = self.seats[seat]
            agent = self.possible_agents[seat]
            if who == LEARNER:
                if agent not in self.acted:
                    self.acted.append(agent)
                return {agent: aec.observe(agent)}, {}, {"__all__": False}, {}
            aec.step(who.act(game))  # type: ignore[union-attr]
        # The game is over: every learner agent that played gets its terminal observation and reward.
        obs = {a: aec.observe(a) for a in self.acted}
        rewards = {a: float(aec.rewards[a]) for a in self.acted}
        terminated = {a: True for a in self.acted}
        terminated["__all__"] = True
        infos = {a: {"winners": aec.infos[a].get("winners", [])} for a in self.acted}
        return obs, rewards, terminated, infos

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        game = self.aec.game
        assert game is not None
        agent = self.possible_agents[game.current_player]
        if agent not in action_dict:
            raise ValueError(f"step: {agent} is to act, got actions for {sorted(action_dict)}")
        self.aec.step(int(action_dict[agent]))
        obs, rewards, terminated, infos = self._advance()
        rewards.setdefault(agent, 0.0)
        return obs, rewards, terminated, {"__all__": False}, infos
