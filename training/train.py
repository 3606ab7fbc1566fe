"""The sb3 backend: sb3-contrib's MaskablePPO against an opponent pool (``balance-control train``, the default).

    balance-control train --config configs/train/ppo-core-2p.toml [--set key=value ...] [--resume]

The run around it (run directory, cadences, evaluation, checkpoints, resume, export, summary) is the training
core's (``training/core.py``). What is this backend's own: the single-agent environments in processes
(:class:`TrainingEnv`, the pool sampled per episode), the MaskablePPO model, behaviour cloning and DAgger before
PPO (``bc/``), ``checkpoint/model.zip`` (model and optimizer) with the Python, NumPy and torch RNG states, and
sb3's logger (TensorBoard in ``tb/`` and ``tb/progress.csv``).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from bc_env.encoding import Encoder
from bc_env.env.single_agent import SingleAgentEnv
from bc_env.rules import Game, RulesConfig
from policies import load as load_policy
from policies.neural import NeuralPolicy, PolicyFileError

from . import core
from .config import PoolConfig, TrainConfig, TrainConfigError
from .core import Backend, Run
from .demonstrations import collect_demonstrations
from .export import export_policy, load_policy_weights, parent_provenance
from .pool import PoolSampler, pool_composition
from .rundir import RunDirError as RunDirError  # the error of a run directory (tests import it from here)
from .rundir import write_json_atomic
from .spatial import SpatialPolicy
from .spatial import policy_kwargs as spatial_policy_kwargs

#: Keys whose change makes a run directory incompatible (total_steps, eval and checkpoint cadence may change).
IDENTITY_KEYS = (
    "rules",
    "seed",
    "n_envs",
    "network",
    "conv_channels",
    "conv_layers",
    "net_arch",
    "activation",
    "reward",
    "ppo",
    "pool",
    "teacher",
    "bc_games",
    "bc_epochs",
    "bc_dagger_rounds",
    "bc_mistake_weight",
)


# ---------------------------------------------------------------------------- environments


class PoolOpponents:
    """Callable for ``SingleAgentEnv(opponents=...)``: draws the episode's opponents from the pool."""

    def __init__(self, pool: PoolConfig, players: int, seed: int) -> None:
        self.sampler = PoolSampler(pool, seed)
        self.players = players

    def __call__(self) -> list[Any]:
        return [self.sampler.sample() for _ in range(self.players - 1)]


class TrainingEnv(SingleAgentEnv):
    """The single-agent env plus what the trainer needs across processes: pool updates."""

    def __init__(self, rules: RulesConfig, pool: PoolConfig, seed: int, reward: str = "zero_sum") -> None:
        self.pool_opponents = PoolOpponents(pool, rules.players, seed)
        super().__init__(rules, opponents=self.pool_opponents, learner_seat="rotate", reward_scheme=reward)

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        self.pool_opponents.sampler.set_snapshots(snapshots)


def _make_env(rules: RulesConfig, pool: PoolConfig, seed: int, reward: str) -> Any:
    def thunk() -> Any:
        env = Monitor(TrainingEnv(rules, pool, seed, reward))
        env.reset(seed=seed)
        return env

    return thunk


def make_vec_env(cfg: TrainConfig, rules: RulesConfig, seed: int) -> Any:
    thunks = [_make_env(rules, cfg.pool, seed + 1000 * i, cfg.reward) for i in range(cfg.n_envs)]
    if cfg.n_envs == 1:
        return DummyVecEnv(thunks)
    return SubprocVecEnv(thunks, start_method="fork" if sys.platform != "win32" else "spawn")


# ---------------------------------------------------------------------------- init_policy


