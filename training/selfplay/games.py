"""The games of a selfplay run (``training/selfplay``): batches of ``SelfPlayVectorEnv`` in worker processes over
shared memory, the seat roles of each game, the heuristic seats played here. Torch-free (a worker process imports
only the engine and, for heuristic seats, ``policies``)."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from bc_env.rules import RulesConfig
from bc_env.vector import SelfPlayVectorEnv
from training.config import TrainConfig

#: Seat roles (shared array ``roles[game, seat]``): the current network, a uniformly random player, the heuristic
#: bot (played inside the worker), or ``SNAPSHOT + k``: the pool's snapshot with id ``k``.
LEARNER, RANDOM, HEURISTIC, SNAPSHOT = 0, -1, -2, 1
#: Opponent kind of a game (``kind[game]``), for the win rates of the rollouts.
KINDS = ("self", "snapshot", "random", "heuristic")


# ---------------------------------------------------------------------------- game workers


def slack_after_turn(g: Any, p: int) -> int:
    """Player ``p``'s turns after this one (this turn's Political Action spent when ``p`` is the active player) minus
    the actions it still needs to reach the cap: a Place per Influence not on the Board and a FormalizeInfluence per
    Influence not yet created (cap, RULINGS R12; the slack of docs/observation.md)."""
    return g.turns_left(p) - (1 if g.active == p else 0) - g.actions_to_cap(p)


def holds_gate_alone(g: Any, p: int) -> bool:
    """The gate bonus's test (selfplay.gate_bonus), after a Political Action of player ``p``: ``p`` alone keeps the
    FormalizeInfluence gate closed (CORE-01-08-02: it has Starting Influence left to deploy, every other player has
    deployed all of theirs) and can still reach the cap. That is, its turns after this one are at least the actions
    it needs: a Place per Influence not on the Board and a FormalizeInfluence per Influence not yet created (cap,
    RULINGS R12; the slack of docs/observation.md). Holding past that point costs the holder its own cap, and earns
    nothing."""
    dep, start = g.deployed, g.starting
    if dep[p] >= start[p] or any(dep[q] < start[q] for q in range(len(dep)) if q != p):
        return False
    return slack_after_turn(g, p) >= 0


def _arrays(rules: RulesConfig, n: int, obs_layout: str) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Name -> (shape, dtype) of the shared arrays of ``n`` games."""
    probe = SelfPlayVectorEnv(rules, 1, obs_layout=obs_layout)
    return {
        "obs": ((n, probe.obs_dim), np.float32),
        "mask": ((n, probe.num_actions), np.bool_),
        "to_move": ((n,), np.int64),
        "rewards": ((n, rules.players), np.float32),
        "done": ((n,), np.bool_),
        "actions": ((n,), np.int64),
        "roles": ((n, rules.players), np.int64),
        "kind": ((n,), np.int64),
        "gate_held": ((n,), np.bool_),
    }


class GameWorker:
    """``games`` games in one batch (rows ``start .. start + games`` of the shared arrays ``views``): steps them with
    the actions it finds in ``actions``, draws each new game's seat roles, plays the heuristic seats itself."""

    def __init__(self, cfg: TrainConfig, rules: RulesConfig, views: dict[str, np.ndarray], seed: int) -> None:
        self.cfg = cfg
        self.v = views
        self.env = SelfPlayVectorEnv(
            rules,
            len(views["obs"]),
            seed,
            reward_scheme=cfg.reward,
            obs_layout=cfg.selfplay.obs_layout,
            arrays=tuple(views[k] for k in ("obs", "mask", "to_move", "rewards", "done")),
        )
        self.players = rules.players
        self.rng = np.random.default_rng([seed, 7])
        self.snapshots: list[int] = []  # the ids new games may draw, oldest first
        self._heuristic: Any = None

    def set_snapshots(self, ids: list[int]) -> None:
        self.snapshots = list(ids)

    def _assign(self, i: int) -> None:
        """Seat roles of the new game in slot ``i``."""
        pool, rng, P = self.cfg.pool, self.rng, self.players
        roles = self.v["roles"][i]
        u = rng.random()
        if u < pool.p_random:
            kind, other = 2, RANDOM
        elif u < pool.p_random + pool.p_heuristic:
            kind, other = 3, HEURISTIC
        elif not self.snapshots or rng.random() < self.cfg.selfplay.p_self:
            roles[:] = LEARNER
            self.v["kind"][i] = 0
            return
        else:
            latest = len(self.snapshots) == 1 or rng.random() < pool.p_latest
            k = self.snapshots[-1] if latest else self.snapshots[int(rng.integers(len(self.snapshots) - 1))]
            kind, other = 1, SNAPSHOT + k
        roles[:] = other
        roles[int(rng.integers(P))] = LEARNER
        self.v["kind"][i] = kind

    def _outcomes(self, rows: np.ndarray, out: list[tuple[int, float]]) -> None:
        """(kind, learner's score: 1/k for a victory shared by k, 0 for a loss) of the games that ended in ``rows``;
        then new seat roles there."""
        for i in rows.tolist():
            kind = int(self.v["kind"][i])
            if kind:
                g = self.env.ended[i]
                assert g is not None
                seat = int(np.flatnonzero(self.v["roles"][i] == LEARNER)[0])
                winners = g.winners()
                out.append((kind, 1.0 / len(winners) if seat in winners else 0.0))
            self._assign(i)

    def reset(self) -> list[tuple[int, float]]:
        self.env.reset()
        for i in range(self.env.num_envs):
            self._assign(i)
        out: list[tuple[int, float]] = []
        self._heuristic_moves(out)
        return out

    def step(self) -> list[tuple[int, float]]:
        env = self.env
        gate = self.cfg.selfplay.gate_bonus > 0
        if gate:
            movers = env.to_move.tolist()
            political = [g.phase_name == "political" for g in env.games]
        env.step(self.v["actions"])
        if gate:
            self._gate_held(movers, political)
        out: list[tuple[int, float]] = []
        self._outcomes(np.flatnonzero(env.done), out)
        self._heuristic_moves(out)
        return out

    def _gate_held(self, movers: list[int], political: list[bool]) -> None:
        """``gate_held[i]``: the decision just taken in slot ``i`` was a Political Action after which its player alone
        keeps the FormalizeInfluence gate closed and can still reach the cap (:func:`holds_gate_alone`); False where
        the game ended. The selfplay.gate_bonus shaping."""
        held = self.v["gate_held"]
        held[:] = False
        done, games = self.env.done, self.env.games
        for i, p in enumerate(movers):
            if political[i] and not done[i]:
                held[i] = holds_gate_alone(games[i], p)

    def _heuristic_moves(self, out: list[tuple[int, float]]) -> None:
        """Play the heuristic seats until a seat of a network or a random player is to move in every game."""
        env, roles = self.env, self.v["roles"]
        rows_all = np.arange(env.num_envs)
        while True:
            rows = np.flatnonzero(roles[rows_all, env.to_move] == HEURISTIC)
            if not len(rows):
                return
            if self._heuristic is None:
                from policies import load

                self._heuristic = load("heuristic", seed=int(self.rng.integers(2**31)))
            games = env.games
            acts = np.array([self._heuristic.act(games[i]) for i in rows.tolist()], dtype=np.int64)
            done_before = env.done.copy()
            env.step_slots(rows, acts)
            self._outcomes(np.flatnonzero(env.done & ~done_before), out)


