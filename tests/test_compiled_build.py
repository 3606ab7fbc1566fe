"""The two builds of the engine (issue 19): the mypyc-compiled one that ``pip install`` makes where a C compiler is
present, and the pure-Python one (``BC_PURE_PYTHON=1``, bc_env/_build.py). They must behave identically:
tools/differential.py compares every state and every legal-action list of seeded random games on both."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bc_env.rules
from bc_env.rules import preset_names

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from crossproc import in_fresh_process, jsonable  # noqa: E402
from differential import game_digest  # noqa: E402

needs_compiled = pytest.mark.skipif(
    not bc_env.rules.COMPILED, reason="the compiled engine is not running (not built, or BC_PURE_PYTHON is set)"
)


def _run(code: str, pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "BC_PURE_PYTHON"}
    if pure:
        env["BC_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout


def test_bc_pure_python_selects_the_sources_of_every_engine_module():
    code = (
        "import json, sys, bc_env.rules, bc_env.rules.game, bc_env.rules.expansions.exp01; "
        "mods = sorted(n for n in sys.modules if n.startswith('bc_env.rules')); "
        "print(json.dumps([bc_env.rules.COMPILED, {n: sys.modules[n].__file__ for n in mods}]))"
    )
    compiled, files = json.loads(_run(code, pure=True))
    assert compiled is False
    assert "bc_env.rules.game" in files and "bc_env.rules.expansions.exp01" in files
    assert all(f.endswith(".py") for f in files.values()), files


def test_bc_pure_python_selects_the_source_of_the_observation_encoder():
    code = "import bc_env.encoding.observation as o, bc_env.rules; print(bc_env.rules.COMPILED, o.__file__)"
    compiled, path = _run(code, pure=True).split()
    assert compiled == "False" and path.endswith("observation.py")


@needs_compiled
def test_the_compiled_build_runs_the_observation_encoder_compiled():
    code = "import bc_env.encoding.observation as o, bc_env.encoding.views as v; print(o.__file__, v.__file__)"
    encoder, views = _run(code, pure=False).split()
    assert not encoder.endswith(".py") and views.endswith("views.py")


@needs_compiled
def test_the_compiled_build_runs_every_engine_module_compiled_but_errors():
    code = (
        "import json, sys, bc_env.rules, bc_env.rules.game, bc_env.rules.expansions.exp01; "
        "print(json.dumps({n: m.__file__ for n, m in sys.modules.items() if n.startswith('bc_env.rules')}))"
    )
    files = json.loads(_run(code, pure=False))
    python = sorted(n for n, f in files.items() if f.endswith(".py"))
    assert python == sorted(NOT_COMPILED) and "bc_env.rules.game" in files


#: setup.py's NOT_COMPILED, as module names (setup.py runs setup() when imported, so it is read, not imported).
NOT_COMPILED = [
    "bc_env.rules." + m.replace("/", ".")
    for m in re.findall(r'^    "bc_env/rules/([\w/]+)\.py":', (ROOT / "setup.py").read_text(encoding="utf-8"), re.M)
]


@needs_compiled
def test_both_builds_play_the_same_games_state_by_state():
    """A few seeded random games per preset (tools/differential.py plays 1,000 per preset)."""
    games = [(preset, seed) for preset in preset_names() for seed in range(2)]
    code = (
        "import json, sys; sys.path.insert(0, 'tools'); from differential import game_digest; "
        f"print(json.dumps([game_digest(p, s) for p, s in {games!r}]))"
    )
    pure = [tuple(x) for x in json.loads(_run(code, pure=True))]
    compiled = [game_digest(preset, seed) for preset, seed in games]
    assert compiled == pure


#: Observation digests, compared between the builds below.
ENCODE_CODE = (
    "import hashlib, random; from bc_env.rules import Game; from bc_env.encoding import Encoder\n"
    "out = []\n"
    "for preset, seed in {games!r}:\n"
    "    enc, g, rng, h = Encoder(preset), Game.new(preset, seed), random.Random(seed), hashlib.sha256()\n"
    "    while not g.is_terminal():\n"
    "        for o in range(g.num_players):\n"
    "            h.update(enc.encode(g, o).tobytes())\n"
    "        legal = g.legal_actions(); g.apply(legal[rng.randrange(len(legal))])\n"
    "    out.append(h.hexdigest())\n"
    "print(out)\n"
)


@needs_compiled
def test_both_builds_encode_the_same_observations():
    """Every observer's encoding at every decision of one seeded random game per preset (the compiled encoder)."""
    code = ENCODE_CODE.format(games=[(preset, 0) for preset in preset_names()])
    assert _run(code, pure=False) == _run(code, pure=True)


def test_a_game_digest_sees_a_different_game_and_not_the_process():
    assert game_digest("core-2p", 0) != game_digest("core-2p", 1)
    assert in_fresh_process(game_digest, "core-2p", 0) == jsonable(game_digest("core-2p", 0))  # another hash seed


def _setup_py_engine_modules() -> list[str]:
    """setup.py's engine_modules(): the modules mypyc compiles (read without running setup())."""
    source = (ROOT / "setup.py").read_text(encoding="utf-8").split("\nclass OptionalBuildExt")[0]
    namespace: dict[str, object] = {}
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        exec(compile(source, "setup.py", "exec"), namespace)
        return namespace["engine_modules"]()  # type: ignore[operator,no-any-return]
    finally:
        os.chdir(cwd)


def test_mypy_checks_every_module_setup_py_compiles():
    import tomllib

    files = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["files"]
    compiled = _setup_py_engine_modules()
    checked = {m for m in compiled if any(m == f or m.startswith(f + "/") for f in files)}
    assert checked == set(compiled)


def test_mypyc_accepts_the_engine_without_the_optional_packages(tmp_path):
    """mypyc type-checks the engine in pip's isolated build environment: setuptools and mypy only, no NumPy, no
    Gymnasium. An error there (a module the engine reaches subclassing a class of a missing package, say) makes the
    install fall back to the pure-Python engine; this runs the same check, as setup.py calls it."""
    pytest.importorskip("mypy")
    cmd = [sys.executable, "-m", "mypy", "--no-site-packages", "--ignore-missing-imports", "--cache-dir", str(tmp_path)]
    out = subprocess.run(cmd + _setup_py_engine_modules(), cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