def init_policy(cfg: TrainConfig, rules: RulesConfig) -> NeuralPolicy:
    """The trained policy a run starts from (``cfg.init_policy``: a shipped bot's name or an exported policy's path):
    trained for the same rules, with the run's network type, shape and activation; a bad value raises
    :class:`TrainConfigError` naming what differs."""
    name = cfg.init_policy
    try:
        policy = load_policy(name)
    except (ValueError, PolicyFileError) as exc:
        raise TrainConfigError(f"init_policy {name!r}: {exc}") from None
    if not isinstance(policy, NeuralPolicy):
        raise TrainConfigError(f"init_policy {name!r} is not a trained policy (a shipped bot or an exported policy)")
    if policy.rules.to_dict() != rules.to_dict():
        raise TrainConfigError(
            f"init_policy {name!r} was trained for rules {policy.rules.name}, this run is {rules.name}"
        )
    if policy.kind != cfg.network:
        raise TrainConfigError(f"init_policy {name!r} has a {policy.kind} network, this run's network is {cfg.network}")
    if policy.kind == "spatial":
        shape = {"conv_channels": int(policy.net["channels"]), "conv_layers": int(policy.net["layers"])}
    else:
        shape = {"net_arch": tuple(int(w.shape[0]) for w, _ in policy.layers[:-1])}
    shape["activation"] = policy.manifest.activation
    for key, value in shape.items():
        if getattr(cfg, key) != value:
            raise TrainConfigError(f"init_policy {name!r} has {key} = {value!r}, this run has {getattr(cfg, key)!r}")
    return policy


INIT_FROM = "init_from.json"  # the parent policy's provenance in a run started with init_policy


def init_from(run_dir: Path) -> dict[str, Any]:
    """``{"init_from": ...}`` for an export's provenance when the run started from a trained policy, else ``{}``."""
    path = run_dir / INIT_FROM
    return {"init_from": json.loads(path.read_text())} if path.exists() else {}


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, tuple | list):
        return [_jsonable(x) for x in obj]
    return obj


def _restore_rng(rng: dict[str, Any]) -> None:
    py = rng["python"]
    random.setstate((py[0], tuple(py[1]), py[2]))
    npst = rng["numpy"]
    np.random.set_state((npst[0], np.array(npst[1], dtype=np.uint32), npst[2], npst[3], npst[4]))
    torch.set_rng_state(torch.tensor(rng["torch"], dtype=torch.uint8))


# ---------------------------------------------------------------------------- behaviour cloning


def action_kinds(rules: RulesConfig) -> np.ndarray:
    """The kind of every action id: the verb of its action string (docs/actions.md), numbered in layout order:
    place-tile, place, move-from, move-to, formalize, convert, pass, pay, gain, and with an expansion take, play,
    target, target-player, exchange, decline."""
    lay = Game.new(rules, 0).layout
    verbs = [lay.to_string(a).split()[0] for a in range(lay.num_actions)]
    number = {verb: i for i, verb in enumerate(dict.fromkeys(verbs))}
    return np.array([number[v] for v in verbs], dtype=np.int64)


