"""The PettingZoo AEC environment ``balance_control_v0`` (see ``docs/environment.md``).

A thin adapter over the engine (DESIGN.md, "pure engine, thin adapter"): the agent to act is the
owner of the engine's pending decision (``game.current_player``, RULINGS R23), legal actions and
their effects are the engine's, rewards come from the finished game (RULINGS R9).

The guarantees of PettingZoo's standard classic-game wrappers (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) are built into the class, because the
stock stack costs more per step than the whole step: ``env()`` and ``raw_env()`` therefore return
the same class; ``raw_env`` exists for the PettingZoo naming convention (stacking the stock
wrappers on it still works).
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable
from pettingzoo.utils.env_logger import EnvLogger

from bc_env.encoding import Encoder
from bc_env.rules import Game, IllegalActionError, RulesConfig

from .errors import EnvOptionError
from .rewards import check_scheme, terminal_rewards

OBS_FORMATS = ("flat", "planes")
ILLEGAL_ACTION_MODES = ("terminate", "raise")


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """``step`` got something that is not in the action space (like PettingZoo's
    AssertOutOfBoundsWrapper, this is always an error, whatever ``illegal_action`` says)."""


#: ``cell_px`` bounds: a cell of an ``rgb_array`` frame is 4..128 pixels, and a frame side at most 4,096 pixels.
CELL_PX_RANGE = (4, 128)
MAX_FRAME_PX = 4096


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise EnvOptionError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return str(value)


def is_integer(value: Any) -> bool:
    """A Python int or a NumPy integer (a 0-d integer array too, as SB3's ``predict`` returns), never a bool."""
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and np.issubdtype(value.dtype, np.integer)
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def check_action(action: Any, num_actions: int, who: str) -> int:
    """``action`` as an int in ``0..num_actions-1``; anything else raises :class:`ActionOutOfBoundsError`."""
    if type(action) is int and 0 <= action < num_actions:  # the common case, first
        return action
    if not is_integer(action):
        raise ActionOutOfBoundsError(
            f"action {action!r} of {who} is not in the action space Discrete({num_actions}): an action is an "
            "integer (Python int or NumPy integer, not bool, float or str)"
        )
    a = int(action)
    if not 0 <= a < num_actions:
        raise ActionOutOfBoundsError(f"action {a} of {who} is not in the action space Discrete({num_actions})")
    return a


def check_reward(name: str, value: Any) -> float:
    """A finite real number (int or float, NumPy's too, not bool)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise EnvOptionError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_cell_px(value: Any, config: RulesConfig) -> int:
    """Pixels per cell of ``rgb_array`` frames: an integer in :data:`CELL_PX_RANGE`, the frame side at most
    :data:`MAX_FRAME_PX` on this table."""
    low, high = CELL_PX_RANGE
    if not is_integer(value) or not low <= int(value) <= high:
        raise EnvOptionError(f"cell_px must be an integer in {low}..{high}, got {value!r}")
    if int(value) * config.table_size > MAX_FRAME_PX:
        raise EnvOptionError(
            f"cell_px {int(value)} on a table of {config.table_size} cells gives frames over {MAX_FRAME_PX} pixels "
            f"wide; use at most {MAX_FRAME_PX // config.table_size}"
        )
    return int(value)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming convention)
    """BALANCE // CONTROL as a PettingZoo AEC game.

    Args:
        config: a ``RulesConfig``, a preset name (``configs/rules/<name>.toml``) or a path.
        render_mode: ``None``, ``"ansi"`` (the engine's text), ``"rgb_array"`` (a picture) or ``"human"`` (after
            every reset and step: a window where a display exists, the text board on stdout otherwise).
        obs_format: ``"flat"`` (default; one float32 vector, see ``docs/observation.md``) or
            ``"planes"`` (``{"planes": (C, H, W), "vector": (K,)}``).
        reward_scheme: ``"zero_sum"`` (default, RULINGS R9) or ``"margin"`` (``bc_env.env.rewards``).
        illegal_action: ``"terminate"`` (default): an action outside the mask ends the game for all,
            the offender gets ``illegal_reward`` and everybody else 0 (as PettingZoo's
            TerminateIllegalWrapper); ``"raise"``: the engine's ``IllegalActionError`` propagates
            and nothing changes.
        illegal_reward: the offender's reward under ``illegal_action="terminate"`` (default -1).
        cell_px: pixel size of a cell in ``rgb_array`` frames.
    """

    metadata = {
        "name": "balance_control_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        config: RulesConfig | str | Path = "core-4p",
        render_mode: str | None = None,
        *,
        obs_format: str = "flat",
        reward_scheme: str = "zero_sum",
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        cell_px: int = 32,
    ) -> None:
        super().__init__()
        self.config = RulesConfig.resolve(config)
        if render_mode is not None:
            _check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.obs_format = _check_choice("obs_format", obs_format, OBS_FORMATS)
        self.reward_scheme = check_scheme(reward_scheme)
        self.illegal_action = _check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.illegal_reward = check_reward("illegal_reward", illegal_reward)
        self.cell_px = check_cell_px(cell_px, self.config)
        self._human: Any = None

        n = self.config.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {name: i for i, name in enumerate(self.possible_agents)}
        self.encoder = enc = Encoder(self.config)
        # The number of actions is fixed per configuration (the engine's ActionLayout).
        self._num_actions = Game.new(self.config, 0).num_actions
        if self.obs_format == "flat":
            inner: spaces.Space[Any] = spaces.Box(enc.low, enc.high, dtype=np.float32)
        else:
            bs = enc.board_size
            shape = (enc.num_channels, enc.size, enc.size)
            inner = spaces.Dict(
                {
                    "planes": spaces.Box(enc.low[:bs].reshape(shape), enc.high[:bs].reshape(shape), dtype=np.float32),
                    "vector": spaces.Box(enc.low[bs:], enc.high[bs:], dtype=np.float32),
                }
            )
        # One space object per agent, returned as is on every call (api_test, space seeding).
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": inner if i == 0 else _copy_space(inner),
                    "action_mask": spaces.Box(0, 1, shape=(self._num_actions,), dtype=np.int8),
                }
            )
            for i, a in enumerate(self.possible_agents)
        }
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self._has_reset = False
        self._np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None
        self.game: Game | None = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The env's own RNG; it draws the game seed when ``reset`` gets no seed."""
        if self._np_random is None:
            self._np_random, self.np_random_seed = seeding.np_random()
        return self._np_random

    # ------------------------------------------------------------------ order enforcement
    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails (no cost on the hot path).
        if name in {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return AECIterable(self, max_iter)

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. ``seed`` is the engine's game seed (``Game.new(config, seed)``), so a
        seeded reset replays exactly; with ``seed=None`` the seed is drawn from the env's own RNG.
        ``options={"state": game.to_dict()}`` starts from a saved position instead."""
        if seed is not None:
            self._np_random, self.np_random_seed = seeding.np_random(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
        state = (options or {}).get("state")
        if state is not None:
            game = Game.from_dict(state)
            if game.config != self.config:
                raise EnvOptionError("options['state'] uses a different rules configuration than this env")
        else:
            game = Game.new(self.config, game_seed)
        self.game = game
        self.game_seed = game_seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._ended = False  # set when an illegal action ended the episode (the game itself goes on)
        self._has_reset = True
        if game.is_terminal():
            self.agent_selection = self.agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, Any]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        game = self.game
        assert game is not None
        seat = self._seat[agent]
        vec = self.encoder.encode(game, seat)
        if game.current_player == seat and not self._ended:
            mask = game.legal_action_mask().view(np.int8)
        else:
            mask = np.zeros(self._num_actions, dtype=np.int8)
        if self.obs_format == "flat":
            return {"observation": vec, "action_mask": mask}
        planes, vector = self.encoder.split(vec)
        return {"observation": {"planes": planes, "vector": vector}, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = check_action(action, self._num_actions, agent)
        game = self.game
        assert game is not None
        self._cumulative_rewards[agent] = 0.0
        try:
            game.apply(a)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._terminate_illegal(agent, a)
            return
        if game.is_terminal():
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        """The game is over: final rewards (RULINGS R9) and terminations for everybody."""
        game = self.game
        assert game is not None
        rewards = terminal_rewards(game, self.reward_scheme)
        winners = game.winners()
        for agent in self.agents:
            seat = self._seat[agent]
            self.rewards[agent] = rewards[seat]
            self.terminations[agent] = True
            self.infos[agent] = {"winners": [self.possible_agents[p] for p in winners]}
        self._accumulate_rewards()
        self._deads_step_first()

    def _terminate_illegal(self, agent: str, action: int) -> None:
        """As PettingZoo's TerminateIllegalWrapper: the game ends for all, the offender is penalised."""
        EnvLogger.warn_on_illegal_move()
        self._ended = True
        for other in self.agents:
            self.rewards[other] = 0.0
            self.terminations[other] = True
        self.rewards[agent] = self.illegal_reward
        self.infos[agent] = {"illegal_action": action}
        self._accumulate_rewards()
        self._deads_step_first()

    # ------------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """A global view: the flat encoding from seat 0 (everything but the DrawPile order is public)."""
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        assert self.game is not None
        return self.encoder.encode(self.game, 0)

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        assert self.game is not None
        if self.render_mode == "ansi":
            return self.game.render()
        if self.render_mode == "human":
            from .render import HumanRenderer

            if self._human is None:
                self._human = HumanRenderer(self.cell_px, self.metadata["render_fps"])
            self._human.show(self.game)
            return None
        from .render import render_rgb

        return render_rgb(self.game, self.cell_px)

    def close(self) -> None:
        if self._human is not None:
            self._human.close()

    def action_to_string(self, action: int) -> str:
        assert self.game is not None
        return self.game.action_to_string(action)


def _copy_space(space: spaces.Space[Any]) -> spaces.Space[Any]:
    """An equal but distinct space object (each agent seeds its own)."""
    if isinstance(space, spaces.Dict):
        return spaces.Dict({k: _copy_space(v) for k, v in space.spaces.items()})
    assert isinstance(space, spaces.Box)
    return spaces.Box(space.low.copy(), space.high.copy(), dtype=space.dtype)  # type: ignore[arg-type]


def env(config: RulesConfig | str | Path = "core-4p", render_mode: str | None = None, **options: Any) -> raw_env:
    """The environment with the guarantees of PettingZoo's classic wrappers (built in, see module doc)."""
    return raw_env(config, render_mode=render_mode, **options)
