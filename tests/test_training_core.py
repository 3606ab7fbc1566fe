"""The training core (training/core.py) with a minimal backend, as a new backend (e.g. selfplay) plugs in: the
cadences, the checkpoint and --resume, Ctrl-C, max_seconds, the refusals and the files of a run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bc_env.encoding import Encoder, encoder_version
from bc_env.rules import Game, RulesConfig
from policies.neural import NeuralPolicy, save_policy
from training import core
from training.config import TrainConfig
from training.core import Backend, Run
from training.rundir import RunDirError

TINY = "configs/train/tiny.toml"


class CountingBackend(Backend):
    """A 'trainer' whose model is a step counter and a fixed random MLP; ``stop_at`` raises Ctrl-C there."""

    name = "counting"
    identity_keys = ("rules", "seed", "net_arch")
    checkpoint_file = "model.json"

    def __init__(self, cfg: TrainConfig, stop_at: int = 0, chunk: int = 64) -> None:
        super().__init__(cfg)
        self.stop_at, self.chunk = stop_at, chunk
        self.snapshots_seen: list[list[int]] = []
        self.calls: list[str] = []
        self.steps = 0

    def start(self, run: Run) -> None:
        self.calls.append("start")
        self.rules = run.rules
        rng = np.random.default_rng(self.cfg.seed)
        size, actions = Encoder(run.rules).size_total, Game.new(run.rules, 0).num_actions
        self.layers = [
            (rng.normal(0, 0.01, (8, size)).astype(np.float32), np.zeros(8, np.float32)),
            (rng.normal(0, 0.1, (actions, 8)).astype(np.float32), np.zeros(actions, np.float32)),
        ]

    def restore(self, run: Run, directory: Path, state: dict[str, Any]) -> None:
        self.start(run)
        self.calls[-1] = "restore"
        self.steps = json.loads((directory / "model.json").read_text())["steps"]
        assert self.steps == run.steps == state["steps"]

    def learn(self, run: Run) -> None:
        while not run.should_stop():
            if self.stop_at and self.steps + self.chunk >= self.stop_at:
                raise KeyboardInterrupt
            self.steps += self.chunk  # "trained" a chunk
            run.log.record("loss/fake", 1.0 / self.steps)
            run.tick(self.steps, episodes=1, show={"return": core.signed(float("nan"))})
            run.log.dump(run.steps)

    def save(self, directory: Path) -> dict[str, Any]:
        (directory / "model.json").write_text(json.dumps({"steps": self.steps}))
        return {"steps": self.steps}

    def export(self, path: Path, name: str, provenance: dict[str, Any]) -> Path:
        rules = self.rules
        manifest = {
            "name": name,
            "rules": rules.to_dict(),
            "rules_preset": rules.name,
            "encoder_version": encoder_version(rules),
            "action_layout": {"version": 1, "num_actions": int(self.layers[-1][0].shape[0])},
            "network": {"activation": "tanh", "hidden": [8]},
            "training": {"backend": self.name, **provenance},
        }
        return save_policy(path, self.layers, manifest)

    def set_snapshots(self, snapshots: list[dict[str, Any]]) -> None:
        self.snapshots_seen.append([s["step"] for s in snapshots])


def _cfg(tmp_path: Path, *sets: str) -> TrainConfig:
    base = [f'runs_dir="{tmp_path}"', "total_steps=256", "eval_every=128", "eval_games=1", "checkpoint_every=128"]
    return TrainConfig.load(TINY).override([*base, "pool.snapshot_every=64", "pool.max_snapshots=2", *sets])


def _train(backend: CountingBackend, **kw: Any) -> dict[str, Any]:
    return core.train(backend, progress=False, **kw)


def test_a_backend_gets_the_whole_run_from_the_core(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    backend = CountingBackend(_cfg(tmp_path))
    summary = _train(backend)
    run_dir = backend.cfg.run_dir
    assert summary["steps"] == 256 and summary["backend"] == "counting" and summary["episodes"] == 4
    assert summary["stopped_by"] == "total_steps" and summary["policy"] == str(run_dir / "policy.npz")
    for name in ("config.json", "evals.json", "learning_curve.png", "summary.json", "policy.json", "progress.jsonl"):
        assert (run_dir / name).is_file(), name
    evals = json.loads((run_dir / "evals.json").read_text())
    assert [e["step"] for e in evals] == [128, 256]
    assert 0 < evals[0]["wall_seconds"] <= evals[1]["wall_seconds"] <= summary["wall_seconds"]
    assert backend.snapshots_seen == [[64], [64, 128], [128, 192], [192, 256]]  # the pool keeps max_snapshots
    state = json.loads((run_dir / "checkpoint" / "state.json").read_text())
    assert state["steps"] == 256 and state["backend"] == {"steps": 256}
    assert [s["step"] for s in state["run"]["snapshots"]] == [192, 256]
    rows = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [r["steps"] for r in rows] == [64, 128, 192, 256] and "eval/win_rate_vs_random" in rows[1]
    manifest = NeuralPolicy(run_dir / "policy").manifest.data["training"]
    assert manifest["backend"] == "counting" and manifest["steps"] == 256 and manifest["stopped_by"] == "total_steps"
    out, err = capsys.readouterr()
    assert out.splitlines()[-1].startswith("done: tiny 256 steps in ")
    assert err.splitlines() == [f"step {s}: " + err.splitlines()[i].split(": ", 1)[1] for i, s in enumerate((128, 256))]
    with pytest.raises(RunDirError, match="already holds a run"):
        _train(CountingBackend(_cfg(tmp_path)))


class SigtermBackend(CountingBackend):
    """Sends its own process SIGTERM halfway, as a scheduler stopping a job does."""

    def learn(self, run: Run) -> None:
        self.during = signal.getsignal(signal.SIGTERM)
        while not run.should_stop():
            self.steps += self.chunk
            run.tick(self.steps, episodes=1)
            if self.steps == 128:
                os.kill(os.getpid(), signal.SIGTERM)


def test_sigterm_checkpoints_and_the_handlers_come_back_after_training(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    backend = SigtermBackend(_cfg(tmp_path))
    assert _train(backend) == {"interrupted": True, "steps": 128}
    assert backend.during not in (signal.SIG_DFL, before[0]), "training stops on SIGTERM with a checkpoint"
    assert json.loads((backend.cfg.run_dir / "checkpoint" / "state.json").read_text())["steps"] == 128
    # A program (or a test process) that trains keeps its own handlers afterwards, and so do the processes it forks.
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_ctrl_c_checkpoints_and_resume_continues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _cfg(tmp_path)
    stopped = _train(CountingBackend(cfg, stop_at=192))
    assert stopped == {"interrupted": True, "steps": 128}
    assert "continue with --resume" in capsys.readouterr().err
    with pytest.raises(RunDirError, match="net_arch"):
        _train(CountingBackend(cfg.override(["net_arch=[8]"])), resume=True)
    backend = CountingBackend(cfg)
    summary = _train(backend, resume=True)
    assert backend.calls == ["restore"] and summary["steps"] == 256
    assert backend.snapshots_seen[0] == [64, 128], "the pool comes back with the checkpoint"
    assert [e["step"] for e in json.loads((cfg.run_dir / "evals.json").read_text())] == [128, 256]
    state = cfg.run_dir / "checkpoint" / "state.json"
    state.write_text(json.dumps({"num_timesteps": 256, "run": {}}))  # a checkpoint of the trainers before the core
    with pytest.raises(RunDirError, match="written before the training core"):
        _train(CountingBackend(cfg.override(["total_steps=512"])), resume=True)


def test_max_seconds_stops_and_still_exports(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, "total_steps=100000000", "max_seconds=0.5", "eval_every=100000000")
    summary = _train(CountingBackend(cfg, chunk=4096))
    assert summary["stopped_by"] == "max_seconds" and 0 < summary["steps"] < cfg.total_steps
    assert (cfg.run_dir / "policy.npz").is_file()


def test_every_registered_backend_is_a_backend() -> None:
    from training.config import BACKENDS

    assert set(BACKENDS) >= {"sb3", "rllib"}
    for name, (module, cls, extra) in BACKENDS.items():
        assert extra in ("train", "rllib") or extra, name
        try:
            backend = core.backend_class(name)
        except ImportError:
            continue
        assert issubclass(backend, Backend) and backend.name == name, (module, cls)
    rules = RulesConfig.resolve("core-2p")
    assert CountingBackend(TrainConfig.load(TINY)).identity(rules)["num_actions"] == Game.new(rules, 0).num_actions


def test_the_learning_curve_shows_win_rates_over_steps_and_over_wall_time() -> None:
    from training.evaluation import learning_curve_figure

    def result(rate: float) -> dict[str, float]:
        return {"win_rate": rate, "ci_low": rate / 2, "ci_high": (1 + rate) / 2, "games": 40}

    evals = [
        {"step": 0, "random": result(0.5), "heuristic": result(0.2)},  # recorded before evaluations had a wall time
        {"step": 1000, "wall_seconds": 300.0, "random": result(0.6), "heuristic": result(0.3), "expert": result(0.1)},
        {"step": 2000, "wall_seconds": 600.0, "random": result(0.9), "heuristic": result(0.5), "expert": result(0.2)},
    ]
    fig = learning_curve_figure(evals, "run (core-2p, selfplay)", xlabel="learner steps")
    by_step, by_time = fig.axes
    assert (by_step.get_xlabel(), by_time.get_xlabel()) == ("learner steps", "wall time (minutes)")
    assert [line.get_label() for line in by_step.lines] == ["vs random", "vs heuristic", "vs expert"]
    assert [line.get_label() for line in by_time.lines] == ["vs random", "vs heuristic", "vs expert"]
    assert list(by_step.lines[0].get_xdata()) == [0, 1000, 2000] and list(by_step.lines[2].get_xdata()) == [1000, 2000]
    assert list(by_time.lines[0].get_xdata()) == [5.0, 10.0]  # minutes; the evaluation without a wall time is left out
    assert list(by_time.lines[1].get_ydata()) == [0.3, 0.5]


def test_the_throughput_benchmark_gives_every_backend_the_same_valid_setting() -> None:
    """training/bench.py (docs/benchmarks.md): its overrides make a valid config for each backend, with the same
    rules, opponents, network and budget, and about the same learner decisions per update."""
    from training import bench

    common = bench.common_sets(60, "random", "[128,128]", 4096)
    base = TrainConfig.load("configs/train/zero-core-2p.toml")
    cfgs = {b: base.override([*common, f'backend="{b}"', *bench.backend_sets(b, 4096)]) for b in bench.BACKENDS}
    same = {(c.rules, c.net_arch, c.max_seconds, c.pool.p_random, c.bc_games) for c in cfgs.values()}
    assert same == {("core-2p", (128, 128), 60.0, 1.0, 0)}
    assert cfgs["sb3"].ppo.n_steps * cfgs["sb3"].n_envs == 4096
    assert cfgs["rllib"].ppo.n_steps * cfgs["rllib"].n_envs == 4096
    sp = cfgs["selfplay"]
    assert sp.ppo.n_steps * sp.selfplay.workers * sp.selfplay.games_per_worker == 2 * 4096  # the net plays 1 seat of 2
    row = {"backend": "sb3", "steps_per_second": 110.8, "steps": 6084, "seconds": 54.9, "process_seconds": 71.2}
    assert "| sb3 | **111** | 6,084 | 54.9 | 71 | 4.0 / 5.0 |" in bench.table(
        [{**row, "load_before": 4, "load_after": 5}]
    )
