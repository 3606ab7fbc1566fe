"""Every script of examples/ runs and says what it did (issue 28): each in a fresh interpreter from the repository
root, as a user would run it. The ones that need an extra are skipped without it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _run(name: str, *args: str, timeout: int = 300) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, str(EXAMPLES / name), *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_every_example_is_listed_and_tested():
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    this = Path(__file__).read_text(encoding="utf-8")
    for name in scripts:
        assert f"[`{name}`]({name})" in readme, name
        assert f'_run("{name}"' in this, name


def test_pettingzoo_loop():
    out = _run("pettingzoo_loop.py", "core-3p", "2")
    pattern = r"core-3p, seed 2: \d+ decisions, \d+ rounds; per agent \{'player_0': \d+, .*\}\nwinners: player_\d"
    assert re.match(pattern, out), out


def test_sb3_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    out = _run("sb3_maskable_ppo.py")
    assert re.fullmatch(r"trained 128 steps; a game against random as seat 0: reward -?[01]\.\d+\n", out), out


@pytest.mark.slow
def test_rllib_minimal():
    pytest.importorskip("ray.rllib")
    out = _run("rllib_minimal.py")
    assert out == "one RLlib PPO iteration on core-2p: 64.0 environment steps sampled and learned from\n", out


def test_cleanrl_vector():
    pytest.importorskip("torch")
    out = _run("cleanrl_vector.py")
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["iteration 1", "iteration 2", "iteration 3"], out
    assert re.fullmatch(r"iteration 3: \d+ games finished, mean reward [+-]\d\.\d\d; policy loss .*", lines[2]), out
    assert lines[3] == "trained 1536 learner steps on 8 batched games", out


def test_tournament():
    pytest.importorskip("openskill")
    out = _run("tournament.py", "3")
    lines = out.splitlines()
    assert lines[0] == "3 games of core-3p"
    assert sorted(line.split("|")[2].strip() for line in lines[3:]) == ["expert", "heuristic", "random"]


def test_bot_stdio():
    pytest.importorskip("jsonschema")
    out = _run("bot_stdio.py")
    assert out.startswith("balance-control ") and "bots: " in out
    assert re.search(r"^\d+ actions; winners \[", out, re.MULTILINE) and "game over" in out


def test_bot_http():
    pytest.importorskip("uvicorn")
    out = _run("bot_http.py")
    assert re.match(r"server at http://127\.0\.0\.1:\d+/ ", out), out
    assert out.count("heuristic plays ") == 6 and re.search(r"now P[01] decides \(\w+\), \d+ options", out)
