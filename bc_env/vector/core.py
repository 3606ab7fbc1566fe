"""``SelfPlayVectorEnv``: N games stepped in one call, every seat played by the caller (self-play).

See ``docs/environment.md``, "Batched self-play environment". The hot loop is ``bc_env/vector/_loop.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bc_env.encoding import Encoder, encoder_version
from bc_env.encoding.compact import COMPACT_LAYOUTS, CompactEncoder
from bc_env.env.rewards import check_scheme, terminal_rewards
from bc_env.rules import Game, IllegalActionError, RulesConfig

from ._loop import Slots


class SelfPlayVectorEnv:
    """``num_envs`` games of ``config`` side by side; the caller plays every seat of every game.

    * ``reset(seed=None) -> (obs, mask, to_move)``: ``obs`` float32 ``(N, obs_dim)``, the observation (by
      default the core flat layout, ``docs/observation.md``; see ``obs_layout``) of the seat to move in each game;
      ``mask`` bool ``(N, num_actions)``, its legal actions; ``to_move`` int64 ``(N,)``, that seat.
    * ``step(actions) -> (obs, mask, to_move, rewards, done)``: ``actions`` int ``(N,)``, one legal action per game;
      ``rewards`` float32 ``(N, players)`` is non-zero only in the rows of the games that ended in this call (the
      per-seat terminal rewards of ``reward_scheme``: ``zero_sum`` = ``game.returns()``, RULINGS R9, or ``margin``,
      ``bc_env.env.rewards``), ``done`` bool ``(N,)`` marks them; a finished game is replaced by a new one in the
      same call, so ``obs``/``mask``/``to_move`` of such a row are the new game's.

    The arrays are preallocated and written in place: every call returns the same array objects (copy what you
    keep). ``arrays=(obs, mask, to_move, rewards, done)`` has the env write into the caller's arrays instead (e.g.
    views of shared memory: ``training/selfplay/games.py``). ``games[i]`` is the live ``Game`` of slot ``i``,
    ``seeds[i]`` its engine seed (``Game.new(config, seed)``: the AEC env's ``reset(seed=seed)`` starts the same
    game), ``ended[i]`` the game that last ended there. ``obs_layout="compact-v1"`` (or ``"compact-v2"``) writes a
    compact layout instead (``bc_env.encoding.compact``, core configurations only; ``obs_dim`` is its size): about a
    quarter of the core size, no per-game board tracker; the games' event logs are dropped after every action
    (``Game.forget_events``: nothing reads them), which keeps a game's memory flat.
    Game seeds are drawn from ``np.random.default_rng(seed)`` in slot order, at reset and whenever a game ends, so a
    seed fixes every game and, with the same actions, every output. An illegal action raises
    ``IllegalActionError`` naming the slot before any game changes.
    """

    def __init__(
        self,
        config: RulesConfig | str | Path,
        num_envs: int,
        seed: int | None = None,
        *,
        reward_scheme: str = "zero_sum",
        arrays: tuple[np.ndarray, ...] | None = None,
        obs_layout: str = "core",
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.config = RulesConfig.resolve(config)
        self.num_envs = n = int(num_envs)
        self.num_players = p = self.config.players
        self.reward_scheme = check_scheme(reward_scheme)
        if obs_layout == "core":
            self.encoder: Encoder | CompactEncoder = Encoder(self.config)
            self.encoder_version: int | str = encoder_version(self.config)
        elif obs_layout in COMPACT_LAYOUTS:
            self.encoder = CompactEncoder(self.config, obs_layout)
            self.encoder_version = obs_layout
        else:
            known = ", ".join(repr(x) for x in ("core", *COMPACT_LAYOUTS))
            raise ValueError(f"obs_layout must be one of {known}, got {obs_layout!r}")
        self.obs_layout = obs_layout
        self.obs_dim = self.encoder.size_total
        self.num_actions = Game.new(self.config, 0).num_actions
        shapes = {
            "obs": ((n, self.obs_dim), np.float32),
            "mask": ((n, self.num_actions), np.bool_),
            "to_move": ((n,), np.int64),
            "rewards": ((n, p), np.float32),
            "done": ((n,), np.bool_),
        }
        if arrays is None:
            arrays = tuple(np.zeros(shape, dtype=dtype) for shape, dtype in shapes.values())
        elif len(arrays) != len(shapes):
            raise ValueError(f"arrays must be ({', '.join(shapes)}), got {len(arrays)} arrays")
        for (name, (shape, dtype)), a in zip(shapes.items(), arrays, strict=True):
            if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype != dtype or not a.flags.c_contiguous:
                raise ValueError(f"arrays: {name} must be a C-contiguous {np.dtype(dtype)} array of shape {shape}")
        self.obs, self.mask, self.to_move, self.rewards, self.done = arrays
        self._rows = np.arange(n)
        self._all = list(range(n))
        self._rng = np.random.default_rng(seed)
        scheme = self.reward_scheme
        self._slots = Slots(
            self.config,
            self.encoder,
            self.obs,
            self.mask,
            self.to_move,
            self.rewards,
            self.done,
            self._next_seed,
            lambda game: terminal_rewards(game, scheme),
            # the core encoder's board tracker reads the log; the compact layouts do not
            keep_events=obs_layout == "core",
        )
        self._has_reset = False

    def _next_seed(self) -> int:
        return int(self._rng.integers(0, 2**63 - 1))

    @property
    def games(self) -> list[Game]:
        """The live game of each slot (``games[i]``), for inspection: do not apply actions to them directly."""
        return self._slots.games

    @property
    def seeds(self) -> list[int]:
        """The engine seed of each slot's live game."""
        return self._slots.seeds

    @property
    def ended(self) -> list[Game | None]:
        """The game that ended in each slot at the latest step that ended one there (None before)."""
        return self._slots.ended

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """New games in every slot (``seed`` restarts the env's seed sequence)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.rewards.fill(0.0)
        self.done.fill(False)
        self._slots.start_all()
        self._has_reset = True
        return self.obs, self.mask, self.to_move

    def check_actions(self, actions: Any, slots: np.ndarray | None = None) -> list[int]:
        """``actions`` as a list of legal ints (one per slot of ``slots``, default all); else ``IllegalActionError``
        naming the first bad slot (nothing has changed)."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        rows = self._rows if slots is None else slots
        a = np.asarray(actions)
        if a.shape != rows.shape or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_):
            raise IllegalActionError(f"actions must be an integer array of shape {rows.shape}, got {a.dtype} {a.shape}")
        ok = (a >= 0) & (a < self.num_actions)
        if ok.all():
            ok = self.mask[rows, a]
        if not ok.all():
            k = int(np.argmin(ok))
            i = int(rows[k])
            raise IllegalActionError(
                f"action {int(a[k])} in slot {i} is not legal for seat {int(self.to_move[i])} "
                f"({self.games[i].config.name}, decision {self.games[i].phase_name}); nothing was applied"
            )
        return a.tolist()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action in every game (see the class docstring)."""
        acts = self.check_actions(actions)
        self.rewards.fill(0.0)
        self.done.fill(False)
        self._slots.step(self._all, acts)
        return self.obs, self.mask, self.to_move, self.rewards, self.done

    def step_slots(self, slots: Any, actions: Any) -> int:
        """One action in each game of ``slots`` (distinct slot indices) only; the other rows stay as they are.
        ``rewards`` and ``done`` are written for the games that end and not cleared first (the caller clears
        them, e.g. ``env.done.fill(False)``). Returns how many games ended."""
        rows = np.asarray(slots, dtype=np.int64)
        acts = self.check_actions(actions, rows)
        return self._slots.step(rows.tolist(), acts)