def behaviour_cloning(
    model: Any,
    data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    epochs: int,
    seed: int,
    kinds: np.ndarray | None = None,
) -> float:
    """Supervised warm start: the policy head imitates the demonstrations (cross-entropy on masked logits) and
    the value head regresses the discounted final rewards, so PPO starts with a critic that matches the
    policy instead of a random one. With ``kinds`` (:func:`action_kinds`) a second cross-entropy on the
    probability of each kind of action (the sum over its block) makes the network agree with the teacher on
    *what* to do even where the teacher's choice among equivalent actions is arbitrary (tie-breaks): e.g. not
    to place the last Starting Influence at all while holding the FormalizeInfluence gate (CORE-01-08-02),
    which a spread of small probabilities over many other actions would otherwise lose to the single best
    Place under argmax. Each position's imitation terms count its weight (:func:`collect_demonstrations`).
    Returns the final imitation accuracy."""
    policy = model.policy
    device = policy.device
    obs, masks, acts, vals, weights = (torch.as_tensor(x) for x in data)
    kind_of = torch.as_tensor(kinds, device=device) if kinds is not None else None
    n_kinds = int(kind_of.max()) + 1 if kind_of is not None else 0
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(seed)
    n = len(acts)
    acc = 0.0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        correct = 0
        for start in range(0, n, 256):
            idx = perm[start : start + 256]
            o, m, a, v = obs[idx].to(device), masks[idx].to(device), acts[idx].to(device), vals[idx].to(device)
            w = weights[idx].to(device)
            features = policy.extract_features(o, policy.pi_features_extractor)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
            logits = logits.masked_fill(~m, -1e9)
            if policy.share_features_extractor:  # one trunk for both heads: compute it once
                vf_features = features
            else:
                vf_features = policy.extract_features(o, policy.vf_features_extractor)
            value = policy.value_net(policy.mlp_extractor.forward_critic(vf_features)).squeeze(-1)
            imitation = torch.nn.functional.cross_entropy(logits, a, reduction="none")
            if kind_of is not None:
                probs = torch.softmax(logits, dim=1)
                kind_probs = torch.zeros((len(a), n_kinds), device=device, dtype=probs.dtype)
                kind_probs = kind_probs.scatter_add(1, kind_of.expand(len(a), -1), probs)
                log_kind = torch.log(kind_probs.clamp_min(1e-12))
                imitation = imitation + torch.nn.functional.nll_loss(log_kind, kind_of[a], reduction="none")
            loss = (w * imitation).sum() / w.sum() + 0.5 * torch.nn.functional.mse_loss(value, v)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += int((logits.argmax(1) == a).sum())
        acc = correct / max(n, 1)
    return acc


# ---------------------------------------------------------------------------- the backend


