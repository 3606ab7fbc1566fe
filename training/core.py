"""The training core: everything a run does that does not depend on the trainer (issue 31, "one training core").

A *backend* (sb3 in ``training/train.py``, rllib in ``training/rllib/trainer.py``, expert iteration in
``training/expert_iteration.py``) owns its model and its inner loop; :func:`train` owns the run around it:

* the run directory ``<runs_dir>/<name>/``: refusing to start over an existing run, refusing an incompatible
  ``--resume`` (``training/rundir.py``), ``config.json`` (the configuration, the run identity, the command);
* checkpoints: ``checkpoint/state.json`` (this core's counters, the opponent pool's snapshots, the evaluations,
  and the backend's own state) plus whatever files the backend writes beside it, swapped in atomically at
  ``checkpoint_every``, at the end and on Ctrl-C / SIGTERM; ``--resume`` restores them;
* the cadences, counted in the backend's unit (learner steps, or generations): pool snapshots (exported into
  ``pool/``), evaluations against the random and the heuristic bot (``evals.json``, ``training/evaluation.py``),
  checkpoints, and the ``max_seconds`` budget;
* what people see: one line at the start, a progress bar on a terminal (tqdm's rate, the backend's own figures,
  the latest evaluation; never ``nan``), one line per evaluation, TensorBoard scalars in ``tb/`` (with the same rows in
  ``progress.jsonl``), and at the end ``learning_curve.png`` (win rates over the backend's unit and over the run's
  wall time, each evaluation's ``wall_seconds`` in ``evals.json``), ``summary.json`` and one summary line;
* the export at the end: ``policy.npz`` + ``policy.json`` with the run's provenance.

The backend interface (subclass :class:`Backend`; docs/training.md, "Adding a backend")::

    class MyBackend(Backend):
        name = "mine"                            # the value of --backend / the config's backend key
        identity_keys = ("rules", "seed", ...)   # config keys a --resume must agree on
        checkpoint_file = "model.pt"             # a file of checkpoint/ that proves it is complete

        def start(self, run): ...                # build a fresh model (seeded from run.cfg.seed)
        def restore(self, run, directory, state): ...   # load the model from checkpoint/ (state: what save returned)
        def learn(self, run): ...                # train; after each chunk of steps: if not run.tick(steps): return
        def save(self, directory): ...           # write the model into directory; return a JSON-able state dict
        def export(self, path, name, provenance): ...   # write <path>.npz + .json (policies.neural); return path

:meth:`Run.tick` is where the core does its work: it moves the progress bar and, when due, snapshots (``export``
into ``pool/``, then :meth:`Backend.set_snapshots`), evaluates (``export`` into ``eval/current``) and checkpoints
(``save``); it returns False when the backend must stop (``max_seconds`` spent). Backends may also override
:meth:`Backend.plan` (cadences from another config class), :meth:`Backend.check` (refuse a config before the run
directory is made), :meth:`Backend.describe` (the start line), :meth:`Backend.provenance` and
:meth:`Backend.summary` (extra keys for the manifest and ``summary.json``), :meth:`Backend.evaluate_more` (more
evaluation opponents), :meth:`Backend.export_extra` (more files at the end) and :meth:`Backend.close`. A backend
registers its name in ``training.config.BACKENDS``.

This module imports neither torch nor Ray.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import platform
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bc_env.encoding import encoder_version
from bc_env.rules import Game, RulesConfig

from .config import BACKENDS
from .evaluation import evaluate, plot_learning_curve
from .rundir import RunDirError, check_resume, write_json_atomic


def backend_class(name: str) -> type[Backend]:
    """The backend registered as ``name``; ``ImportError`` (with ``name`` set) when its extra is missing."""
    module, cls, _ = BACKENDS[name]
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Plan:
    """When the core acts, in the backend's unit (0 = never)."""

    total: int
    eval_every: int
    eval_games: int
    checkpoint_every: int
    snapshot_every: int = 0
    max_snapshots: int = 0
    max_seconds: float = 0.0
    #: What the backend counts: "step" (learner decisions) or e.g. "generation".
    unit: str = "step"


@dataclass
class RunState:
    """The core's part of a checkpoint (``state.json`` ``run``)."""

    steps: int = 0
    episodes: int = 0
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    evals: list[dict[str, Any]] = field(default_factory=list)
    last_snapshot: int = 0
    last_eval: int = 0
    last_checkpoint: int = 0
    wall_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunState:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


