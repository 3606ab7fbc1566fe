"""The fast self-play trainer, ``balance-control train --backend selfplay``: PPO in one readable module, in the spirit
of CleanRL's single-file PPO, over the batched environment ``bc_env.vector.SelfPlayVectorEnv``.

* Games: ``selfplay.workers`` processes each step ``selfplay.games_per_worker`` games in one call and write the
  observations, masks, seats to move, rewards and the seat roles into shared memory (``multiprocessing.shared_memory``);
  ``workers = 0`` steps them in this process.
* Seats: each new game draws its opponents (``pool.p_random``, ``pool.p_heuristic``, else with ``selfplay.p_self``
  the current network in every seat, else one learner seat against a frozen snapshot of the network from the pool:
  the latest with ``pool.p_latest``, else any). Every decision of the current network is a training sample; the
  snapshots and the random seats act in the same batched step (one forward pass for the current network, one
  stacked pass for all the snapshots, masked sampling); heuristic seats are played inside the worker processes,
  never here. No bot is imitated: the network starts from random weights (no behaviour cloning, no
  ``init_policy``).
* PPO: rollouts of ``ppo.n_steps`` batch steps, generalised advantage estimation along each seat's own decisions
  (a seat's next decision in the same game is its next state; the terminal reward goes to its last decision),
  clipped surrogate, value loss, entropy bonus, ``ppo.n_epochs`` epochs of ``ppo.batch_size`` minibatches.
* The run around it is the training core's (``training/core.py``, :class:`SelfPlayBackend` is a
  :class:`training.core.Backend`): run directory, cadences, evaluation, checkpoints (``checkpoint/model.pt``: networks,
  optimizer, frozen snapshots, torch RNG; ``--resume`` continues, games in progress restart), progress, TensorBoard,
  learning curve, summary and the export ``policy.npz`` + ``policy.json`` (``policies.load("runs/<name>/policy")``).

A learner step is one decision of the current network (a training sample); ``total_steps`` counts them.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bc_env.encoding import layout_encoder
from bc_env.rules import RulesConfig
from bc_env.vector import SelfPlayVectorEnv
from policies.neural import save_policy
from training.config import TrainConfigError
from training.core import Backend, Plan, Run, resolve_device, signed

from .games import KINDS, LEARNER, SNAPSHOT, Games

__all__ = ["SelfPlayBackend"]


# ---------------------------------------------------------------------------- the network


def _mlp(sizes: list[int], activation: str, out_std: float) -> nn.Sequential:
    act = nn.Tanh if activation == "tanh" else nn.ReLU
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(lin.weight, out_std if last else np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last:
            layers.append(act())
    return nn.Sequential(*layers)


class Agent(nn.Module):
    """Policy and value MLPs over the flat observation (separate, as the sb3 backend's ``MlpPolicy``); the policy
    path is what the exported bot runs (``policies.neural``)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden: list[int], activation: str) -> None:
        super().__init__()
        self.pi = _mlp([obs_dim, *hidden, num_actions], activation, 0.01)
        self.vf = _mlp([obs_dim, *hidden, 1], activation, 1.0)

    def layers(self, input_scale: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """The policy path's (weight, bias) pairs; ``input_scale`` (the factor the trainer multiplies each
        observation value by) is folded into the first layer's weights, so the exported network reads the raw
        observation."""
        out = [
            (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
            for m in self.pi
            if isinstance(m, nn.Linear)
        ]
        if input_scale is not None:
            out[0] = (out[0][0] * input_scale[None, :].astype(out[0][0].dtype), out[0][1])
        return out


class SnapshotStack:
    """The frozen snapshots' policy networks as one stack of weights, so every snapshot row of a batch step goes
    through a single batched matrix product per layer (``torch.baddbmm``) instead of one forward pass per snapshot:
    with 8 snapshots in the pool those passes were half of the acting time. Rows are grouped by snapshot and padded
    to the largest group; a snapshot's rows get what its own network gives them (up to float rounding)."""

    def __init__(self, nets: dict[int, nn.Sequential], device: str) -> None:
        self.ids = sorted(nets)
        lookup = np.full(max(self.ids, default=-1) + 1, -1, dtype=np.int64)
        lookup[self.ids] = np.arange(len(self.ids))
        self.lookup = lookup  # snapshot id -> place in the stack
        #: The first network's modules in order, each Linear replaced by the stack's (bias, weight) of that layer;
        #: the activations are the network's own.
        self.layers: list[tuple[torch.Tensor, torch.Tensor] | nn.Module] = []
        if self.ids:
            for j, module in enumerate(nets[self.ids[0]]):
                if isinstance(module, nn.Linear):
                    lins = [nets[k][j] for k in self.ids]
                    w = torch.stack([lin.weight.detach().t() for lin in lins]).contiguous().to(device)
                    b = torch.stack([lin.bias.detach() for lin in lins])[:, None, :].contiguous().to(device)
                    self.layers.append((b, w))
                else:
                    self.layers.append(module)

    def __call__(self, obs: torch.Tensor, snapshot: np.ndarray) -> torch.Tensor:
        """The logits of each row of ``obs`` (one per entry of ``snapshot``, the snapshot id acting there)."""
        place = self.lookup[snapshot]
        order = np.argsort(place, kind="stable")
        counts = np.bincount(place, minlength=len(self.ids))
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        g = place[order]
        pos = np.arange(len(order)) - starts[g]
        dev = obs.device
        g_t, pos_t, order_t = (torch.from_numpy(a).to(dev) for a in (g, pos, order))
        x = obs.new_zeros((len(self.ids), int(counts.max()), obs.shape[1]))
        x[g_t, pos_t] = obs[order_t]
        for layer in self.layers:
            x = torch.baddbmm(layer[0], x, layer[1]) if isinstance(layer, tuple) else layer(x)
        out = torch.empty((len(order), x.shape[2]), device=dev)
        out[order_t] = x[g_t, pos_t]
        return out


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, -1e9)


def sample(logits: torch.Tensor) -> torch.Tensor:
    """One action per row from masked logits, a categorical draw by the inverse of the cumulative distribution: one
    uniform number per row (Gumbel-max needs one per action, and drawing them was a third of the acting time). The
    action is the first whose cumulative probability exceeds the draw, so its probability is positive; a draw that
    rounds up to the total takes the last action of positive probability."""
    cum = torch.softmax(logits, dim=1).cumsum_(dim=1)
    total = cum[:, -1:].contiguous()
    idx = torch.searchsorted(cum, torch.rand(total.shape, device=cum.device) * total, right=True).squeeze(1)
    last = torch.searchsorted(cum, total).squeeze(1)  # the first index that reaches the total
    return torch.minimum(idx, last)


def chain_advantages(
    values: np.ndarray,
    rewards: np.ndarray,
    terminal: np.ndarray,
    seats: np.ndarray,
    mine: np.ndarray,
    gamma: float,
    lam: float,
    players: int,
) -> np.ndarray:
    """GAE advantages ``(T, N)`` along each (game slot, seat) chain of the current network's decisions (``mine``):
    the next state of a decision is the same seat's next decision in that slot; ``terminal`` marks a seat's last
    decision of its game (its ``rewards`` entry holds the terminal reward; nothing after it belongs to the chain); a
    chain still open at the end of the rollout bootstraps from its own last value. Rows not ``mine`` are 0."""
    T, n = values.shape
    next_v = np.zeros((n, players), dtype=np.float32)
    next_a = np.zeros((n, players), dtype=np.float32)
    has_next = np.zeros((n, players), dtype=bool)
    adv_b = np.zeros((T, n), dtype=np.float32)
    cols = np.arange(n)
    for t in range(T - 1, -1, -1):
        s, term = seats[t], terminal[t]
        follows = has_next[cols, s] & ~term
        nv = np.where(term, 0.0, np.where(follows, next_v[cols, s], values[t]))
        na = np.where(follows, next_a[cols, s], 0.0)
        adv = rewards[t] + gamma * nv - values[t] + gamma * lam * na
        rows = np.flatnonzero(mine[t])
        adv_b[t, rows] = adv[rows]
        next_v[rows, s[rows]] = values[t, rows]
        next_a[rows, s[rows]] = adv[rows]
        has_next[rows, s[rows]] = True
    return adv_b


class SelfPlayBackend(Backend):
    """PPO over the batched games, plugged into the training core; its own parts: the worker processes over shared
    memory (``games.py``), the batched acting, the PPO update and the in-memory pool of frozen snapshots."""

    name = "selfplay"
    identity_keys = ("backend", "rules", "seed", "net_arch", "activation", "reward")

    def identity(self, rules: RulesConfig) -> dict[str, Any]:
        ident = super().identity(rules)
        if self.cfg.selfplay.obs_layout != "core":  # absent for the core layout: the runs made before it resume
            ident["obs_layout"] = self.cfg.selfplay.obs_layout
        return ident

    checkpoint_file = "model.pt"

    def plan(self) -> Plan:
        """The training config's cadences, counted in learner steps (decisions of the current network)."""
        return dataclasses.replace(super().plan(), unit="learner step")

    # ------------------------------------------------------------------ set-up, checkpoints
    def _setup(self, run: Run) -> None:
        cfg, rules = self.cfg, run.rules
        self.rules = rules
        self.dev = resolve_device(cfg.device)
        if cfg.selfplay.torch_threads:
            torch.set_num_threads(cfg.selfplay.torch_threads)
        torch.manual_seed(cfg.seed)
        try:
            probe = SelfPlayVectorEnv(rules, 1, obs_layout=cfg.selfplay.obs_layout)
        except ValueError as exc:  # compact-v1 of an expansion
            raise TrainConfigError(f"selfplay.obs_layout: {exc}") from None
        self.obs_dim, self.num_actions, self.players = probe.obs_dim, probe.num_actions, rules.players
        encoder = layout_encoder(rules, cfg.selfplay.obs_layout)
        #: What the exported manifest records as ``encoder_version``.
        self.encoder_version: str = encoder.version
        #: The layout's factor per observation value for the network (compact-v1's raw counts and cell indices), or
        #: None (the core layout is scaled already); the export folds it into the first layer.
        scale = getattr(encoder, "input_scale", None)
        self.input_scale: np.ndarray | None = scale
        self.scale_t = None if scale is None else torch.from_numpy(scale).to(self.dev)
        self.agent = Agent(self.obs_dim, self.num_actions, list(cfg.net_arch), cfg.activation).to(self.dev)
        self.optimizer = torch.optim.Adam(self.agent.parameters(), lr=cfg.ppo.learning_rate, eps=1e-5)
        #: The frozen snapshots by id (a game's seat role is ``SNAPSHOT + id``), and the id of each pool entry's name.
        self.snapshot_nets: dict[int, nn.Sequential] = {}
        self.snapshot_stack = SnapshotStack({}, self.dev)
        self.snapshot_ids: dict[str, int] = {}
        self.next_snapshot_id = 0
        self.pool: list[int] = []
        self.games: Games | None = None
        self.steps = run.steps
        self.episodes = 0
        self.recent: dict[int, list[float]] = {k: [] for k in range(1, len(KINDS))}
        #: The gate bonus of the last rollout and the share of the learner's decisions that earned it (logged).
        self.last_gate: dict[str, float] = {}
        self.rollout_times: dict[str, float] = {}

    def start(self, run: Run) -> None:
        self._setup(run)

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        self._setup(run)
        data = torch.load(directory / "model.pt", map_location=self.dev, weights_only=True)  # tensors only, no pickle
        self.agent.load_state_dict(data["agent"])
        self.optimizer.load_state_dict(data["optimizer"])
        torch.set_rng_state(data["torch_rng"].cpu())  # the CPU generator's state, also where the tensors went to a GPU
        for k, sd in data["snapshots"].items():
            self.snapshot_nets[int(k)] = self._frozen(sd)
        self.snapshot_ids = {str(k): int(v) for k, v in state["snapshot_ids"].items()}
        self.next_snapshot_id = int(state["next_snapshot_id"])
        self.snapshot_stack = SnapshotStack(self.snapshot_nets, self.dev)

    def save(self, directory: Path) -> dict[str, Any]:
        torch.save(
            {
                "agent": self.agent.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "snapshots": {str(k): net.state_dict() for k, net in self.snapshot_nets.items()},
                "torch_rng": torch.get_rng_state(),
            },
            directory / "model.pt",
        )
        return {"snapshot_ids": self.snapshot_ids, "next_snapshot_id": self.next_snapshot_id}

    def _frozen(self, state_dict: dict[str, Any]) -> nn.Sequential:
        net = _mlp([self.obs_dim, *self.cfg.net_arch, self.num_actions], self.cfg.activation, 0.01).to(self.dev)
        net.load_state_dict(state_dict)
        net.requires_grad_(False)
        return net

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        """The core's pool changed: a new entry is a frozen copy of the current policy (the core has just exported
        it); new games draw from the pool's entries, and a frozen network is dropped once no game uses it."""
        for entry in snapshots:
            if entry["name"] not in self.snapshot_ids:
                self.snapshot_ids[entry["name"]] = k = self.next_snapshot_id
                self.next_snapshot_id += 1
                self.snapshot_nets[k] = self._frozen(self.agent.pi.state_dict())
        self.pool = [self.snapshot_ids[e["name"]] for e in snapshots]
        in_use: set[int] = set()
        if self.games is not None:
            roles = self.games.v["roles"]
            in_use = set((roles[roles >= SNAPSHOT] - SNAPSHOT).tolist())
            self.games.set_snapshots(self.pool)
        for old in [x for x in self.snapshot_nets if x not in self.pool and x not in in_use]:
            del self.snapshot_nets[old]
        self.snapshot_ids = {n: k for n, k in self.snapshot_ids.items() if k in self.snapshot_nets}
        self.snapshot_stack = SnapshotStack(self.snapshot_nets, self.dev)

    # ------------------------------------------------------------------ what the core shows and exports
    def describe(self, rules: RulesConfig) -> str:
        sp = self.cfg.selfplay
        return (
            f"{self.cfg.name}: rules {rules.name}, backend selfplay, {max(1, sp.workers) * sp.games_per_worker} games "
            f"in {sp.workers or 'no'} worker process(es), learner on {resolve_device(self.cfg.device)}"
        )

    def device(self) -> str:
        return self.dev + (f" ({torch.cuda.get_device_name()})" if self.dev == "cuda" else "")

    def provenance(self) -> dict[str, Any]:
        from training.rundir import git_commit

        return {
            "workers": self.cfg.selfplay.workers,
            "imitation": "none (trained from random weights)",
            "git_commit": git_commit(),
        }

    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        manifest = {
            "name": name,
            "rules": self.rules.to_dict(),
            "rules_preset": self.rules.name,
            "observation_layout": self.cfg.selfplay.obs_layout,
            "encoder_version": self.encoder_version,
            "action_layout": {"version": 1, "num_actions": self.num_actions},
            "network": {"activation": self.cfg.activation, "hidden": list(self.cfg.net_arch)},
            "training": {
                "backend": "selfplay",
                "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "machine": platform.machine(),
                "python": platform.python_version(),
                "torch": torch.__version__,
                **provenance,
            },
        }
        return save_policy(path, self.agent.layers(self.input_scale), manifest)

    def evaluate_more(self, bot: Any, games: int, seed: int) -> dict[str, dict[str, Any]]:
        """``selfplay.eval_expert``: the expert bot as a third evaluation opponent."""
        if not self.cfg.selfplay.eval_expert:
            return {}
        from training.evaluation import evaluate

        return evaluate(bot, self.rules, games, seed + 10_000, opponents=("expert",))

    def close(self) -> None:
        if getattr(self, "games", None) is not None:
            self.games.close()
            self.games = None

    # ------------------------------------------------------------------ the loop
    def learn(self, run: Run) -> None:
        self.games = games = Games(self.cfg, self.rules, self.cfg.seed + run.steps)  # a resume starts new games
        games.set_snapshots(self.pool)
        for kind, score in games.reset():
            self.recent[kind].append(score)
        log = run.log
        start, steps0 = time.time(), run.steps
        while self.steps < run.plan.total:
            t_roll = time.time()
            episodes0 = self.episodes
            data = self.rollout(games)
            t_upd = time.time()
            with self._update_threads():
                stats = self.update(data)
            now = time.time()
            for k, x in {**stats, **self.last_gate}.items():
                log.record(f"train/{k}", x)
            self.last_gate = {}
            rate = (self.steps - steps0) / max(now - start, 1e-9)
            log.record("perf/learner_steps_per_s", rate)
            log.record("perf/rollout_s", t_upd - t_roll)
            log.record("perf/update_s", now - t_upd)
            for k, x in self.rollout_times.items():  # the rollout's two parts: acting here, the games in the workers
                log.record(f"perf/{k}", x)
            for kind, scores in self.recent.items():
                if len(scores) >= 10:
                    log.record(f"rollout/score_vs_{KINDS[kind]}", float(np.mean(scores)))
                    self.recent[kind] = scores[-200:]
            log.dump(self.steps)
            show = {"entropy": signed(stats.get("entropy")), "kl": signed(stats.get("approx_kl"), 4)}
            if not run.tick(self.steps, episodes=self.episodes - episodes0, show=show):
                return

    @contextmanager
    def _update_threads(self) -> Iterator[None]:
        """torch's threads for the update: the game workers wait meanwhile, so the update may use every core
        (``selfplay.update_threads``; 0 = one per core); the rollout's (``selfplay.torch_threads``) come back after."""
        sp = self.cfg.selfplay
        if self.dev != "cpu" or sp.update_threads == sp.torch_threads:
            yield
            return
        before = torch.get_num_threads()
        torch.set_num_threads(sp.update_threads or os.cpu_count() or 1)
        try:
            yield
        finally:
            torch.set_num_threads(before)

    # ------------------------------------------------------------------ acting
    def observations(self, games: Games) -> torch.Tensor:
        """The networks' input: the observations of every game, times the layout's input scale."""
        obs = torch.from_numpy(games.v["obs"]).to(self.dev)
        return obs if self.scale_t is None else obs * self.scale_t

    @torch.no_grad()
    def act(
        self, games: Games, obs: torch.Tensor
    ) -> tuple[np.ndarray, torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray]:
        """Actions for every game from the networks' input ``obs`` (the current network, the snapshots and the random
        seats, batched); returns (actions, log-probabilities, values, masks, rows of the current network)."""
        v = games.v
        mask = torch.from_numpy(v["mask"]).to(self.dev)
        role = v["roles"][np.arange(games.n), v["to_move"]]
        logits = torch.zeros((games.n, self.num_actions), device=self.dev)  # random seats: uniform
        mine = role == LEARNER
        idx = torch.from_numpy(np.flatnonzero(mine)).to(self.dev)
        values = torch.zeros(games.n, device=self.dev)
        if len(idx):
            logits[idx] = self.agent.pi(obs[idx])
            values[idx] = self.agent.vf(obs[idx]).squeeze(1)
        snap = np.flatnonzero(role >= SNAPSHOT)
        if len(snap):
            rows = torch.from_numpy(snap).to(self.dev)
            logits[rows] = self.snapshot_stack(obs[rows], role[snap] - SNAPSHOT)
        logits = masked_logits(logits, mask)
        actions = sample(logits)
        logp = torch.log_softmax(logits, dim=1).gather(1, actions[:, None]).squeeze(1)
        return actions.cpu().numpy(), logp, values, mask, mine

    # ------------------------------------------------------------------ PPO
    def gate_bonus(self) -> float:
        """The shaping reward per Political Action that alone keeps the gate closed (``selfplay.gate_bonus``), falling
        linearly to 0 over ``selfplay.gate_bonus_steps`` learner steps."""
        sp = self.cfg.selfplay
        if not sp.gate_bonus_steps:
            return float(sp.gate_bonus)
        return float(sp.gate_bonus) * max(0.0, 1.0 - self.steps / sp.gate_bonus_steps)

    def rollout(self, games: Games) -> dict[str, torch.Tensor]:
        cfg, n, T, P = self.cfg, games.n, self.cfg.ppo.n_steps, self.players
        dev = self.dev
        obs_b = torch.zeros((T, n, self.obs_dim), device=dev)
        mask_b = torch.zeros((T, n, self.num_actions), dtype=torch.bool, device=dev)
        act_b = torch.zeros((T, n), dtype=torch.long, device=dev)
        logp_b = torch.zeros((T, n), device=dev)
        val_b = np.zeros((T, n), dtype=np.float32)
        mine_b = np.zeros((T, n), dtype=bool)
        seat_b = np.zeros((T, n), dtype=np.int64)
        rew_b = np.zeros((T, n), dtype=np.float32)
        term_b = np.zeros((T, n), dtype=bool)
        last = np.full((n, P), -1, dtype=np.int64)  # the step of each learner seat's latest decision in this rollout
        bonus, held_n = self.gate_bonus(), 0
        t_act = t_games = 0.0
        v = games.v
        for t in range(T):
            t0 = time.perf_counter()
            obs = self.observations(games)
            obs_b[t].copy_(obs)
            actions, logp, values, mask, mine = self.act(games, obs)
            mask_b[t] = mask
            act_b[t] = torch.from_numpy(actions).to(dev)
            logp_b[t] = logp
            val_b[t] = values.cpu().numpy()
            mine_b[t] = mine
            seat_b[t] = v["to_move"]
            rows = np.flatnonzero(mine)
            last[rows, seat_b[t, rows]] = t
            v["actions"][:] = actions
            t1 = time.perf_counter()
            outcomes = games.step()
            t2 = time.perf_counter()
            t_act, t_games = t_act + t1 - t0, t_games + t2 - t1
            for kind, score in outcomes:
                self.recent[kind].append(score)
            if bonus:
                held = v["gate_held"][rows]
                rew_b[t, rows] += bonus * held
                held_n += int(held.sum())
            for i in np.flatnonzero(v["done"]).tolist():  # terminal rewards to each learner seat's last decision
                self.episodes += 1
                for s in range(P):
                    if last[i, s] >= 0:
                        rew_b[last[i, s], i] += v["rewards"][i, s]
                        term_b[last[i, s], i] = True
                last[i] = -1
            self.steps += int(mine.sum())
        self.rollout_times = {"act_s": t_act, "games_s": t_games}
        if bonus:
            self.last_gate = {"gate_bonus": bonus, "gate_held_share": held_n / max(1, int(mine_b.sum()))}
        adv_b = chain_advantages(val_b, rew_b, term_b, seat_b, mine_b, cfg.ppo.gamma, cfg.ppo.gae_lambda, P)
        flat = torch.from_numpy(np.flatnonzero(mine_b.reshape(-1))).to(dev)
        adv_t = torch.from_numpy(adv_b.reshape(-1)).to(dev)[flat]
        ret_t = adv_t + torch.from_numpy(val_b.reshape(-1)).to(dev)[flat]
        return {
            "obs": obs_b.reshape(T * n, -1)[flat],
            "mask": mask_b.reshape(T * n, -1)[flat],
            "actions": act_b.reshape(-1)[flat],
            "logp": logp_b.reshape(-1)[flat],
            "adv": adv_t,
            "ret": ret_t,
        }

    def update(self, data: dict[str, torch.Tensor]) -> dict[str, float]:
        p = self.cfg.ppo
        size = len(data["adv"])
        stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": []}
        if size == 0:
            return {}
        for _ in range(p.n_epochs):
            order = torch.randperm(size, device=self.dev)
            for start in range(0, size, p.batch_size):
                mb = order[start : start + p.batch_size]
                obs = data["obs"][mb]  # gathered once for both networks (a minibatch of 6,235-value rows is ~25 MB)
                logits = masked_logits(self.agent.pi(obs), data["mask"][mb])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, data["actions"][mb, None]).squeeze(1)
                ratio = torch.exp(logp - data["logp"][mb])
                adv = data["adv"][mb]
                if len(mb) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - p.clip_range, 1 + p.clip_range)).mean()
                value = self.agent.vf(obs).squeeze(1)
                v_loss = 0.5 * ((value - data["ret"][mb]) ** 2).mean()
                # softmax, not logp_all.exp(): exp of the masked entries' ~-1e9 takes a slow path (20x, CPU); a masked
                # entry's probability is exactly 0 and its log-probability finite, so it adds 0 to the entropy
                entropy = -(torch.softmax(logits, dim=1) * logp_all).sum(1).mean()
                loss = pg + p.vf_coef * v_loss - p.ent_coef * entropy
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.agent.parameters(), p.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    stats["approx_kl"].append(float(((ratio - 1) - torch.log(ratio)).mean()))
                stats["policy_loss"].append(float(pg.detach()))
                stats["value_loss"].append(float(v_loss.detach()))
                stats["entropy"].append(float(entropy.detach()))
        return {k: float(np.mean(x)) for k, x in stats.items()}
