"""Seeded fuzz of bot files: corrupted copies of valid bots must load and play legally, or raise PolicyFileError.

Every case starts from a valid bot (a small MLP or spatial network with random weights, ``policies.sample_bots``,
or a shipped bot) and corrupts it one way: the manifest (a field deleted, replaced by a value of another type or
out of range, the JSON truncated or its bytes flipped, not UTF-8), or the weights (the ``.npz`` truncated, bytes
flipped, an array dropped, added, reshaped, of another dtype or not finite). Then ``NeuralPolicy`` loads it and,
when it loads, the bot plays one decision of a fresh game of its rules and of other rules. The only error allowed
is ``PolicyFileError`` (``PolicyConfigError`` for the other rules); anything else is a finding.

    python tools/fuzz_bot_files.py --cases 10000 --seed 0      # docs/policies.md records the figures

Exit status 1 when a case raised a foreign error (each is printed with its case number for replaying).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from fuzzing import key_paths, random_value, report, run_cases  # noqa: E402

from bc_env.rules import Game  # noqa: E402
from policies import BOTS_DIR, NeuralPolicy, PolicyConfigError, PolicyFileError  # noqa: E402
from policies.sample_bots import write_mlp_bot, write_spatial_bot  # noqa: E402

WEIRD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 2, 3, 4, 7, 2**31, 2**63, -(2**63), 10**30, 1.5, -0.0, float("nan"), float("inf"),
    "", "x", "relu", "tanh", "mlp", "spatial", "core-4p", [], [1], [[1, 2]], [[6235, 8], [8, 1357]], {}, {"a": 1},
    {"players": 4}, "1357", [None], [[True, 8]],
]  # fmt: skip


def _random_value(rng: random.Random) -> Any:
    return random_value(rng, WEIRD_VALUES, ["a", "type", "layers", "players", "size"], leaf=0.6, lists=0.8, entries=2)


def _mutate_manifest(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    # Prefer the fields that matter (the training provenance is large but free-form).
    paths = [p for p in key_paths(doc) if p and p[0] != "training"] or [()]
    path = rng.choice(paths)
    parent: Any = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    kind = rng.random()
    if kind < 0.3 and isinstance(parent, dict):
        del parent[key]
    elif kind < 0.4 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] = parent[key] + rng.choice([-1, 1, -parent[key], 1000])
    elif kind < 0.45 and isinstance(parent, dict):
        parent[rng.choice(["extra", "typo", "layer"])] = _random_value(rng)
    else:
        parent[key] = _random_value(rng)
    return doc


def _mutate_arrays(arrays: dict[str, np.ndarray], rng: random.Random) -> dict[str, np.ndarray]:
    arrays = dict(arrays)
    name = rng.choice(sorted(arrays))
    kind = rng.randrange(7)
    if kind == 0:
        del arrays[name]
    elif kind == 1:
        arrays[rng.choice(["extra", "w9", "conv5.w"])] = np.zeros(3, dtype=np.float32)
    elif kind == 2:
        arrays[name] = arrays[name].reshape(-1)[: max(1, arrays[name].size - rng.randrange(1, 4))]
    elif kind == 3:
        arrays[name] = arrays[name].astype(rng.choice([np.float64, np.int32, np.float16, np.bool_]))
    elif kind == 4:
        bad = arrays[name].copy()
        bad.reshape(-1)[rng.randrange(bad.size)] = rng.choice([np.nan, np.inf, -np.inf])
        arrays[name] = bad
    elif kind == 5:
        arrays[name] = np.array(["text"] * 3)
    else:
        arrays[name] = arrays[name].T.copy() if arrays[name].ndim >= 2 else arrays[name][None, :]
    return arrays


def _corrupt_bytes(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(3)
    if kind == 0 or not data:
        return data[: rng.randrange(len(data) + 1)]  # truncated
    out = bytearray(data)
    for _ in range(rng.randrange(1, 9)):
        i = rng.randrange(len(out))
        out[i] = rng.randrange(256) if kind == 1 else out[i] ^ (1 << rng.randrange(8))
    return bytes(out)


def run_case(base: Path, work: Path, rng: random.Random) -> tuple[str, str]:
    """One corrupted copy of ``base`` at ``work``; returns (what was corrupted, outcome)."""
    manifest = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
    npz_bytes = base.with_suffix(".npz").read_bytes()
    target = rng.randrange(5)
    man_bytes = json.dumps(manifest).encode()
    if target == 0:
        what = "manifest field"
        man_bytes = json.dumps(_mutate_manifest(manifest, rng)).encode()
    elif target == 1:
        what = "manifest bytes"
        man_bytes = _corrupt_bytes(man_bytes, rng) if rng.random() < 0.8 else b"\xff\xfe" + man_bytes
    elif target == 2:
        what = "npz bytes"
        npz_bytes = _corrupt_bytes(npz_bytes, rng)
    elif target == 3:
        what = "npz arrays"
        with np.load(base.with_suffix(".npz"), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        arrays = _mutate_arrays(arrays, rng)
        tmp = work.with_name(work.name + "-arrays.npz")
        np.savez(tmp, **arrays)
        npz_bytes = tmp.read_bytes()
    else:
        what = "both"
        man_bytes = json.dumps(_mutate_manifest(manifest, rng)).encode()
        npz_bytes = _corrupt_bytes(npz_bytes, rng)
    work.with_suffix(".json").write_bytes(man_bytes)
    work.with_suffix(".npz").write_bytes(npz_bytes)
    try:
        bot = NeuralPolicy(work)
    except PolicyFileError:
        return what, "PolicyFileError"
    # It loaded: it must play its own rules legally and refuse other rules with PolicyConfigError.
    game = Game.new(bot.rules, rng.randrange(1000))
    action = bot.act(game)
    if action not in game.legal_actions():
        raise AssertionError(f"loaded bot chose the illegal action {action}")
    other = Game.new("core-4p" if bot.rules.players != 4 else "core-2p", 0)
    try:
        bot.act(other)
    except PolicyConfigError:
        return what, "loaded, plays legally"
    raise AssertionError("a bot acted in a game of other rules")


def fuzz(cases: int, seed: int, shipped: bool = True, progress: bool = False) -> dict[str, Any]:
    """Run ``cases`` seeded cases; returns the figures (outcomes by type, foreign errors, seconds)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bases = [
            write_mlp_bot(folder / "mlp-2p"),
            write_spatial_bot(folder / "spatial-2p"),
            write_mlp_bot(folder / "mlp-4p", "core-4p"),
            write_spatial_bot(folder / "spatial-exp01", "exp01-4p"),
        ]
        if shipped:
            for name in ("ppo-core-2p", "ppo-core-4p"):
                for suffix in (".npz", ".json"):
                    shutil.copy(BOTS_DIR / f"{name}{suffix}", folder / f"{name}{suffix}")
                bases.append(folder / name)

        def case(case_rng: random.Random) -> tuple[str, str]:
            # Shipped bots are large: one case in ten uses one.
            pool = bases if case_rng.random() < 0.1 else bases[:4]
            base = case_rng.choice(pool)
            try:
                return run_case(base, folder / "case", case_rng)
            except Exception as exc:
                exc.add_note(base.name)
                raise

        return run_cases(cases, seed, case, start, progress)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-shipped", action="store_true", help="only the small sample bots")
    args = parser.parse_args(argv)
    return report(fuzz(args.cases, args.seed, shipped=not args.no_shipped, progress=sys.stderr.isatty()))


if __name__ == "__main__":
    sys.exit(main())
