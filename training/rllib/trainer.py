"""The rllib backend: ``balance-control train --backend rllib --config ... [--resume]``.

The run around it is the training core's (``training/core.py``): the same run directory as every backend
(``config.json``, ``checkpoint/``, ``pool/``, ``evals.json``, ``tb/`` + ``progress.jsonl``, ``learning_curve.png``,
``summary.json``, ``policy.npz`` + ``policy.json``). This backend's own: Ray (started here or joined), its output
routed into ``ray.log``, the PPO algorithm (its env runners each step one batched env of ``n_envs`` games,
``env.py``), ``checkpoint/algo/`` (RLlib's checkpoint of the algorithm with the module, optimizer and env runner
states) with the Python RNG state and one ``progress.jsonl`` row per PPO iteration (steps/s, episode return, losses,
RLlib's timers).
Behaviour cloning is the sb3 backend's: a config with ``bc_games`` > 0 runs here with it switched off (a note says
so).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import ray

from bc_env.rules import RulesConfig
from policies import load as load_policy
from policies.neural import NeuralPolicy, PolicyFileError

from .. import core
from ..config import RLlibConfig, TrainConfig, TrainConfigError
from ..core import Backend, Run, signed
from ..rundir import RunDirError
from .algo import MODULE_ID

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
    """Hand the pool's snapshot list to the batched env of every env runner (paths: on a multi-node cluster the
    run directory must be on a file system all nodes share, see docs/training.md)."""

    def update(runner: Any) -> int:
        env = getattr(runner, "env", None)
        if env is None:  # the driver's local runner when remote runners sample
            return 0
        env.unwrapped.set_snapshots(snapshots)
        return 1

    algo.env_runner_group.foreach_env_runner(update, local_env_runner=True)


class RayOutput:
    """Ray's own output routed into ``<run>/ray.log`` while the run uses Ray: the driver's standard error (file
    descriptor 2: Ray's and RLlib's warnings, the C++ core worker's log lines, what the env runners print) goes
    to the log file, without colour codes (``RAY_COLOR_PREFIX=0``); :attr:`console` is the original standard error,
    for the progress bar and the run's own messages."""

    def __init__(self, path: Path) -> None:
        os.environ.setdefault("RAY_COLOR_PREFIX", "0")
        sys.stderr.flush()
        self.path = path
        self._saved = os.dup(2)
        self._log = path.open("a", encoding="utf-8")
        os.dup2(self._log.fileno(), 2)
        self.console = os.fdopen(os.dup(self._saved), "w", buffering=1, encoding="utf-8")
        self._stderr, sys.stderr = sys.stderr, self._log  # also where sys.stderr is not file descriptor 2

    def close(self) -> None:
        sys.stderr.flush()
        sys.stderr = self._stderr
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._log.close()
        self.console.close()


class RLlibBackend(Backend):
    """RLlib PPO (local Ray or a cluster); the run around it is ``training/core.py``'s. Its own: Ray, the
    algorithm (``algo.py``, ``env.py``, ``module.py``), ``checkpoint/algo/`` (RLlib's checkpoint), the export of the
    RLlib module (``export.py``) and one progress row per PPO iteration."""

    name = "rllib"
    identity_keys = IDENTITY_KEYS
    checkpoint_file = "state.json"
    # RLlib's first PPO iteration has two outcomes for one seed (a start-up race); with torch's TensorBoard writer
    # open in the driver it took the one that differs from the runs before the training core in 3 runs of 3,
    # without it in 1 of 6 (docs/training.md). The TensorBoard events are written when the run ends.
    live_tensorboard = False

    def __init__(self, cfg: TrainConfig) -> None:
        if cfg.backend != "rllib":
            cfg = cfg.replace(backend="rllib")
        self.note = ""
        if cfg.bc_games:  # behaviour cloning is the sb3 backend's: switched off, and said so
            self.note = (
                f"note: backend 'rllib' does not clone behaviour: bc_games = {cfg.bc_games} is switched off "
                "(the run starts from random weights or init_policy)"
            )
            cfg = cfg.replace(bc_games=0)
        super().__init__(cfg)
        self.init = ""
        self.algo: Any = None
        self.iterations = 0
        self.gpus = _learner_gpus(cfg.device)
        self.started_ray = False
        self.output: RayOutput | None = None

    def check(self, rules: RulesConfig) -> None:
        if self.cfg.init_policy:
            self.init = check_init_policy(self.cfg, rules)

    def describe(self, rules: RulesConfig) -> str:
        c = self.cfg
        where = c.rllib.address or f"local Ray ({c.rllib.num_cpus} CPUs)"
        line = (
            f"{c.name}: rules {rules.name}, RLlib {ray.__version__} on {where}, {c.rllib.num_env_runners} env "
            f"runner(s) x a batched env of {c.n_envs} game(s), learner on {'GPU' if self.gpus else 'CPU'}; "
            f"Ray's own output goes to {c.run_dir / 'ray.log'}"
        )
        return f"{self.note}\n{line}" if self.note else line

    def device(self) -> str:
        return "gpu" if self.gpus else "cpu"

    def provenance(self) -> dict[str, Any]:
        return {"init_from": self.cfg.init_policy} if self.cfg.init_policy else {}

    def summary(self) -> dict[str, Any]:
        return {"iterations": self.iterations}

    # ---------------------------------------------------------------- start, restore, save
    def _build(self, run: Run) -> None:
        from .algo import build_config

        self.output = RayOutput(run.run_dir / "ray.log")
        run.console = self.output.console
        self.started_ray = start_ray(self.cfg.rllib)
        random.seed(self.cfg.seed)
        self.algo = build_config(self.cfg, run.rules, num_gpus_per_learner=self.gpus, init_policy=self.init)
        self.algo = self.algo.build_algo()
        self.rules = run.rules

    def start(self, run: Run) -> None:
        self._build(run)

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        self._build(run)
        self.algo.restore_from_path(str((directory / "algo").resolve()))
        self.iterations = state["iterations"]
        py = state["python_rng"]
        random.setstate((py[0], tuple(py[1]), py[2]))

    def save(self, directory: Path) -> dict[str, Any]:
        self.algo.save_to_path(str((directory / "algo").resolve()))
        return {"iterations": self.iterations, "python_rng": _jsonable(random.getstate())}

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        push_snapshots(self.algo, snapshots)

    def close(self) -> None:
        if self.algo is not None:
            with contextlib.suppress(Exception):
                self.algo.stop()
            self.algo = None
        if self.started_ray:
            ray.shutdown()
            self.started_ray = False
        if self.output is not None:
            self.output.close()
            self.output = None

    # ---------------------------------------------------------------- learning
    def learn(self, run: Run) -> None:
        while not run.should_stop():
            t = time.time()
            result = self.algo.train()
            runners = result.get("env_runners", {})
            sampled = _count(runners.get("num_env_steps_sampled"))
            self.iterations += 1
            log = run.log
            log.record("iteration", self.iterations)
            log.record("steps_per_second", round(sampled / max(time.time() - t, 1e-9), 1))
            log.record("episodes", run.state.episodes + _count(runners.get("num_episodes")))
            log.record("episode_return_mean", runners.get("episode_return_mean"))
            for name, seconds in result.get("timers", {}).items():  # where the time goes: sampling, learning, sync
                if not isinstance(seconds, dict):
                    log.record(f"timers/{name}", _scalar(seconds))
            stats = result.get("learners", {}).get(MODULE_ID, {})
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
                if key in stats:
                    log.record(f"{MODULE_ID}/{key}", _scalar(stats[key]))
            show = {"return": signed(runners.get("episode_return_mean"))}
            run.tick(run.steps + sampled, episodes=_count(runners.get("num_episodes")), show=show)
            log.dump(run.steps)

    # ---------------------------------------------------------------- export
    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        from .export import export_module_state

        state = self.algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
        act = self.cfg.activation
        return export_module_state(state, path, name=name, rules=self.rules, activation=act, provenance=provenance)


def identity(cfg: TrainConfig, rules: RulesConfig) -> dict[str, Any]:
    """What a ``--resume`` of an RLlib run must agree on."""
    return RLlibBackend(cfg).identity(rules)


def train(cfg: TrainConfig, *, resume: bool = False, progress: bool | None = None) -> dict[str, Any]:
    """Train (or resume) a run on Ray RLlib; returns the summary (also written to ``summary.json``)."""
    return core.train(RLlibBackend(cfg), resume=resume, progress=progress)


def _learner_gpus(device: str) -> float:
    """GPUs of the learner: ``auto`` -> 1 when torch sees a GPU here, ``cuda`` -> 1, ``cpu`` -> 0."""
    if device == "cpu":
        return 0
    import torch

    if device == "cuda":
        return 1
    return 1 if torch.cuda.is_available() else 0


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


def _scalar(x: Any) -> Any:
    with contextlib.suppress(TypeError, ValueError):
        return float(x)
    return str(x)
