"""The RLlib run loop: ``balance-control train --backend rllib --config ... [--resume]``.

Same run directory layout as the sb3 trainer (``training/train.py``), so the same tools read both:
``config.json`` (configuration and identity), ``checkpoint/`` (``algo/``: RLlib's checkpoint of the algorithm with
modules, optimizers and env runner states; ``state.json``: step counter, pool, evaluations, RNG state; written
atomically at intervals, at the end and on Ctrl-C / SIGTERM), ``pool/`` (snapshots as NumPy policies),
``evals.json``, ``progress.jsonl`` (one line per training iteration: steps, steps/s, episode return, losses),
``learning_curve.png`` and at the end the exported bot ``policy.npz`` + ``policy.json`` (per-seat policies: also
``policy-seat_<i>``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import random
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import ray

from bc_env.encoding import encoder_version
from bc_env.rules import Game, RulesConfig
from policies import load as load_policy
from policies.neural import NeuralPolicy, PolicyFileError

from ..config import RLlibConfig, TrainConfig, TrainConfigError
from ..evaluation import evaluate, plot_learning_curve
from ..rundir import RunDirError, check_resume, write_json_atomic

#: Keys whose change makes a run directory incompatible. Where the run executes (rllib.address, num_cpus,
#: num_env_runners, num_learners, device) may change between invocations.
IDENTITY_KEYS = (
    "backend",
    "rules",
    "seed",
    "n_envs",
    "network",
    "net_arch",
    "activation",
    "reward",
    "ppo",
    "pool",
)


def identity(cfg: TrainConfig, rules: RulesConfig) -> dict[str, Any]:
    d = cfg.to_dict()
    ident = {k: d[k] for k in IDENTITY_KEYS}
    ident["rules"] = rules.to_dict()
    ident["rllib"] = {"policies": cfg.rllib.policies, "p_self": cfg.rllib.p_self}
    ident["encoder_version"] = encoder_version(rules)
    ident["num_actions"] = Game.new(rules, 0).num_actions
    return ident


def check_init_policy(cfg: TrainConfig, rules: RulesConfig) -> str:
    """The path of ``cfg.init_policy`` (a shipped bot's name or an exported policy) after checking that it is an
    MLP policy for the same rules and shape; a bad value raises :class:`TrainConfigError`."""
    name = cfg.init_policy
    try:
        policy = load_policy(name)
    except (ValueError, PolicyFileError) as exc:
        raise TrainConfigError(f"init_policy {name!r}: {exc}") from None
    if not isinstance(policy, NeuralPolicy) or policy.kind != "mlp":
        raise TrainConfigError(f"init_policy {name!r} is not a trained mlp policy (backend 'rllib' trains mlp only)")
    if policy.rules.to_dict() != rules.to_dict():
        raise TrainConfigError(
            f"init_policy {name!r} was trained for rules {policy.rules.name}, this run is {rules.name}"
        )
    hidden = tuple(int(w.shape[0]) for w, _ in policy.layers[:-1])
    if hidden != tuple(cfg.net_arch) or policy.manifest.activation != cfg.activation:
        raise TrainConfigError(
            f"init_policy {name!r} has net_arch {list(hidden)} and activation {policy.manifest.activation}, "
            f"this run has {list(cfg.net_arch)} and {cfg.activation}"
        )
    from policies import BOTS_DIR

    shipped = BOTS_DIR / name
    return str(shipped if shipped.with_suffix(".npz").is_file() else Path(name).with_suffix("").resolve())


def start_ray(r: RLlibConfig) -> bool:
    """Connect to the configured Ray cluster or start a local one; True when this call started Ray (and the run
    should shut it down). An already initialised Ray (a test, a notebook) is used as it is."""
    if ray.is_initialized():
        return False
    if r.address:
        try:
            ray.init(address=r.address, include_dashboard=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RunDirError(f"cannot connect to the Ray cluster at rllib.address = {r.address!r}: {exc}") from None
    else:
        ray.init(
            num_cpus=r.num_cpus,
            object_store_memory=r.object_store_mb * 1_000_000,
            include_dashboard=False,
            logging_level="ERROR",
        )
    return True


def push_snapshots(algo: Any, snapshots: list[dict[str, Any]]) -> None:
    """Hand the pool's snapshot list to every env of every env runner (paths: on a multi-node cluster the run
    directory must be on a file system all nodes share, see docs/training.md)."""

    def update(runner: Any) -> int:
        env = getattr(runner, "env", None)
        if env is None:  # the driver's local runner when remote runners sample
            return 0
        envs = getattr(env, "envs", None) or [env]
        for e in envs:
            e.unwrapped.set_snapshots(snapshots)
        return len(envs)

    algo.env_runner_group.foreach_env_runner(update, local_env_runner=True)


class Run:
    """One invocation of a run: the algorithm plus the trainer state that ``--resume`` restores."""

    def __init__(self, cfg: TrainConfig, rules: RulesConfig, run_dir: Path, algo: Any) -> None:
        self.cfg, self.rules, self.run_dir, self.algo = cfg, rules, run_dir, algo
        self.steps = 0
        self.episodes = 0
        self.iterations = 0
        self.snapshots: list[dict[str, Any]] = []
        self.evals: list[dict[str, Any]] = []
        self.last_snapshot = self.last_eval = self.last_checkpoint = 0
        self.wall_seconds = 0.0
        self.t0 = time.time()
        self.ids = sorted(algo.config.policies)

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "episodes": self.episodes,
            "iterations": self.iterations,
            "snapshots": self.snapshots,
            "evals": self.evals,
            "last_snapshot": self.last_snapshot,
            "last_eval": self.last_eval,
            "last_checkpoint": self.last_checkpoint,
            "wall_seconds": self.wall_seconds,
            "python_rng": _jsonable(random.getstate()),
        }

    def load(self) -> None:
        ckpt = self.run_dir / "checkpoint"
        self.algo.restore_from_path(str((ckpt / "algo").resolve()))
        s = json.loads((ckpt / "state.json").read_text(encoding="utf-8"))
        self.steps, self.episodes, self.iterations = s["steps"], s["episodes"], s["iterations"]
        self.snapshots, self.evals = s["snapshots"], s["evals"]
        self.last_snapshot, self.last_eval, self.last_checkpoint = (
            s["last_snapshot"],
            s["last_eval"],
            s["last_checkpoint"],
        )
        self.wall_seconds = s["wall_seconds"]
        py = s["python_rng"]
        random.setstate((py[0], tuple(py[1]), py[2]))
        push_snapshots(self.algo, self.snapshots)

    def checkpoint(self) -> None:
        """Atomic: write into checkpoint.tmp, then swap it in with renames."""
        self.wall_seconds += time.time() - self.t0
        self.t0 = time.time()
        tmp, final, old = self.run_dir / "checkpoint.tmp", self.run_dir / "checkpoint", self.run_dir / "checkpoint.old"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self.algo.save_to_path(str((tmp / "algo").resolve()))
        self.last_checkpoint = self.steps
        write_json_atomic(tmp / "state.json", self.state_dict())
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)

    # ------------------------------------------------------------------ policies
    def export(self, path: Path, module_id: str, name: str, provenance: dict[str, Any]) -> Path:
        from .export import export_module_state

        state = self.algo.learner_group.get_weights(module_ids=[module_id])[module_id]
        prov = {"run": self.cfg.name, "module": module_id, "steps": self.steps, **provenance}
        return export_module_state(
            state, path, name=name, rules=self.rules, activation=self.cfg.activation, provenance=prov
        )

    def snapshot(self) -> None:
        name = f"snapshot-{self.steps:09d}"
        path = self.export(self.run_dir / "pool" / name, self.ids[0], name, {})
        self.snapshots.append({"name": name, "path": str(path.resolve()), "step": self.steps})
        if len(self.snapshots) > self.cfg.pool.max_snapshots:
            del self.snapshots[0]
        push_snapshots(self.algo, self.snapshots)
        self.last_snapshot = self.steps

    def run_eval(self) -> dict[str, Any]:
        path = self.export(self.run_dir / "eval" / "current", self.ids[0], "current", {})
        result = evaluate(NeuralPolicy(path), self.rules, self.cfg.eval_games, seed=10_000 + len(self.evals))
        entry = {"step": self.steps, **result}
        self.evals.append(entry)
        write_json_atomic(self.run_dir / "evals.json", self.evals)
        self.last_eval = self.steps
        return entry

    # ------------------------------------------------------------------ one iteration
    def iterate(self) -> dict[str, Any]:
        t = time.time()
        result = self.algo.train()
        runners = result.get("env_runners", {})
        sampled = _count(runners.get("num_env_steps_sampled"))
        self.steps += sampled
        self.episodes += _count(runners.get("num_episodes"))
        self.iterations += 1
        row = {
            "iteration": self.iterations,
            "steps": self.steps,
            "steps_per_second": round(sampled / max(time.time() - t, 1e-9), 1),
            "episodes": self.episodes,
            "episode_return_mean": runners.get("episode_return_mean"),
            "module_episode_returns_mean": runners.get("module_episode_returns_mean"),
        }
        for name, seconds in result.get("timers", {}).items():  # where the time goes: sampling, learning, syncing
            if not isinstance(seconds, dict):
                row[f"timers/{name}"] = _scalar(seconds)
        for mid, stats in result.get("learners", {}).items():
            if mid in self.ids:
                for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
                    if key in stats:
                        row[f"{mid}/{key}"] = _scalar(stats[key])
        with (self.run_dir / "progress.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(_finite(row)) + "\n")
        c = self.cfg
        if self.steps - self.last_snapshot >= c.pool.snapshot_every:
            self.snapshot()
        if self.steps - self.last_eval >= c.eval_every:
            self.run_eval()
        if self.steps - self.last_checkpoint >= c.checkpoint_every:
            self.checkpoint()
        return row


def train(cfg: TrainConfig, *, resume: bool = False, progress: bool | None = None) -> dict[str, Any]:
    """Train (or resume) a run on Ray RLlib; returns the summary (also written to ``summary.json``)."""
    if cfg.backend != "rllib":
        cfg = cfg.replace(backend="rllib")
    invoked = time.time()
    rules = RulesConfig.resolve(cfg.rules)
    run_dir = cfg.run_dir
    if progress is None:
        progress = sys.stderr.isatty()
    if resume:
        check_resume(run_dir, identity(cfg, rules), "state.json")
    elif (run_dir / "checkpoint").exists():
        raise RunDirError(f"{run_dir} already holds a run; use --resume to continue it or --set name=... for a new one")
    init = check_init_policy(cfg, rules) if cfg.init_policy and not resume else ""
    run_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(
        run_dir / "config.json",
        {"config": cfg.to_dict(), "identity": identity(cfg, rules), "command": " ".join(sys.argv)},
    )
    started = start_ray(cfg.rllib)
    algo = None
    try:
        from .algo import build_config

        gpus = _learner_gpus(cfg.device)
        random.seed(cfg.seed)
        algo = build_config(cfg, rules, num_gpus_per_learner=gpus, init_policy=init).build_algo()
        run = Run(cfg, rules, run_dir, algo)
        if resume:
            run.load()
        where = cfg.rllib.address or f"local Ray ({int(ray.cluster_resources().get('CPU', 0))} CPUs)"
        print(
            f"{cfg.name}: rules {rules.name}, RLlib {ray.__version__} on {where}, {cfg.rllib.num_env_runners} env "
            f"runner(s) x {cfg.n_envs} env(s), policies {', '.join(run.ids)}, learner on {'GPU' if gpus else 'CPU'}"
        )
        return _loop(run, cfg, rules, run_dir, invoked, progress, gpus)
    finally:
        if algo is not None:
            with contextlib.suppress(Exception):
                algo.stop()
        if started:
            ray.shutdown()


def _loop(
    run: Run, cfg: TrainConfig, rules: RulesConfig, run_dir: Path, invoked: float, progress: bool, gpus: float
) -> dict[str, Any]:
    deadline = invoked + cfg.max_seconds if cfg.max_seconds else None
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.total_steps, initial=min(run.steps, cfg.total_steps), unit="step", desc=cfg.name)
    start, steps0 = time.time(), run.steps
    out_of_time = interrupted = False
    _interrupt_on_sigterm()
    try:
        while run.steps < cfg.total_steps:
            if deadline is not None and time.time() >= deadline:
                out_of_time = True
                break
            before = run.steps
            row = run.iterate()
            if bar is not None:
                bar.update(min(run.steps, cfg.total_steps) - min(before, cfg.total_steps))
                rate = (run.steps - steps0) / max(time.time() - start, 1e-9)
                parts = [f"{rate:,.0f} steps/s"]
                if row.get("episode_return_mean") is not None:
                    parts.append(f"return {row['episode_return_mean']:+.2f}")
                if run.evals:
                    last = run.evals[-1]
                    parts.append(f"vs random {last['random']['win_rate']:.0%}")
                    parts.append(f"vs heuristic {last['heuristic']['win_rate']:.0%}")
                bar.set_postfix_str(", ".join(parts))
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: writing a checkpoint ...", file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()
        run.checkpoint()
    session = time.time() - start
    if interrupted:
        print(f"checkpoint written to {run_dir / 'checkpoint'}; continue with --resume", file=sys.stderr)
        return {"interrupted": True, "steps": run.steps}
    if not run.evals or run.evals[-1]["step"] != run.steps:
        run.run_eval()
    stopped_by = "max_seconds" if out_of_time else "total_steps"
    provenance = {
        "wall_seconds": round(run.wall_seconds, 1),
        "command": " ".join(sys.argv),
        "config": cfg.to_dict(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "device": "gpu" if gpus else "cpu",
        "stopped_by": stopped_by,
        **({"init_from": cfg.init_policy} if cfg.init_policy else {}),
    }
    policy_path = run.export(run_dir / "policy", run.ids[0], cfg.name, provenance)
    for mid in run.ids[1:]:  # per-seat policies: seat_0 is "policy", the others beside it
        run.export(run_dir / f"policy-{mid}", mid, f"{cfg.name}-{mid}", provenance)
    plot_learning_curve(run.evals, run_dir / "learning_curve.png", f"{cfg.name} ({rules.name}, RLlib)")
    last = run.evals[-1]
    summary = {
        "run": cfg.name,
        "backend": "rllib",
        "steps": run.steps,
        "episodes": run.episodes,
        "iterations": run.iterations,
        "wall_seconds": round(run.wall_seconds, 1),
        "this_session_seconds": round(session, 1),
        "this_session_steps_per_second": round((run.steps - steps0) / max(session, 1e-9), 1),
        "stopped_by": stopped_by,
        "vs_random": last["random"],
        "vs_heuristic": last["heuristic"],
        "policy": str(policy_path.with_suffix(".npz")),
    }
    write_json_atomic(run_dir / "summary.json", summary)
    print(
        f"done: {cfg.name} {run.steps:,} steps in {run.wall_seconds:.0f}s; "
        f"win rate vs random {last['random']['win_rate']:.0%}, vs heuristic {last['heuristic']['win_rate']:.0%} "
        f"({last['heuristic']['games']} games each); bot: {summary['policy']}"
        + (" (stopped by max_seconds; --resume continues towards total_steps)" if out_of_time else "")
    )
    return summary


def _learner_gpus(device: str) -> float:
    """GPUs of the learner: ``auto`` -> 1 when torch sees a GPU here, ``cuda`` -> 1, ``cpu`` -> 0."""
    if device == "cpu":
        return 0
    import torch

    if device == "cuda":
        return 1
    return 1 if torch.cuda.is_available() else 0


def _interrupt_on_sigterm() -> None:
    """SIGTERM (and SIGINT, even where a background shell ignores it) stops training like Ctrl-C: with a checkpoint."""

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, tuple | list):
        return [_jsonable(x) for x in obj]
    return obj


def _count(x: Any) -> int:
    """An RLlib counter of this iteration as an int (RLlib reports NaN where nothing was counted)."""
    try:
        return 0 if x is None or math.isnan(float(x)) else int(x)
    except (TypeError, ValueError):
        return 0


def _finite(x: Any) -> Any:
    """``x`` with NaN (RLlib's "no value this iteration") as None and other numbers as floats: strict JSON."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if x is None or isinstance(x, str | bool | int):
        return x
    v = _scalar(x)
    return None if isinstance(v, float) and math.isnan(v) else v


def _scalar(x: Any) -> Any:
    with contextlib.suppress(TypeError, ValueError):
        return float(x)
    return str(x)