class SB3Backend(Backend):
    """sb3-contrib's MaskablePPO on :class:`TrainingEnv` processes; the run around it is ``training/core.py``'s.
    Its own: the model, behaviour cloning and DAgger at the start, ``checkpoint/model.zip`` with the RNG states,
    and sb3's logger (TensorBoard and ``tb/progress.csv``)."""

    name = "sb3"
    identity_keys = IDENTITY_KEYS
    checkpoint_file = "model.zip"

    def __init__(self, cfg: TrainConfig) -> None:
        super().__init__(cfg)
        self.model: Any = None
        self.env: Any = None
        self.init: NeuralPolicy | None = None
        self.behaviour_cloning: dict[str, Any] = {}
        self._device = core.resolve_device(cfg.device)
        self.run_dir = cfg.run_dir
        self.rules = RulesConfig.resolve(cfg.rules)

    def check(self, rules: RulesConfig) -> None:
        if self.cfg.init_policy:
            self.init = init_policy(self.cfg, rules)

    def describe(self, rules: RulesConfig) -> str:
        cfg = self.cfg
        return f"{cfg.name}: rules {rules.name}, {cfg.n_envs} environment process(es), learner on {self._device}"

    def device(self) -> str:
        return self._device + (f" ({torch.cuda.get_device_name()})" if self._device == "cuda" else "")

    def provenance(self) -> dict[str, Any]:
        return {
            **({"behaviour_cloning": self.behaviour_cloning} if self.behaviour_cloning else {}),
            **init_from(self.run_dir),
        }

    # ---------------------------------------------------------------- start, restore, save
    def start(self, run: Run) -> None:
        cfg, rules = self.cfg, run.rules
        if self.init is not None:  # kept in the run directory: the final export after a --resume names the parent too
            write_json_atomic(run.run_dir / INIT_FROM, parent_provenance(self.init, cfg.init_policy))
        activation = torch.nn.Tanh if cfg.activation == "tanh" else torch.nn.ReLU
        arch = list(cfg.net_arch)
        random.seed(cfg.seed)
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.env = make_vec_env(cfg, rules, cfg.seed)
        p = cfg.ppo
        if cfg.network == "spatial":
            policy: Any = SpatialPolicy
            kwargs = spatial_policy_kwargs(Encoder(rules), cfg.conv_channels, cfg.conv_layers, arch, cfg.activation)
        else:
            policy = "MlpPolicy"
            kwargs = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activation}
        self.model = MaskablePPO(
            policy,
            self.env,
            learning_rate=p.learning_rate,
            n_steps=p.n_steps,
            batch_size=p.batch_size,
            n_epochs=p.n_epochs,
            gamma=p.gamma,
            gae_lambda=p.gae_lambda,
            clip_range=p.clip_range,
            ent_coef=p.ent_coef,
            vf_coef=p.vf_coef,
            max_grad_norm=p.max_grad_norm,
            policy_kwargs=kwargs,
            seed=cfg.seed,
            device=self._device,
            verbose=0,
        )
        self.model.set_logger(_logger(run.run_dir))
        run.log = self.model.logger
        _log_hparams(self.model, cfg)
        if self.init is not None:
            load_policy_weights(self.model, self.init)  # recorded in the provenance's config (init_policy)
            print(f"policy initialised from {cfg.init_policy}")
        if cfg.bc_games:
            self._clone(run)

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        self.behaviour_cloning = state.get("behaviour_cloning", {})
        _restore_rng(state["rng"])
        csv_log = run.run_dir / "tb" / "progress.csv"
        if csv_log.is_file():  # sb3's CSV logger starts a new file: keep the earlier invocation's rows
            csv_log.rename(csv_log.with_name(f"progress-until-{run.steps:09d}.csv"))
        self.env = make_vec_env(self.cfg, run.rules, self.cfg.seed + run.steps)  # in-progress episodes restart
        self.model = MaskablePPO.load(directory / "model.zip", env=self.env, device=self._device)
        self.model.set_logger(_logger(run.run_dir))
        run.log = self.model.logger

    def save(self, directory: Path) -> dict[str, Any]:
        self.model.save(directory / "model.zip")  # policy, value net and optimizer state
        rng = {
            "python": _jsonable(random.getstate()),
            "numpy": _jsonable(np.random.get_state()),
            "torch": torch.get_rng_state().tolist(),
        }
        return {"num_timesteps": int(self.model.num_timesteps), "behaviour_cloning": self.behaviour_cloning, "rng": rng}

    # ---------------------------------------------------------------- learning, export
    def learn(self, run: Run) -> None:
        remaining = run.plan.total - self.model.num_timesteps
        self.model.learn(total_timesteps=remaining, callback=_Callback(run, self), reset_num_timesteps=False)

    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        act = self.cfg.activation
        return export_policy(self.model, path, name=name, rules=self.rules, activation=act, provenance=provenance)

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        self.env.env_method("set_snapshots", snapshots)
        self.log_pool(snapshots)

    def log_pool(self, snapshots: list[dict[str, Any]]) -> None:
        for kind, p in pool_composition(self.cfg.pool, len(snapshots)).items():
            self.model.logger.record(f"pool/p_{kind}", p)
        self.model.logger.record("pool/snapshots", len(snapshots))

    def close(self) -> None:
        # The environment processes may be gone already (a signal sent to the whole process group).
        if self.env is not None:
            with contextlib.suppress(BrokenPipeError, EOFError, ConnectionError):
                self.env.close()
            self.env = None

    # ---------------------------------------------------------------- behaviour cloning at the start
    def _clone(self, run: Run) -> None:
        cfg, rules, model, run_dir = self.cfg, run.rules, self.model, run.run_dir
        t = time.time()
        bc_info = self.behaviour_cloning = {"teacher": cfg.teacher, "games": cfg.bc_games, "epochs": cfg.bc_epochs}
        data = collect_demonstrations(
            rules,
            cfg.bc_games,
            seed=cfg.seed * 7919 + 17,
            gamma=cfg.ppo.gamma,
            workers=cfg.n_envs,
            reward=cfg.reward,
            teacher=cfg.teacher,
        )
        kinds = action_kinds(rules)
        acc = behaviour_cloning(model, data, cfg.bc_epochs, cfg.seed, kinds=kinds)
        print(f"behaviour cloning: {len(data[2])} {cfg.teacher} decisions, accuracy {acc:.1%}, {time.time() - t:.0f}s")
        for r in range(cfg.bc_dagger_rounds):  # DAgger: the learner plays, the teacher labels
            path = self.export(run_dir / "bc" / f"dagger-{r}", f"dagger-{r}", {"run": cfg.name, "dagger_round": r})
            more = collect_demonstrations(
                rules,
                cfg.bc_games,
                seed=cfg.seed * 7919 + 17 + 1_000_003 * (r + 1),
                gamma=cfg.ppo.gamma,
                workers=cfg.n_envs,
                reward=cfg.reward,
                learner=path,
                teacher=cfg.teacher,
                mistake_weight=cfg.bc_mistake_weight,
            )
            data = tuple(np.concatenate([a, b]) for a, b in zip(data, more, strict=True))  # type: ignore[assignment]
            del more
            acc = behaviour_cloning(model, data, cfg.bc_epochs, cfg.seed + r + 1, kinds=kinds)
            print(f"DAgger round {r + 1}: {len(data[2])} decisions, accuracy {acc:.1%}, {time.time() - t:.0f}s")
        bc_info.update(dagger_rounds=cfg.bc_dagger_rounds)
        bc_info.update(decisions=len(data[2]), accuracy=round(acc, 4), seconds=round(time.time() - t, 1))
        model.logger.record("bc/accuracy", acc)
        model.logger.record("bc/decisions", len(data[2]))
        # The cloned policy before any PPO step, to compare with (or ship instead of) the fine-tuned one.
        self.export(
            run_dir / "bc" / "cloned",
            f"{cfg.name}-cloned",
            {
                "run": cfg.name,
                "steps": 0,
                "wall_seconds": bc_info["seconds"],
                "command": " ".join(sys.argv),
                "config": cfg.to_dict(),
                "cpu_count": os.cpu_count(),
                "platform": platform.platform(),
                "device": self._device,
                "behaviour_cloning": bc_info,
                **init_from(run_dir),
            },
        )


