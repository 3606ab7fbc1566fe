"""A single-agent Gymnasium view of the game for SB3 / sb3-contrib ``MaskablePPO``.

The learner takes one seat; the opponents (anything with ``act(game) -> action``, see
``policies.base.Policy``) play the other seats inside :meth:`SingleAgentEnv.step`, so every
observation the learner sees is one of its own decisions. Several consecutive decisions by the
learner are normal (place a tile, then the Political Action, then payment choices: RULINGS R23).

Seat rule (``learner_seat``):

* ``"rotate"`` (default): episode ``k`` after the last seeded reset plays seat ``k mod n``, so
  ``reset(seed=s)`` restarts the sequence at seat 0 and seeded resets are reproducible;
* ``"random"``: a seat drawn from the env's RNG (``np_random``) at every reset;
* an int: always that seat.

Opponents (``opponents``) are objects with ``act(game) -> action`` (``policies.base.Policy``); the environment
does not know bots by name (``policies.load("heuristic", seed=0)`` makes one, as the command line and the trainers
do):

* ``None``: uniformly random legal moves drawn from the env's RNG (reproducible with the seed);
* one policy object: it plays every other seat;
* a list of ``n - 1`` policy objects: relative seats 1..n-1 (turn order after the learner);
* a callable without ``act`` (e.g. sampling from an opponent pool, or making fresh seeded bots): called at every
  reset with no argument; it returns one policy or a list of ``n - 1`` policies for that episode.

Anything else (a bot's name, an object without ``act``) raises ``EnvOptionError`` saying what to pass.

:class:`ModelOpponent` turns a trained model (e.g. a frozen copy of the learner) into a policy.

Rewards: 0 until the game ends, then the learner's terminal reward under ``reward_scheme``
(``zero_sum`` RULINGS R9, or ``margin``), also when an opponent's move ends the game. The learner's
illegal action (outside :meth:`action_masks`) ends the episode with ``illegal_reward`` by default
(``illegal_action="raise"`` raises the engine's ``IllegalActionError`` instead). An action that is not in the
action space (not an integer, a bool, out of range) always raises ``ActionOutOfBoundsError``, as in the AEC env.
Bad options raise ``EnvOptionError`` naming the option.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from bc_env.encoding import Encoder
from bc_env.rules import Game, IllegalActionError, RulesConfig

from .aec import ILLEGAL_ACTION_MODES, OBS_FORMATS, _check_choice, check_action, check_cell_px, check_reward, is_integer
from .errors import EnvOptionError
from .rewards import check_scheme, terminal_rewards

_NAME_HINT = (
    " (the environment takes bot objects: make one from a name with policies.load, e.g. "
    "opponents=policies.load('heuristic', seed=0, config=config))"
)


class _RandomOpponent:
    """Uniformly random legal action from a NumPy generator (the wrapper's ``np_random``)."""

    name = "random"

    def __init__(self, env: SingleAgentEnv) -> None:
        self._env = env

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return legal[int(self._env.np_random.integers(len(legal)))]


class ModelOpponent:
    """A policy from a model with SB3's ``predict(obs, action_masks=..., deterministic=...)``.

    It encodes the game from the deciding seat's point of view with its own :class:`Encoder`
    (seat-relative, so a model trained in any seat plays any seat).
    """

    name = "model"

    def __init__(
        self, model: Any, config: RulesConfig | str, obs_format: str = "flat", deterministic: bool = False
    ) -> None:
        self.model = model
        self.encoder = Encoder(config)
        self.obs_format = _check_choice("obs_format", obs_format, OBS_FORMATS)
        self.deterministic = deterministic

    def act(self, game: Game) -> int:
        seat = game.current_player
        assert seat is not None, "the game is over"
        vec = self.encoder.encode(game, seat)
        obs: Any = vec if self.obs_format == "flat" else self.encoder.encode_planes(game, seat)
        action, _ = self.model.predict(obs, action_masks=game.legal_action_mask(), deterministic=self.deterministic)
        return int(action)


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against fixed opponents. See the module docstring for every option."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        config: RulesConfig | str | Path = "core-2p",
        opponents: Any = None,
        *,
        learner_seat: int | str = "rotate",
        reward_scheme: str = "zero_sum",
        obs_format: str = "flat",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        cell_px: int = 32,
    ) -> None:
        self.config = RulesConfig.resolve(config)
        n = self.num_players = self.config.players
        if isinstance(learner_seat, str):
            _check_choice("learner_seat", learner_seat, ("rotate", "random"))
        elif not (is_integer(learner_seat) and 0 <= int(learner_seat) < n):
            raise EnvOptionError(
                f"learner_seat must be 'rotate', 'random' or a seat in 0..{n - 1} (an integer, not a bool), "
                f"got {learner_seat!r}"
            )
        else:
            learner_seat = int(learner_seat)
        self.learner_seat_rule = learner_seat
        self.reward_scheme = check_scheme(reward_scheme)
        self.obs_format = _check_choice("obs_format", obs_format, OBS_FORMATS)
        self.illegal_action = _check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.illegal_reward = check_reward("illegal_reward", illegal_reward)
        if render_mode is not None:
            _check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.cell_px = check_cell_px(cell_px, self.config)
        self._human: Any = None
        self._opponent_spec = self._check_opponents(opponents)
        self.encoder = enc = Encoder(self.config)
        self._num_actions = Game.new(self.config, 0).num_actions
        self.action_space = spaces.Discrete(self._num_actions)
        if self.obs_format == "flat":
            self.observation_space = spaces.Box(enc.low, enc.high, dtype=np.float32)
        else:
            bs = enc.board_size
            shape = (enc.num_channels, enc.size, enc.size)
            self.observation_space = spaces.Dict(
                {
                    "planes": spaces.Box(enc.low[:bs].reshape(shape), enc.high[:bs].reshape(shape), dtype=np.float32),
                    "vector": spaces.Box(enc.low[bs:], enc.high[bs:], dtype=np.float32),
                }
            )
        self.game: Game | None = None
        self.seat = 0
        self.episode = 0  # episodes since the last seeded reset
        self._seats: list[Any] = [None] * n
        self._done = True

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.episode = 0
        super().reset(seed=seed)
        rule = self.learner_seat_rule
        n = self.num_players
        if rule == "rotate":
            self.seat = self.episode % n
        elif rule == "random":
            self.seat = int(self.np_random.integers(n))
        else:
            self.seat = int(rule)
        self.episode += 1
        self._assign_opponents()
        while True:
            game_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**63 - 1))
            self.game_seed = game_seed
            self.game = Game.new(self.config, game_seed)
            self._play_opponents()
            if not self.game.is_terminal():
                break
            seed = None  # the game ended before the learner's first decision: deal another one
        self._done = False
        if self.render_mode == "human":
            self.render()
        return self._observe(), {"learner_seat": self.seat, "game_seed": game_seed}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        game = self.game
        if game is None or self._done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        a = check_action(action, self._num_actions, f"the learner (seat {self.seat})")
        try:
            game.apply(a)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            return self._observe(), self.illegal_reward, True, False, {"illegal_action": a}
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        if game.is_terminal():
            self._done = True
            rewards = terminal_rewards(game, self.reward_scheme)
            winners = game.winners()
            info = {
                "winners": winners,
                "learner_seat": self.seat,
                "rewards": rewards,
                "is_success": self.seat in winners and len(winners) < self.num_players,
            }
            return self._observe(), float(rewards[self.seat]), True, False, info
        return self._observe(), 0.0, False, False, {}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), for sb3-contrib's MaskablePPO (also via SubprocVecEnv)."""
        game = self.game
        if game is None or game.current_player != self.seat:
            return np.zeros(self._num_actions, dtype=bool)
        return game.legal_action_mask()

    def render(self) -> str | np.ndarray | None:
        if self.game is None:
            raise RuntimeError("reset() needs to be called before render()")
        if self.render_mode == "ansi":
            return self.game.render()
        if self.render_mode == "rgb_array":
            from .render import render_rgb

            return render_rgb(self.game, self.cell_px)
        if self.render_mode == "human":
            from .render import HumanRenderer

            if self._human is None:
                self._human = HumanRenderer(self.cell_px, self.metadata["render_fps"])
            self._human.show(self.game)
            return None
        gymnasium.logger.warn("You are calling render method without specifying any render mode.")
        return None

    def close(self) -> None:
        if self._human is not None:
            self._human.close()

    # ------------------------------------------------------------------ internals
    def _observe(self) -> Any:
        assert self.game is not None
        vec = self.encoder.encode(self.game, self.seat)
        if self.obs_format == "flat":
            return vec
        planes, vector = self.encoder.split(vec)
        return {"planes": planes, "vector": vector}

    def _check_opponents(self, spec: Any) -> Any:
        """``spec`` if it is an accepted ``opponents`` value (a callable is checked when it is called)."""
        n = self.num_players
        if spec is None or hasattr(spec, "act"):
            return spec
        if isinstance(spec, list | tuple):
            if len(spec) != n - 1 or not all(hasattr(p, "act") for p in spec):
                raise EnvOptionError(
                    f"opponents must be a list of {n - 1} policies with act(game), got {spec!r}{_NAME_HINT}"
                )
            return list(spec)
        if callable(spec) and not isinstance(spec, str | Path):
            return spec
        raise EnvOptionError(
            f"opponents must be None, a policy with act(game), a list of them or a callable returning them, "
            f"got {spec!r}{_NAME_HINT}"
        )

    def _assign_opponents(self) -> None:
        spec = self._opponent_spec
        if spec is not None and not hasattr(spec, "act") and callable(spec):
            spec = self._check_opponents(spec())
            if spec is not None and not hasattr(spec, "act") and not isinstance(spec, list):
                raise EnvOptionError(f"the opponents callable must return a policy or a list of them, got {spec!r}")
        n = self.num_players
        if spec is None:
            others: Sequence[Any] = [_RandomOpponent(self)] * (n - 1)
        elif hasattr(spec, "act"):
            others = [spec] * (n - 1)
        else:
            others = spec
        seats: list[Any] = [None] * n
        for k, policy in enumerate(others, start=1):
            seats[(self.seat + k) % n] = policy
        self._seats = seats

    def _play_opponents(self) -> None:
        """Let the opponents decide until the learner owns the pending decision or the game ends."""
        game = self.game
        assert game is not None
        seat, seats = self.seat, self._seats
        while True:
            player = game.current_player  # the owner of the pending decision (RULINGS R23)
            if player is None or player == seat:
                return
            game.apply(seats[player].act(game))