class Backend:
    """A trainer plugged into :func:`train`; see the module docstring for what to implement."""

    name = "?"
    identity_keys: tuple[str, ...] = ()
    checkpoint_file = "state.json"
    #: False: the core writes this backend's TensorBoard events when the run ends, not while it trains (rllib: a
    #: TensorBoard writer open while RLlib trains made its start-up race take the other outcome; docs/training.md).
    live_tensorboard = True

    def __init__(self, cfg: Any) -> None:
        self.cfg = cfg

    # ---------------------------------------------------------------- what a backend may override
    def plan(self) -> Plan:
        """The cadences; by default the keys of :class:`training.config.TrainConfig`."""
        c = self.cfg
        return Plan(
            total=c.total_steps,
            eval_every=c.eval_every,
            eval_games=c.eval_games,
            checkpoint_every=c.checkpoint_every,
            snapshot_every=c.pool.snapshot_every,
            max_snapshots=c.pool.max_snapshots,
            max_seconds=c.max_seconds,
        )

    def identity(self, rules: RulesConfig) -> dict[str, Any]:
        """What a ``--resume`` must agree on: :attr:`identity_keys`, the rules, the encoder and action layout."""
        d = self.cfg.to_dict()
        ident = {k: d[k] for k in self.identity_keys}
        ident["rules"] = rules.to_dict()
        ident["encoder_version"] = encoder_version(rules)
        ident["num_actions"] = Game.new(rules, 0).num_actions
        return ident

    def check(self, rules: RulesConfig) -> None:
        """Refuse (``TrainConfigError``) what this backend cannot train, before a new run's directory is made."""

    def describe(self, rules: RulesConfig) -> str:
        return f"{self.cfg.name}: rules {rules.name}, backend {self.name}"

    def device(self) -> str:
        return "cpu"

    def provenance(self) -> dict[str, Any]:
        """Extra keys of the final export's ``training`` provenance."""
        return {}

    def summary(self) -> dict[str, Any]:
        """Extra keys of ``summary.json``."""
        return {}

    def evaluate_more(self, bot: Any, games: int, seed: int) -> dict[str, dict[str, Any]]:
        """More evaluation opponents beside the random and the heuristic bot: ``{opponent: {"win_rate", "ci_low",
        "ci_high", "games"}}`` for ``bot`` (the exported policy) over ``games`` games from ``seed``."""
        return {}

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        """The opponent pool changed (after a snapshot, and on resume): hand it to the environments."""

    def export_extra(self, run: Run, provenance: dict[str, Any]) -> None:
        """More files at the end of a run, beside ``policy`` (e.g. one policy per seat)."""

    def close(self) -> None:
        """Release environments, processes, clusters (also after an error)."""

    # ---------------------------------------------------------------- what a backend must implement
    def start(self, run: Run) -> None:
        raise NotImplementedError

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        raise NotImplementedError

    def learn(self, run: Run) -> None:
        raise NotImplementedError

    def save(self, directory: Path) -> dict[str, Any]:
        raise NotImplementedError

    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        raise NotImplementedError


class ScalarLog:
    """TensorBoard scalars in ``tb/`` (when the ``tensorboard`` package is there) and the same rows as JSON lines
    in ``progress.jsonl``. The interface of stable-baselines3's logger: :meth:`record`, then :meth:`dump`.
    With ``live=False`` the TensorBoard events of this invocation are written by :meth:`close` (see
    :attr:`Backend.live_tensorboard`)."""

    def __init__(self, run_dir: Path, live: bool = True) -> None:
        self.path = run_dir / "progress.jsonl"
        self.tb_dir = run_dir / "tb"
        self.rows: dict[str, Any] = {}
        self.session: list[dict[str, Any]] = []
        self.writer: Any = None
        if live:
            self.writer = _tensorboard_writer(self.tb_dir)

    def record(self, key: str, value: Any, exclude: Any = None) -> None:
        self.rows[key] = value

    def dump(self, step: int = 0) -> None:
        if not self.rows:
            return
        row = {"steps": step, **{k: _finite(v) for k, v in self.rows.items()}}
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        self.rows = {}
        if self.writer is not None:
            _add_scalars(self.writer, row)
            self.writer.flush()
        else:
            self.session.append(row)

    def close(self) -> None:
        writer = self.writer or (_tensorboard_writer(self.tb_dir) if self.session else None)
        if writer is None:
            return
        for row in self.session:
            _add_scalars(writer, row)
        writer.close()
        self.writer, self.session = None, []