class _Callback(BaseCallback):
    """sb3's hook into its own loop: after every environment step, the core's :meth:`Run.tick` (progress,
    snapshots, evaluations, checkpoints, the time budget) with the episodes finished and the training win rate."""

    def __init__(self, run: Run, backend: SB3Backend) -> None:
        super().__init__()
        self.run, self.backend = run, backend
        self.recent: list[float] = []

    def _on_training_start(self) -> None:
        self.backend.log_pool(self.run.state.snapshots)

    def _on_step(self) -> bool:
        finished = 0
        for info in self.locals.get("infos", []):
            ep = info.get("episode")
            if ep is not None:
                finished += 1
                self.recent.append(1.0 if ep["r"] > 0 else (0.5 if ep["r"] == 0 else 0.0))
                self.recent = self.recent[-200:]
        show = {"train win": f"{sum(self.recent) / len(self.recent):.0%}"} if self.recent else {}
        return self.run.tick(self.model.num_timesteps, episodes=finished, show=show)

    def _on_rollout_end(self) -> None:
        if self.recent:
            self.logger.record("train/win_rate_recent", sum(self.recent) / len(self.recent))
        self.logger.record("time/steps_per_second", self.run.rate())


def train(cfg: TrainConfig, *, resume: bool = False, progress: bool | None = None) -> dict[str, Any]:
    """Train (or resume) a run with the sb3 backend; returns the summary (also written to ``summary.json``)."""
    return core.train(SB3Backend(cfg), resume=resume, progress=progress)


def _logger(run_dir: Path) -> Any:
    from stable_baselines3.common.logger import configure

    return configure(str(run_dir / "tb"), ["tensorboard", "csv"])


def _log_hparams(model: Any, cfg: TrainConfig) -> None:
    from stable_baselines3.common.logger import HParam

    flat: dict[str, Any] = {}
    for k, v in cfg.to_dict().items():
        if isinstance(v, dict):
            flat.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        else:
            flat[k] = str(v) if isinstance(v, list | tuple) else v
    model.logger.record("hparams", HParam(flat, {"eval/win_rate_vs_heuristic": 0.0}), exclude=("stdout", "csv"))
    model.logger.dump(0)
