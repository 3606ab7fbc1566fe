"""What both trainers (SB3, ``train.py``; Ray RLlib, ``rllib/trainer.py``) do with a run directory: refuse an
incompatible resume, write JSON files atomically, and name the commit a run was made from. Torch- and sb3-free, so
it imports with every backend (the selfplay backend runs where sb3-contrib is not installed)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any


class RunDirError(RuntimeError):
    """A run directory cannot be used with this configuration (refused resume, existing run, ...)."""


def git_commit() -> str:
    """The checkout's short commit id, for a bot's manifest ("unknown" outside a git checkout)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_resume(run_dir: Path, identity: dict[str, Any], checkpoint: str) -> None:
    """Refuse to resume ``run_dir`` unless it was started with the same ``identity`` (configuration keys,
    rules, encoder version, action count) and holds the checkpoint file ``checkpoint``."""
    saved_path = run_dir / "config.json"
    if not saved_path.is_file():
        raise RunDirError(f"cannot resume: {saved_path} not found (is {run_dir} a run directory?)")
    saved = json.loads(saved_path.read_text(encoding="utf-8"))["identity"]
    # Both ways: a key only one side has (an identity key a later version adds only where it is not the default)
    # differs too.
    keys = [*identity, *(k for k in saved if k not in identity)]
    diffs = [k for k in keys if saved.get(k) != identity.get(k)]
    if diffs:
        details = "; ".join(f"{k}: run has {saved.get(k)!r}, config has {identity.get(k)!r}" for k in diffs)
        raise RunDirError(
            f"refusing to resume {run_dir}: incompatible configuration or encoder version ({details}). "
            f"Start a new run with another name (--set name=...)."
        )
    if not (run_dir / "checkpoint" / checkpoint).is_file():
        raise RunDirError(f"cannot resume: {run_dir} has no checkpoint yet")