def _tensorboard_writer(directory: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # no torch or no tensorboard: the JSON lines only
        return None
    return SummaryWriter(str(directory))


def _add_scalars(writer: Any, row: dict[str, Any]) -> None:
    for k, v in row.items():
        if isinstance(v, int | float) and not isinstance(v, bool) and k != "steps":
            writer.add_scalar(k, v, row["steps"])


class Run:
    """One invocation of a run, handed to the backend: the config, the rules, the run directory, the counters
    (:attr:`state`), the scalar log (:attr:`log`, replaceable by the backend's own) and :meth:`tick`."""

    def __init__(self, backend: Backend, rules: RulesConfig, progress: bool, invoked: float) -> None:
        self.backend = backend
        self.cfg = backend.cfg
        self.rules = rules
        self.run_dir: Path = self.cfg.run_dir
        self.plan = backend.plan()
        self.state = RunState()
        self.log: Any = None  # created by train(); a backend may put its own logger here in start/restore
        self.console: TextIO = sys.stderr
        self.progress = progress
        self.deadline = invoked + self.plan.max_seconds if self.plan.max_seconds else None
        self.out_of_time = False
        self.bar: Any = None
        self.show: dict[str, str] = {}
        self.t0 = self.session_start = time.time()
        self.steps0 = self.session_steps0 = 0

    @property
    def steps(self) -> int:
        return self.state.steps

    def say(self, text: str) -> None:
        """A line for the user, above the progress bar if there is one."""
        if self.bar is not None:
            self.bar.write(text, file=self.console)
        else:
            print(text, file=self.console, flush=True)

    # ---------------------------------------------------------------- the backend's call
    def tick(self, steps: int, *, episodes: int = 0, show: dict[str, str] | None = None) -> bool:
        """The backend has reached ``steps`` (and finished ``episodes`` more episodes): move the progress bar,
        snapshot, evaluate and checkpoint when due. False when the backend must stop (``max_seconds``)."""
        before = self.state.steps
        self.state.steps = steps
        self.state.episodes += episodes
        if show is not None:
            self.show = show
        p = self.plan
        if self.bar is not None and steps != before:
            self.bar.update(min(steps, p.total) - min(before, p.total))
            self.bar.set_postfix_str(self.postfix(), refresh=False)
        if p.snapshot_every and steps - self.state.last_snapshot >= p.snapshot_every:
            self.snapshot()
        if steps - self.state.last_eval >= p.eval_every:
            self.evaluate()
        if steps - self.state.last_checkpoint >= p.checkpoint_every:
            self.checkpoint()
        if self.deadline is not None and time.time() >= self.deadline:
            self.out_of_time = True
            return False
        return True

    def should_stop(self) -> bool:
        """For a backend's own loop: the total is reached or ``max_seconds`` is spent."""
        if self.state.steps >= self.plan.total:
            return True
        if self.deadline is not None and time.time() >= self.deadline:
            self.out_of_time = True
        return self.out_of_time

    def rate(self) -> float:
        return (self.state.steps - self.steps0) / max(time.time() - self.t0, 1e-9)

    def postfix(self) -> str:
        parts = [f"{k} {v}" for k, v in self.show.items()]  # tqdm shows the rate itself
        if self.state.evals:
            last = self.state.evals[-1]
            parts += [f"vs {o} {last[o]['win_rate']:.0%}" for o in ("random", "heuristic")]
        return ", ".join(p for p in parts if p)

    # ---------------------------------------------------------------- what the core does
    def snapshot(self) -> None:
        steps = self.state.steps
        name = f"snapshot-{steps:09d}"
        path = self.backend.export(self.run_dir / "pool" / name, name, {"run": self.cfg.name, "steps": steps})
        self.state.snapshots.append({"name": name, "path": str(path.resolve()), "step": steps})
        if len(self.state.snapshots) > self.plan.max_snapshots:
            del self.state.snapshots[0]
        self.backend.set_snapshots(self.state.snapshots)
        self.state.last_snapshot = steps

    def evaluate(self) -> dict[str, Any]:
        from policies.neural import NeuralPolicy

        steps = self.state.steps
        prov = {"run": self.cfg.name, "steps": steps}
        path = self.backend.export(self.run_dir / "eval" / "current", "current", prov)
        bot, seed = NeuralPolicy(path), 10_000 + len(self.state.evals)
        result = evaluate(bot, self.rules, self.plan.eval_games, seed=seed)
        result.update(self.backend.evaluate_more(bot, self.plan.eval_games, seed))
        # The run's wall-clock seconds so far (all invocations, start-up excluded, evaluations included), as
        # summary.json's wall_seconds: the x axis of the learning curve's wall-time panel.
        wall = self.state.wall_seconds + time.time() - self.t0
        entry = {"step": int(steps), "wall_seconds": round(wall, 1), **result}
        self.state.evals.append(entry)
        for opponent, r in result.items():
            self.log.record(f"eval/win_rate_vs_{opponent}", r["win_rate"])
        write_json_atomic(self.run_dir / "evals.json", self.state.evals)
        self.state.last_eval = steps
        self.say(f"{self.plan.unit} {steps:,}: {describe_eval(entry)}")
        return entry

    def checkpoint(self) -> None:
        """Atomic: the backend writes into ``checkpoint.tmp/``, which then replaces ``checkpoint/`` by renames."""
        now = time.time()
        self.state.wall_seconds += now - self.t0
        self.t0, self.steps0 = now, self.state.steps
        tmp, final, old = self.run_dir / "checkpoint.tmp", self.run_dir / "checkpoint", self.run_dir / "checkpoint.old"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        own = self.backend.save(tmp)
        self.state.last_checkpoint = self.state.steps
        write_json_atomic(tmp / "state.json", {"steps": self.state.steps, "run": self.state.to_dict(), "backend": own})
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)


