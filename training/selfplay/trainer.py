"""The fast self-play trainer, ``balance-control train --backend selfplay``: PPO in one readable module, in the spirit
of CleanRL's single-file PPO, over the batched environment ``bc_env.vector.SelfPlayVectorEnv``.

* Games: ``selfplay.workers`` processes each step ``selfplay.games_per_worker`` games in one call and write the
  observations, masks, seats to move, rewards and the seat roles into shared memory (``multiprocessing.shared_memory``);
  ``workers = 0`` steps them in this process.
* Seats: each new game draws its opponents (``pool.p_random``, ``pool.p_heuristic``, else with ``selfplay.p_self``
  the current network in every seat, else one learner seat against a frozen snapshot of the network from the pool:
  the latest with ``pool.p_latest``, else any). Every decision of the current network is a training sample; the
  snapshots and the random seats act in the same batched step (one forward pass per network, masked sampling);
  heuristic seats are played inside the worker processes, never here. No bot is imitated: the network starts from
  random weights (no behaviour cloning, no ``init_policy``).
* PPO: rollouts of ``ppo.n_steps`` batch steps, generalised advantage estimation along each seat's own decisions
  (a seat's next decision in the same game is its next state; the terminal reward goes to its last decision),
  clipped surrogate, value loss, entropy bonus, ``ppo.n_epochs`` epochs of ``ppo.batch_size`` minibatches.
* Run directory ``runs/<name>/`` as the sb3 backend's: ``config.json``, ``tb/`` (TensorBoard), ``checkpoint/``
  (networks, optimizer, snapshots, counters; ``--resume`` continues, games in progress restart), ``evals.json``,
  ``learning_curve.png`` (win rate over learner steps and over wall time), ``policy.npz`` + ``policy.json`` (the
  torch-free bot: ``policies.load("runs/<name>/policy")``) and ``summary.json``.

A learner step is one decision of the current network (a training sample); ``total_steps`` counts them.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bc_env.encoding import encoder_version
from bc_env.rules import Game, RulesConfig
from bc_env.vector import SelfPlayVectorEnv
from policies.neural import NeuralPolicy, save_policy
from training.config import TrainConfig, TrainConfigError
from training.evaluation import evaluate
from training.rundir import RunDirError, check_resume, write_json_atomic

from .games import KINDS, LEARNER, SNAPSHOT, Games

__all__ = ["RunDirError", "train"]

#: Keys whose change makes a run directory incompatible.
IDENTITY_KEYS = ("rules", "seed", "net_arch", "activation", "reward")


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

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [
            (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
            for m in self.pi
            if isinstance(m, nn.Linear)
        ]


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, -1e9)


def sample(logits: torch.Tensor) -> torch.Tensor:
    """One action per row from masked logits (Gumbel-max: the same distribution as a categorical draw)."""
    u = torch.rand_like(logits).clamp_(1e-12, 1.0)
    return torch.argmax(logits - torch.log(-torch.log(u)), dim=1)


# ---------------------------------------------------------------------------- run state


@dataclass
class RunState:
    steps: int = 0
    wall_seconds: float = 0.0
    episodes: int = 0
    evals: list[dict[str, Any]] = field(default_factory=list)
    last_snapshot: int = 0
    last_eval: int = 0
    last_checkpoint: int = 0
    next_snapshot_id: int = 0
    #: Ids of the snapshots new games may draw (the latest ``pool.max_snapshots``).
    snapshots: list[int] = field(default_factory=list)


def identity(cfg: TrainConfig, rules: RulesConfig) -> dict[str, Any]:
    d = cfg.to_dict()
    ident = {k: d[k] for k in IDENTITY_KEYS}
    ident.update(backend="selfplay", rules=rules.to_dict(), encoder_version=encoder_version(rules))
    ident["num_actions"] = Game.new(rules, 0).num_actions
    return ident


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RunDirError("device = 'cuda' but torch sees no CUDA device; use device = 'auto' or 'cpu'")
    return device


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


class Trainer:
    """PPO over the batched games; :func:`train` is the entry point."""

    def __init__(self, cfg: TrainConfig, rules: RulesConfig, run_dir: Path, device: str, progress: bool) -> None:
        self.cfg, self.rules, self.run_dir, self.device = cfg, rules, run_dir, device
        probe = SelfPlayVectorEnv(rules, 1)
        self.obs_dim, self.num_actions, self.players = probe.obs_dim, probe.num_actions, rules.players
        hidden = list(cfg.net_arch)
        self.agent = Agent(self.obs_dim, self.num_actions, hidden, cfg.activation).to(device)
        self.optimizer = torch.optim.Adam(self.agent.parameters(), lr=cfg.ppo.learning_rate, eps=1e-5)
        self.snapshot_nets: dict[int, nn.Sequential] = {}
        self.state = RunState()
        self.progress = progress
        self.recent: dict[int, list[float]] = {k: [] for k in range(1, len(KINDS))}

    # ------------------------------------------------------------------ checkpoints
    def save(self) -> None:
        tmp, final, old = self.run_dir / "checkpoint.tmp", self.run_dir / "checkpoint", self.run_dir / "checkpoint.old"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        torch.save(
            {
                "agent": self.agent.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "snapshots": {str(k): net.state_dict() for k, net in self.snapshot_nets.items()},
                "torch_rng": torch.get_rng_state(),
            },
            tmp / "model.pt",
        )
        write_json_atomic(tmp / "state.json", asdict(self.state))
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)
        self.state.last_checkpoint = self.state.steps

    def load(self) -> None:
        ck = self.run_dir / "checkpoint"
        data = torch.load(ck / "model.pt", map_location=self.device, weights_only=True)  # tensors only, no pickle
        self.agent.load_state_dict(data["agent"])
        self.optimizer.load_state_dict(data["optimizer"])
        torch.set_rng_state(data["torch_rng"])
        for k, sd in data["snapshots"].items():
            self.snapshot_nets[int(k)] = self._frozen(sd)
        self.state = RunState(**json.loads((ck / "state.json").read_text(encoding="utf-8")))

    def _frozen(self, state_dict: dict[str, Any]) -> nn.Sequential:
        net = _mlp([self.obs_dim, *self.cfg.net_arch, self.num_actions], self.cfg.activation, 0.01).to(self.device)
        net.load_state_dict(state_dict)
        net.requires_grad_(False)
        return net

    def snapshot(self, games: Games) -> None:
        """A frozen copy of the current policy joins the pool; only the latest ``pool.max_snapshots`` are drawn for
        new games, and one is dropped when no game uses it any more."""
        s = self.state
        k = s.next_snapshot_id
        s.next_snapshot_id += 1
        self.snapshot_nets[k] = self._frozen(self.agent.pi.state_dict())
        s.snapshots = (s.snapshots + [k])[-self.cfg.pool.max_snapshots :]
        in_use = set((games.v["roles"][games.v["roles"] >= SNAPSHOT] - SNAPSHOT).tolist())
        for old in [x for x in self.snapshot_nets if x not in s.snapshots and x not in in_use]:
            del self.snapshot_nets[old]
        games.set_snapshots(s.snapshots)
        s.last_snapshot = s.steps

    # ------------------------------------------------------------------ export and evaluation
    def export(self, path: Path, provenance: dict[str, Any]) -> Path:
        manifest = {
            "name": self.cfg.name,
            "rules": self.rules.to_dict(),
            "rules_preset": self.rules.name,
            "encoder_version": encoder_version(self.rules),
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
        return save_policy(path, self.agent.layers(), manifest)

    def provenance(self) -> dict[str, Any]:
        s, dev = self.state, self.device
        return {
            "run": self.cfg.name,
            "steps": s.steps,
            "wall_seconds": round(s.wall_seconds, 1),
            "command": " ".join(sys.argv),
            "config": self.cfg.to_dict(),
            "cpu_count": os.cpu_count(),
            "workers": self.cfg.selfplay.workers,
            "platform": platform.platform(),
            "device": dev + (f" ({torch.cuda.get_device_name()})" if dev == "cuda" else ""),
            "imitation": "none (trained from random weights)",
        }

    def evaluate(self, writer: Any) -> dict[str, Any]:
        s = self.state
        path = self.export(self.run_dir / "eval" / "current", self.provenance())
        bot = NeuralPolicy(path)
        games = self.cfg.eval_games
        result = evaluate(bot, self.rules, games, seed=10_000 + 7919 * len(s.evals))
        if self.cfg.selfplay.eval_expert:
            from policies.arena import play_match

            m = play_match(self.rules, [bot] + ["expert"] * (self.players - 1), games, 20_000 + 7919 * len(s.evals))
            st = m.entrants[0]
            lo, hi = st.ci95
            result["expert"] = {"win_rate": st.win_rate, "ci_low": lo, "ci_high": hi, "games": games}
        entry = {"step": s.steps, "wall_seconds": round(s.wall_seconds, 1), **result}
        s.evals.append(entry)
        for opponent, r in result.items():
            writer.add_scalar(f"eval/win_rate_vs_{opponent}", r["win_rate"], s.steps)
        write_json_atomic(self.run_dir / "evals.json", s.evals)
        s.last_eval = s.steps
        return entry

    # ------------------------------------------------------------------ acting
    @torch.no_grad()
    def act(self, games: Games) -> tuple[np.ndarray, torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray]:
        """Actions for every game (the current network, the snapshots and the random seats, batched); returns
        (actions, log-probabilities, values, masks, rows of the current network)."""
        v = games.v
        obs = torch.from_numpy(v["obs"]).to(self.device)
        mask = torch.from_numpy(v["mask"]).to(self.device)
        role = v["roles"][np.arange(games.n), v["to_move"]]
        logits = torch.zeros((games.n, self.num_actions), device=self.device)  # random seats: uniform
        mine = role == LEARNER
        idx = torch.from_numpy(np.flatnonzero(mine)).to(self.device)
        values = torch.zeros(games.n, device=self.device)
        if len(idx):
            logits[idx] = self.agent.pi(obs[idx])
            values[idx] = self.agent.vf(obs[idx]).squeeze(1)
        for k in np.unique(role[role >= SNAPSHOT]).tolist():
            rows = torch.from_numpy(np.flatnonzero(role == k)).to(self.device)
            logits[rows] = self.snapshot_nets[k - SNAPSHOT](obs[rows])
        logits = masked_logits(logits, mask)
        actions = sample(logits)
        logp = torch.log_softmax(logits, dim=1).gather(1, actions[:, None]).squeeze(1)
        return actions.cpu().numpy(), logp, values, mask, mine

    # ------------------------------------------------------------------ PPO
    def rollout(self, games: Games, writer: Any, bar: Any) -> dict[str, torch.Tensor]:
        cfg, n, T, P = self.cfg, games.n, self.cfg.ppo.n_steps, self.players
        dev = self.device
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
        v = games.v
        for t in range(T):
            obs_b[t].copy_(torch.from_numpy(v["obs"]))
            actions, logp, values, mask, mine = self.act(games)
            mask_b[t] = mask
            act_b[t] = torch.from_numpy(actions).to(dev)
            logp_b[t] = logp
            val_b[t] = values.cpu().numpy()
            mine_b[t] = mine
            seat_b[t] = v["to_move"]
            rows = np.flatnonzero(mine)
            last[rows, seat_b[t, rows]] = t
            v["actions"][:] = actions
            outcomes = games.step()
            for kind, score in outcomes:
                self.recent[kind].append(score)
            for i in np.flatnonzero(v["done"]).tolist():  # terminal rewards to each learner seat's last decision
                self.state.episodes += 1
                for s in range(P):
                    if last[i, s] >= 0:
                        rew_b[last[i, s], i] += v["rewards"][i, s]
                        term_b[last[i, s], i] = True
                last[i] = -1
            steps = int(mine.sum())
            self.state.steps += steps
            if bar is not None:
                bar.update(steps)
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
            order = torch.randperm(size, device=self.device)
            for start in range(0, size, p.batch_size):
                mb = order[start : start + p.batch_size]
                logits = masked_logits(self.agent.pi(data["obs"][mb]), data["mask"][mb])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, data["actions"][mb, None]).squeeze(1)
                ratio = torch.exp(logp - data["logp"][mb])
                adv = data["adv"][mb]
                if len(mb) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - p.clip_range, 1 + p.clip_range)).mean()
                value = self.agent.vf(data["obs"][mb]).squeeze(1)
                v_loss = 0.5 * ((value - data["ret"][mb]) ** 2).mean()
                probs = logp_all.exp()
                entropy = -(probs * torch.where(probs > 0, logp_all, torch.zeros_like(logp_all))).sum(1).mean()
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


# ---------------------------------------------------------------------------- main entry


def train(cfg: TrainConfig, *, resume: bool = False, progress: bool | None = None) -> dict[str, Any]:
    """Train (or resume) a selfplay run; returns the summary (also written to ``summary.json``)."""
    invoked = time.time()
    if cfg.network != "mlp" or cfg.bc_games or cfg.init_policy:
        raise TrainConfigError(
            "backend 'selfplay' trains the mlp network from random weights (no bc_games, init_policy)"
        )
    rules = RulesConfig.resolve(cfg.rules)
    run_dir = cfg.run_dir
    if progress is None:
        progress = sys.stderr.isatty()
    ident = identity(cfg, rules)
    if resume:
        check_resume(run_dir, ident, "model.pt")
    elif (run_dir / "checkpoint").exists():
        raise RunDirError(f"{run_dir} already holds a run; use --resume to continue it or --set name=... for a new one")
    run_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(
        run_dir / "config.json", {"config": cfg.to_dict(), "identity": ident, "command": " ".join(sys.argv)}
    )
    device = resolve_device(cfg.device)
    if cfg.selfplay.torch_threads:
        torch.set_num_threads(cfg.selfplay.torch_threads)
    torch.manual_seed(cfg.seed)
    trainer = Trainer(cfg, rules, run_dir, device, progress)
    if resume:
        trainer.load()
    s = trainer.state
    sp = cfg.selfplay
    print(
        f"{cfg.name}: rules {rules.name}, {max(1, sp.workers) * sp.games_per_worker} games in "
        f"{sp.workers or 'no'} worker process(es), learner on {device}"
    )
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    games = Games(cfg, rules, cfg.seed + s.steps)  # a resumed run starts new games (documented)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.total_steps, initial=s.steps, unit="step", dynamic_ncols=True)
    interrupted = out_of_time = False
    start = t0 = time.time()
    steps0 = s.steps
    _interrupt_on_sigterm()
    try:
        games.set_snapshots(s.snapshots)
        for kind, score in games.reset():
            trainer.recent[kind].append(score)
        while s.steps < cfg.total_steps:
            if cfg.max_seconds and time.time() - invoked > cfg.max_seconds:
                out_of_time = True
                break
            t_roll = time.time()
            data = trainer.rollout(games, writer, bar)
            t_upd = time.time()
            stats = trainer.update(data)
            now = time.time()
            s.wall_seconds += now - t0
            t0 = now
            for k, x in stats.items():
                writer.add_scalar(f"train/{k}", x, s.steps)
            rate = (s.steps - steps0) / max(now - start, 1e-9)
            writer.add_scalar("perf/learner_steps_per_s", rate, s.steps)
            writer.add_scalar("perf/rollout_s", t_upd - t_roll, s.steps)
            writer.add_scalar("perf/update_s", now - t_upd, s.steps)
            for kind, scores in trainer.recent.items():
                if len(scores) >= 10:
                    writer.add_scalar(f"rollout/score_vs_{KINDS[kind]}", float(np.mean(scores)), s.steps)
                    trainer.recent[kind] = scores[-200:]
            if bar is not None:
                bar.set_postfix_str(f"{rate:,.0f} steps/s" + _postfix(s.evals))
            if s.steps - s.last_snapshot >= cfg.pool.snapshot_every:
                trainer.snapshot(games)
            if s.steps - s.last_eval >= cfg.eval_every:
                trainer.evaluate(writer)
                t0 = time.time()  # evaluation time is not training time
            if s.steps - s.last_checkpoint >= cfg.checkpoint_every:
                trainer.save()
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: writing a checkpoint ...", file=sys.stderr)
    finally:
        s.wall_seconds += time.time() - t0
        games.close()
        if bar is not None:
            bar.close()
    trainer.save()
    session = time.time() - start
    if interrupted:
        writer.close()
        print(f"checkpoint written to {run_dir / 'checkpoint'}; continue with --resume", file=sys.stderr)
        return {"interrupted": True, "steps": s.steps}
    if not s.evals or s.evals[-1]["step"] != s.steps:
        trainer.evaluate(writer)
    writer.close()
    trainer.save()
    policy = trainer.export(run_dir / "policy", {**trainer.provenance(), "stopped_by": _stopped(out_of_time)})
    plot_curves(s.evals, run_dir / "learning_curve.png", f"{cfg.name} ({rules.name}, selfplay, from zero)")
    last = s.evals[-1]
    summary = {
        "run": cfg.name,
        "steps": s.steps,
        "episodes": s.episodes,
        "wall_seconds": round(s.wall_seconds, 1),
        "this_session_seconds": round(session, 1),
        "learner_steps_per_s": round((s.steps - steps0) / max(session, 1e-9), 1),
        "stopped_by": _stopped(out_of_time),
        **{f"vs_{k}": last[k] for k in ("random", "heuristic", "expert") if k in last},
        "policy": str(policy.with_suffix(".npz")),
    }
    write_json_atomic(run_dir / "summary.json", summary)
    print(
        f"done: {cfg.name} {s.steps:,} learner steps in {s.wall_seconds:.0f}s "
        f"({summary['learner_steps_per_s']:,.0f}/s this session); win rate vs random {last['random']['win_rate']:.0%}, "
        f"vs heuristic {last['heuristic']['win_rate']:.0%} ({last['random']['games']} games each); bot: {policy}.npz"
    )
    return summary


def _stopped(out_of_time: bool) -> str:
    return "max_seconds" if out_of_time else "total_steps"


def _postfix(evals: list[dict[str, Any]]) -> str:
    if not evals:
        return ""
    e = evals[-1]
    return ", " + ", ".join(f"vs {k} {e[k]['win_rate']:.0%}" for k in ("random", "heuristic", "expert") if k in e)


def _interrupt_on_sigterm() -> None:
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)


def plot_curves(evals: list[dict[str, Any]], path: Path, title: str) -> None:
    """Win rate (95% CI) against each evaluation opponent over learner steps and over wall-clock minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    colors = {"random": "tab:blue", "heuristic": "tab:red", "expert": "tab:purple"}
    for ax, key, label in ((axes[0], "step", "learner steps"), (axes[1], "wall_seconds", "wall-clock minutes")):
        xs = [e[key] / (60.0 if key == "wall_seconds" else 1.0) for e in evals]
        for opponent, color in colors.items():
            if not all(opponent in e for e in evals):
                continue
            ax.plot(xs, [e[opponent]["win_rate"] for e in evals], marker="o", color=color, label=f"vs {opponent}")
            lo = [e[opponent]["ci_low"] for e in evals]
            hi = [e[opponent]["ci_high"] for e in evals]
            ax.fill_between(xs, lo, hi, color=color, alpha=0.15)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (shared = 1/k; 95% CI)")
    axes[0].set_ylim(0, 1)
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