def _worker_main(
    conn: Any, cfg_dict: dict[str, Any], names: dict[str, str], total: int, start: int, n: int, seed: int
) -> None:
    """A worker process: attach the shared arrays (``total`` games), serve ``reset`` / ``step`` / ``snapshots`` /
    ``close`` for the games ``start .. start + n``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the trainer stops the workers itself (checkpoint first)
    cfg = TrainConfig.from_dict(cfg_dict)
    rules = RulesConfig.resolve(cfg.rules)
    blocks = {k: shared_memory.SharedMemory(name=name) for k, name in names.items()}
    views = {}
    for k, (shape, dtype) in _arrays(rules, total, cfg.selfplay.obs_layout).items():
        views[k] = np.ndarray(shape, dtype=dtype, buffer=blocks[k].buf)[start : start + n]
    worker = GameWorker(cfg, rules, views, seed)
    try:
        while True:
            cmd, arg = conn.recv()
            if cmd == "close":
                break
            if cmd == "snapshots":
                worker.set_snapshots(arg)
                conn.send(None)
            else:
                conn.send(worker.reset() if cmd == "reset" else worker.step())
    finally:
        del worker, views
        for b in blocks.values():
            b.close()


class Games:
    """All the games of the run: ``workers`` processes (or one in-process worker) over shared arrays."""

    def __init__(self, cfg: TrainConfig, rules: RulesConfig, seed: int) -> None:
        sp = cfg.selfplay
        per = sp.games_per_worker
        self.n = n = max(1, sp.workers) * per
        spec = _arrays(rules, n, sp.obs_layout)
        self.blocks = {
            k: shared_memory.SharedMemory(create=True, size=max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize))
            for k, (shape, dtype) in spec.items()
        }
        self.v = {k: np.ndarray(shape, dtype=dtype, buffer=self.blocks[k].buf) for k, (shape, dtype) in spec.items()}
        self.local: GameWorker | None = None
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        if sp.workers == 0:
            self.local = GameWorker(cfg, rules, self.v, seed)
            return
        ctx = mp.get_context("spawn")
        names = {k: b.name for k, b in self.blocks.items()}
        for w in range(sp.workers):
            parent, child = ctx.Pipe()
            p = ctx.Process(
                target=_worker_main,
                args=(child, cfg.to_dict(), names, n, w * per, per, seed + 1_000_003 * w),
                daemon=True,
            )
            p.start()
            self.procs.append(p)
            self.conns.append(parent)

    def _call(self, cmd: str, arg: Any = None) -> list[tuple[int, float]]:
        if self.local is not None:
            if cmd == "snapshots":
                self.local.set_snapshots(arg)
                return []
            return self.local.reset() if cmd == "reset" else self.local.step()
        for c in self.conns:
            c.send((cmd, arg))
        out: list[tuple[int, float]] = []
        for c in self.conns:
            got = c.recv()
            if got:
                out += got
        return out

    def reset(self) -> list[tuple[int, float]]:
        return self._call("reset")

    def step(self) -> list[tuple[int, float]]:
        return self._call("step")

    def set_snapshots(self, ids: list[int]) -> None:
        self._call("snapshots", ids)

    def close(self) -> None:
        for c in self.conns:
            with contextlib.suppress(BrokenPipeError, EOFError, OSError):
                c.send(("close", None))
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
        self.v.clear()
        for b in self.blocks.values():
            b.close()
            with contextlib.suppress(FileNotFoundError):
                b.unlink()