def resolve_device(device: str) -> str:
    """A config's ``device`` for torch: ``auto`` -> ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda``
    without a GPU is a clear error."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RunDirError("device = 'cuda' but torch sees no CUDA device; use device = 'auto' or 'cpu'")
    return device


def describe_eval(entry: dict[str, Any]) -> str:
    """``vs random 75% (52-89%), vs heuristic 40% (...) over 20 games each``."""
    parts = []
    for opponent in ("random", "heuristic"):
        r = entry[opponent]
        parts.append(f"vs {opponent} {r['win_rate']:.0%} ({r['ci_low']:.0%}-{r['ci_high']:.0%})")
    return ", ".join(parts) + f" over {entry['heuristic']['games']} games each"


def train(backend: Backend, *, resume: bool = False, progress: bool | None = None) -> dict[str, Any]:
    """Train (or resume) the run of ``backend.cfg``; returns the summary (also written to ``summary.json``)."""
    invoked = time.time()
    cfg = backend.cfg
    rules = RulesConfig.resolve(cfg.rules)
    run_dir: Path = cfg.run_dir
    if progress is None:
        progress = sys.stderr.isatty()
    ident = backend.identity(rules)
    if resume:
        check_resume(run_dir, ident, backend.checkpoint_file)
    elif (run_dir / "checkpoint").exists():
        raise RunDirError(f"{run_dir} already holds a run; use --resume to continue it or --set name=... for a new one")
    else:
        backend.check(rules)
    run_dir.mkdir(parents=True, exist_ok=True)
    saved = {"config": cfg.to_dict(), "identity": ident, "command": " ".join(sys.argv)}
    write_json_atomic(run_dir / "config.json", saved)
    run = Run(backend, rules, progress, invoked)
    try:
        print(backend.describe(rules), flush=True)
        if resume:
            checkpoint = json.loads((run_dir / "checkpoint" / "state.json").read_text(encoding="utf-8"))
            if "backend" not in checkpoint:
                raise RunDirError(
                    f"cannot resume {run_dir}: its checkpoint was written before the training core (issue 31) in "
                    "another format; continue it with a checkout from before, or start a new run (--set name=...)"
                )
            run.state = RunState.from_dict(checkpoint["run"])
            backend.restore(run, run_dir / "checkpoint", checkpoint["backend"])
            backend.set_snapshots(run.state.snapshots)
        else:
            backend.start(run)
        if run.log is None:
            run.log = ScalarLog(run_dir, live=backend.live_tensorboard)
        return _learn(run, backend, rules)
    finally:
        backend.close()
        if isinstance(run.log, ScalarLog):
            run.log.close()


def _learn(run: Run, backend: Backend, rules: RulesConfig) -> dict[str, Any]:
    cfg, run_dir, plan = run.cfg, run.run_dir, run.plan
    if run.progress:
        from tqdm import tqdm

        run.bar = tqdm(
            total=plan.total,
            initial=min(run.steps, plan.total),
            unit=plan.unit,
            desc=cfg.name,
            dynamic_ncols=True,
            file=run.console,
        )
    run.t0 = run.session_start = time.time()
    run.steps0 = run.session_steps0 = run.steps
    interrupted = False
    with _interrupt_on_sigterm():
        try:
            if run.steps < plan.total:
                backend.learn(run)
        except KeyboardInterrupt:
            interrupted = True
            run.say("\ninterrupted: writing a checkpoint ...")
        finally:
            if run.bar is not None:
                run.bar.close()
                run.bar = None
            run.checkpoint()
    session = time.time() - run.session_start
    if interrupted:
        print(f"checkpoint written to {run_dir / 'checkpoint'}; continue with --resume", file=run.console)
        return {"interrupted": True, "steps": run.steps}
    if not run.state.evals or run.state.evals[-1]["step"] != run.steps:
        run.evaluate()
        run.log.dump(run.steps)
        run.checkpoint()  # the final evaluation belongs to the checkpoint: a --resume keeps it in evals.json
    stopped_by = "max_seconds" if run.out_of_time else "total_steps"
    provenance = {
        "run": cfg.name,
        "steps": run.steps,
        "wall_seconds": round(run.state.wall_seconds, 1),
        "command": " ".join(sys.argv),
        "config": cfg.to_dict(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "device": backend.device(),
        "stopped_by": stopped_by,
        **backend.provenance(),
    }
    policy_path = backend.export(run_dir / "policy", cfg.name, provenance)
    backend.export_extra(run, provenance)
    xlabel = "environment steps" if plan.unit == "step" else f"{plan.unit}s"
    title = f"{cfg.name} ({rules.name}, {backend.name})"
    plot_learning_curve(run.state.evals, run_dir / "learning_curve.png", title, xlabel=xlabel)
    last = run.state.evals[-1]
    summary = {
        "run": cfg.name,
        "backend": backend.name,
        "steps": run.steps,
        "unit": plan.unit,
        "episodes": run.state.episodes,
        **backend.summary(),
        "wall_seconds": round(run.state.wall_seconds, 1),
        "this_session_seconds": round(session, 1),
        "this_session_steps_per_second": round((run.steps - run.session_steps0) / max(session, 1e-9), 1),
        "stopped_by": stopped_by,
        "vs_random": last["random"],
        "vs_heuristic": last["heuristic"],
        "policy": str(policy_path.with_suffix(".npz")),
    }
    write_json_atomic(run_dir / "summary.json", summary)
    print(
        f"done: {cfg.name} {run.steps:,} {plan.unit}{'s' if run.steps != 1 else ''} in {run.state.wall_seconds:.0f}s; "
        f"win rate vs random {last['random']['win_rate']:.0%}, vs heuristic {last['heuristic']['win_rate']:.0%} "
        f"({last['heuristic']['games']} games each); bot: {summary['policy']}"
        + (" (stopped by max_seconds; --resume continues towards total_steps)" if run.out_of_time else ""),
        flush=True,
    )
    return summary


@contextlib.contextmanager
def _interrupt_on_sigterm() -> Iterator[None]:
    """While training: SIGTERM (and SIGINT, even where a background shell ignores it) stops it like Ctrl-C, with a
    checkpoint. The process's own handlers come back afterwards (a program or test that trains goes on as before,
    and the processes it forks later do not inherit a handler that raises)."""

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    for s in before:
        signal.signal(s, stop)
    try:
        yield
    finally:
        for s, handler in before.items():
            if handler is not None:  # None: a handler not set from Python, which cannot be set back
                signal.signal(s, handler)


def _finite(x: Any) -> Any:
    """``x`` with NaN (\"no value yet\") as None and other numbers as floats: strict JSON."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if x is None or isinstance(x, str | bool | int):
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    return None if math.isnan(v) or math.isinf(v) else v


def signed(x: Any, digits: int = 2) -> str:
    """A progress figure such as ``+0.25``; ``-`` where there is none yet (no ``nan`` in progress lines)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "-"
    return "-" if math.isnan(v) else f"{v:+.{digits}f}"
