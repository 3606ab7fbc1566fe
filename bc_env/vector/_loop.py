"""The hot loop of ``bc_env.vector``: step N games and write their observations, masks and rewards into preallocated
arrays. Compiled with the engine when the engine is (setup.py ``COMPILED_OUTSIDE_RULES``, ``bc_env/_build.py``
``COMPILED_MODULES``), and the same code runs as pure Python.

Every array is written through a ``memoryview`` of its memory, never reallocated: the observations row by row with
the encoder's ``encode_into`` (one ``fork()`` per game: the core ``Encoder``'s is a copy that keeps its own incremental
board tracker, the ``compact-v1`` encoder's keeps the game's tile planes), the masks as
bytes (a row cleared with one slice assignment, then one byte per legal action).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bc_env.rules import Game, RulesConfig


class Slots:
    """The games of a batch and the views of its output arrays (``SelfPlayVectorEnv`` owns the arrays).

    ``obs`` float32 ``(N, D)``, ``mask`` bool ``(N, A)``, ``to_move`` int64 ``(N,)``, ``rewards`` float32 ``(N, P)``,
    ``done`` bool ``(N,)``, all C-contiguous. ``next_seed()`` gives the seed of each new game, ``rewards_of(game)``
    the per-seat rewards of a finished one.
    """

    def __init__(
        self,
        config: RulesConfig,
        encoder: Any,
        obs: Any,
        mask: Any,
        to_move: Any,
        rewards: Any,
        done: Any,
        next_seed: Callable[[], int],
        rewards_of: Callable[[Game], list[float]],
        keep_events: bool,
    ) -> None:
        n = int(obs.shape[0])
        self.config = config
        self.num_envs = n
        self.num_players = config.players
        self.num_actions = int(mask.shape[1])
        self.games: list[Game] = []
        self.seeds: list[int] = []
        #: The game that ended in each slot at the latest step that ended one there (None before).
        self.ended: list[Game | None] = [None] * n
        #: False: each game's event log is dropped after every action (the encoder never reads it).
        self.keep_events = keep_events
        self.encoders: list[Any] = [encoder.fork() for _ in range(n)]
        self.obs_rows: list[Any] = [obs[i] for i in range(n)]
        self.mask_bytes: Any = memoryview(mask).cast("B")
        self.to_move_view: Any = memoryview(to_move).cast("B").cast("q")
        self.rewards_view: Any = memoryview(rewards).cast("B").cast("f")
        self.done_bytes: Any = memoryview(done).cast("B")
        self.no_actions = bytes(self.num_actions)
        self.next_seed = next_seed
        self.rewards_of = rewards_of

    def start_all(self) -> None:
        """A new game in every slot, seeds drawn in slot order."""
        self.games = []
        self.seeds = []
        for i in range(self.num_envs):
            seed = self.next_seed()
            self.games.append(self.new_game(seed))
            self.seeds.append(seed)
            self.write(i)

    def new_game(self, seed: int) -> Game:
        """The game of ``seed``, without its set-up's log where the log is not kept."""
        g = Game.new(self.config, seed)
        if not self.keep_events:
            g.forget_events()
        return g

    def write(self, i: int) -> None:
        """Observation of the seat to move, legal-action mask and seat of slot ``i``."""
        g = self.games[i]
        p = g.current_player
        assert p is not None  # a finished game is replaced at once
        self.encoders[i].encode_into(g, p, self.obs_rows[i])
        a = self.num_actions
        base = i * a
        mb = self.mask_bytes
        mb[base : base + a] = self.no_actions
        for x in g.legal_actions():
            mb[base + x] = 1
        self.to_move_view[i] = p

    def step(self, slots: list[int], actions: list[int]) -> int:
        """Apply ``actions[k]`` in slot ``slots[k]`` (legal: checked by the caller); a game that ends writes its
        rewards and ``done``, and a new game takes its slot. Returns how many games ended."""
        ended = 0
        P = self.num_players
        rv = self.rewards_view
        keep = self.keep_events
        for k in range(len(slots)):
            i = slots[k]
            g = self.games[i]
            g.apply(actions[k])
            if not keep:
                g.forget_events()
            if g.is_terminal():
                r = self.rewards_of(g)
                for p in range(P):
                    rv[i * P + p] = r[p]
                self.done_bytes[i] = 1
                self.ended[i] = g
                seed = self.next_seed()
                self.games[i] = self.new_game(seed)
                self.seeds[i] = seed
                ended += 1
            self.write(i)
        return ended
