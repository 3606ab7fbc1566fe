"""``LearnerVectorEnv``: a Gymnasium ``VectorEnv`` over :class:`SelfPlayVectorEnv`, one learner seat per game.

The opponents are objects with ``act(game) -> action`` (``policies.base.Policy``: pass ``policies.load("heuristic")``
or a trained bot; ``bc_env`` never imports ``policies``), called for the other seats inside :meth:`step` until the
learner is to move again in every game, so each row of ``obs`` is a decision of the learner.

* ``opponents``: ``None`` (uniformly random legal actions from the env's RNG), one object for every other seat, a
  list of ``players - 1`` objects for the relative seats 1..n-1 (turn order after the learner), or a callable
  without ``act`` (e.g. drawing from an opponent pool), called with no argument for every new game (in slot order
  at ``reset``, then in slot order for the games that start in a step) and returning one object or such a list for
  that game, as ``bc_env.env.SingleAgentEnv`` calls it per episode.
* ``learner_seat``: ``"rotate"`` (default: the k-th game of slot i plays seat ``(i + k) % players``) or a seat.
* Rewards: 0 until a game ends, then the learner's terminal reward (``reward_scheme``). A game ends by termination
  only (never truncated), so no final observation is needed to bootstrap from.
* ``autoreset_mode``: ``AutoresetMode.SAME_STEP`` (default): the row of a finished game already holds the learner's
  first observation of the next game; the arrays returned are the batched env's own, written in place.
  ``AutoresetMode.NEXT_STEP`` (Gymnasium's default, what RLlib's env runners expect): the step that ends a game
  returns the learner's final observation of it (its mask all False), the next step ignores that row's action and
  returns the learner's first observation of the next game (reward 0, not terminated); the observations and masks
  are then copies in arrays of this view, also written in place (copy what you keep).
* Masks: :meth:`action_masks` (``(N, num_actions)`` bool, as sb3-contrib's ``MaskablePPO`` asks for) and
  ``infos["action_mask"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from bc_env.env.errors import EnvOptionError
from bc_env.rules import RulesConfig

from .core import SelfPlayVectorEnv


class _Random:
    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, game: Any) -> int:
        legal = game.legal_actions()
        return int(legal[int(self.rng.integers(len(legal)))])


class LearnerVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[type-arg]
    """One learner seat per game against opponent objects; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        config: RulesConfig | str | Path,
        num_envs: int,
        opponents: Any = None,
        seed: int | None = None,
        *,
        learner_seat: int | str = "rotate",
        reward_scheme: str = "zero_sum",
        autoreset_mode: AutoresetMode = AutoresetMode.SAME_STEP,
    ) -> None:
        self.core = core = SelfPlayVectorEnv(config, num_envs, seed, reward_scheme=reward_scheme)
        self.num_envs = n = core.num_envs
        self.config = core.config
        P = core.num_players
        if learner_seat != "rotate" and not (
            isinstance(learner_seat, int) and not isinstance(learner_seat, bool) and 0 <= learner_seat < P
        ):
            raise EnvOptionError(f"learner_seat must be 'rotate' or a seat in 0..{P - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        self._opp_rng = np.random.default_rng(None if seed is None else seed + 1)
        if opponents is None:
            opponents = _Random(self._opp_rng)
        #: The callable that draws each new game's opponents, or None (the same ``opponents`` in every game).
        self.draw_opponents: Any = None
        if callable(opponents) and not hasattr(opponents, "act") and not isinstance(opponents, str | Path):
            self.draw_opponents = opponents
            self.opponents: list[Any] = []
        else:
            self.opponents = self._opponent_list(opponents)
        #: The opponents of each slot's game, by relative seat 1..n-1 (``slot_opponents[i][k - 1]``).
        self.slot_opponents: list[list[Any]] = [self.opponents] * n
        if autoreset_mode not in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
            raise EnvOptionError(f"autoreset_mode must be AutoresetMode.SAME_STEP or NEXT_STEP, got {autoreset_mode!r}")
        self.autoreset_mode = autoreset_mode
        self.metadata = {"autoreset_mode": autoreset_mode}
        enc = core.encoder
        self.single_observation_space = spaces.Box(enc.low, enc.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.seat = np.zeros(n, dtype=np.int64)
        self._episodes = np.zeros(n, dtype=np.int64)
        self._reward = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=np.bool_)
        if autoreset_mode == AutoresetMode.NEXT_STEP:
            self._obs = np.zeros_like(core.obs)
            self._mask = np.zeros_like(core.mask)
            self._pending = np.zeros(n, dtype=np.bool_)  # rows whose next step starts the next game
            self._final_encoder = core.encoder.fork()
        else:
            self._obs, self._mask = core.obs, core.mask

    def _opponent_list(self, opponents: Any) -> list[Any]:
        P = self.core.num_players
        if isinstance(opponents, list | tuple):
            if len(opponents) != P - 1:
                raise EnvOptionError(
                    f"opponents: a list needs {P - 1} entries (one per other seat), got {len(opponents)}"
                )
            out = list(opponents)
        else:
            out = [opponents] * (P - 1)
        for o in out:
            if not callable(getattr(o, "act", None)):
                raise EnvOptionError(f"an opponent is an object with act(game) -> action, got {o!r}")
        return out

    def _draw(self, rows: Any) -> None:
        """The opponents of the new games in ``rows`` (slot order), from :attr:`draw_opponents`."""
        if self.draw_opponents is not None:
            for i in rows:
                self.slot_opponents[i] = self._opponent_list(self.draw_opponents())

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game (``(N, num_actions)`` bool; the env's own array)."""
        return self._mask

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self._opp_rng = np.random.default_rng(seed + 1)
            for o in self.opponents:
                if isinstance(o, _Random):
                    o.rng = self._opp_rng
        self.core.reset(seed)
        self._episodes.fill(0)
        self.seat[:] = self._seat_of(np.arange(self.num_envs))
        self._draw(range(self.num_envs))
        self._terminated.fill(False)
        self._advance(self._reward, self._terminated)
        self._reward.fill(0.0)
        self._terminated.fill(False)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._pending.fill(False)
            np.copyto(self._obs, self.core.obs)
            np.copyto(self._mask, self.core.mask)
        return self._obs, {"action_mask": self._mask}

    def _seat_of(self, slots: np.ndarray) -> np.ndarray:
        if self.learner_seat == "rotate":
            return (slots + self._episodes[slots]) % self.core.num_players
        return np.full(len(slots), self.learner_seat, dtype=np.int64)

    def _ended(self, reward: np.ndarray, terminated: np.ndarray) -> None:
        """Book the games that ended in the last core step (the learner's reward, next seat) and clear ``done``."""
        core = self.core
        rows = np.flatnonzero(core.done)
        if len(rows):
            reward[rows] = core.rewards[rows, self.seat[rows]]
            terminated[rows] = True
            if self.autoreset_mode == AutoresetMode.NEXT_STEP:  # the learner's final observation of the game
                for i in rows.tolist():
                    game = core.ended[i]
                    assert game is not None
                    self._final_encoder.encode_into(game, int(self.seat[i]), self._obs[i])
            self._episodes[rows] += 1
            self.seat[rows] = self._seat_of(rows)
            self._draw(rows.tolist())
            core.done.fill(False)
            core.rewards.fill(0.0)

    def _advance(self, reward: np.ndarray, terminated: np.ndarray) -> None:
        """Let the opponents move until the learner is to move in every game."""
        core = self.core
        P = core.num_players
        while True:
            rows = np.flatnonzero(core.to_move != self.seat)
            if not len(rows):
                return
            games = core.games
            opp = self.slot_opponents
            acts = [opp[i][(int(core.to_move[i]) - int(self.seat[i])) % P - 1].act(games[i]) for i in rows.tolist()]
            core.step_slots(rows, np.asarray(acts, dtype=np.int64))
            if core.done.any():
                self._ended(reward, terminated)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self.core
        reward, terminated = self._reward, self._terminated
        reward.fill(0.0)
        terminated.fill(False)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            core.step(actions)
            self._ended(reward, terminated)
            self._advance(reward, terminated)
            infos = {"action_mask": core.mask}
            return core.obs, reward, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos
        # NEXT_STEP: the rows of games that ended in the last step show the next game's start, unstepped.
        live = np.flatnonzero(~self._pending)
        if len(live) == self.num_envs:
            core.step(actions)
        else:
            core.step_slots(live, np.asarray(actions)[live])
        self._ended(reward, terminated)  # writes the final observations of the games that ended
        self._advance(reward, terminated)
        show = np.flatnonzero(~terminated)
        self._obs[show] = core.obs[show]
        self._mask[show] = core.mask[show]
        self._mask[terminated] = False
        np.copyto(self._pending, terminated)
        infos = {"action_mask": self._mask}
        return self._obs, reward, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def close_extras(self, **kwargs: Any) -> None:
        pass
