"""What a tiny training run produced, as a JSON fingerprint: the files of the run directory, a digest of every
exported policy's weights, the evaluations and the summary without their timings. Two runs of a deterministic
backend with the same seed give the same fingerprint; the file ``tests/fixtures/training-tiny.json`` holds
the fingerprints recorded before the training core was shared by the backends (issue 31), and
``tests/test_training.py`` / ``tests/test_expert_iteration.py`` compare today's runs with it.

    python tools/training_fingerprint.py sb3 exit [rllib] [--out FILE]

Weight digests are exact float32 bytes: they hold for one torch (and Ray) build on one kind of CPU (re-record them
with this script after an upgrade). The fixture's "weights on other CPUs" holds the same runs' digests on other kinds
(:func:`recorded_weights`): the same code, other SIMD kernels. sb3 and expert iteration are deterministic for a seed;
rllib is not quite (its first PPO iteration has two outcomes for one seed, docs/training.md), so compare its weights
across runs with care.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def weights_digest(path: Path) -> str:
    """SHA-256 over the arrays of an ``.npz`` policy, in name order (names, shapes and bytes)."""
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as data:
        for name in sorted(data.files):
            a = np.ascontiguousarray(data[name])
            h.update(f"{name}:{a.dtype}:{a.shape};".encode())
            h.update(a.tobytes())
    return h.hexdigest()[:16]


def _files(run_dir: Path) -> list[str]:
    out = set()
    for p in run_dir.rglob("*"):
        if p.is_file():
            rel = p.relative_to(run_dir).as_posix()
            rel = re.sub(r"events\.out\.tfevents\..*", "events.out.tfevents.*", rel)
            out.add(rel)
    return sorted(out)


def fingerprint(run_dir: Path, *, weights: bool = True) -> dict[str, Any]:
    fp: dict[str, Any] = {"files": _files(run_dir)}
    if not weights:
        return fp
    fp["weights"] = {
        p.relative_to(run_dir).with_suffix("").as_posix(): weights_digest(p)
        for p in sorted(run_dir.rglob("*.npz"))
        if not p.relative_to(run_dir).as_posix().startswith(("data/", "checkpoint"))
    }
    evals = run_dir / "evals.json"
    if evals.is_file():
        # The wall time of each evaluation differs from run to run: the fingerprint keeps what the seed fixes.
        fp["evals"] = [{k: v for k, v in e.items() if k != "wall_seconds"} for e in json.loads(evals.read_text())]
    return fp


def recorded_weights(golden: dict[str, Any], name: str) -> list[dict[str, str]]:
    """The weight digests recorded for the run ``name`` of the fixture ``golden``: the machine's where it was
    recorded first, then those of "weights on other CPUs"."""
    return [golden[name]["weights"], *golden.get("weights on other CPUs", {}).get(name, [])]


def run_tiny(backend: str, runs: Path) -> Path:
    """Train the tiny config of ``backend`` (sb3, rllib or exit) into ``runs``; the run directory."""
    if backend == "exit":
        from training.expert_iteration import ExItConfig, run

        cfg = ExItConfig.load("configs/train/exit-tiny.toml").override([f"runs_dir={json.dumps(str(runs))}"])
        run(cfg)
        return cfg.run_dir
    from training.config import TrainConfig

    sets = [f"runs_dir={json.dumps(str(runs))}"]
    if backend == "rllib":
        sets += ['backend="rllib"', "bc_games=0"]
        from training.rllib.trainer import train
    else:
        from training.train import train
    cfg = TrainConfig.load("configs/train/tiny.toml").override(sets)
    train(cfg, progress=False)
    return cfg.run_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backends", nargs="+", choices=("sb3", "exit", "rllib"))
    parser.add_argument("--out", help="write the fingerprints here (JSON) instead of stdout")
    args = parser.parse_args(argv)
    result = {}
    for backend in args.backends:
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = run_tiny(backend, Path(tmp))
            result[backend] = fingerprint(run_dir)
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
