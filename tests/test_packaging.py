"""Packaging (issue 13): the licence in the PEP 639 form (no deprecation warning from setuptools), the
``bench`` extra with the env benchmark's peer environments, and those peers measured when it is installed."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_licence_is_an_spdx_expression_with_its_file():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"  # a string (PEP 639), not the deprecated {text = ...} table
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert not any(c.startswith("License ::") for c in project.get("classifiers", []))  # PEP 639 forbids both
    (requirement,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert int(re.search(r">=(\d+)", requirement).group(1)) >= 77  # the first setuptools that reads PEP 639


def test_the_bench_extra_installs_the_peer_environments():
    bench = PYPROJECT["project"]["optional-dependencies"]["bench"]
    names = {re.split(r"[<>=!~\[ ]", r, maxsplit=1)[0] for r in bench}
    assert names == {"chess", "pygame-ce", "catanatron"}  # connect_four_v3 and chess_v6 import; the engine peer


def test_the_env_benchmark_measures_its_peers_when_the_extra_is_installed(capsys):
    pytest.importorskip("chess")
    pytest.importorskip("pygame")
    from bc_env.bench.env import run

    results = run("core-2p", seconds=0.2)
    names = [r.name for r in results]
    assert "connect_four_v3" in names and "chess_v6" in names
    assert all(r.steps > 0 for r in results)
    assert "skipped" not in capsys.readouterr().out


def test_the_env_benchmark_names_the_extra_when_a_peer_is_missing(monkeypatch, capsys):
    import sys

    from bc_env.bench.env import run

    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)  # as if the peers could not be imported
    run("core-2p", seconds=0.1)
    out = capsys.readouterr().out
    assert "connect_four_v3: skipped" in out and "pip install -e '.[bench]'" in out
