"""The conventions users of Gymnasium and PettingZoo expect (issue 28, item 3): a registered Gymnasium id with
``env.spec``, the ``balance_control_v0`` module, ``render_mode="human"`` and the ``py.typed`` markers."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import bc_env
import policies
from bc_env import balance_control_v0
from bc_env.env import SingleAgentEnv
from bc_env.env.aec import raw_env
from bc_env.env.render import HumanRenderer
from bc_env.rules import Game

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["balance_control", "bc_env", "benchmarking", "embedding", "policies", "training"]


def _python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


# ----------------------------------------------------------------------------------------------- Gymnasium id
@pytest.mark.parametrize(
    "imports",
    ["import bc_env, sys; assert 'gymnasium' not in sys.modules; import gymnasium", "import gymnasium, bc_env"],
)
def test_gymnasium_make_finds_the_env_after_import_bc_env_in_either_order(imports):
    code = (
        f"{imports}\n"
        "env = gymnasium.make('balance_control/BalanceControl-v0', config='core-2p')\n"
        "obs, info = env.reset(seed=3)\n"
        "done = False\n"
        "while not done:\n"
        "    mask = env.unwrapped.action_masks()\n"
        "    obs, reward, done, truncated, info = env.step(int(mask.nonzero()[0][0]))\n"
        "print(env.spec.id, env.spec.entry_point, 'policies' in sys.modules, env.spec.kwargs, env.unwrapped)\n"
    )
    env_id, entry, bots_imported, rest = _python("import sys\n" + code).split(" ", 3)
    assert env_id == bc_env.GYMNASIUM_ID == "balance_control/BalanceControl-v0"
    assert entry == "bc_env.balance_control_v0:gymnasium_env"
    assert bots_imported == "False"  # the default opponents need no bot package
    assert "'config': 'core-2p'" in rest and "SingleAgentEnv" in rest


def test_gymnasium_make_with_the_module_prefix_imports_bc_env_itself():
    out = _python(
        "import gymnasium\n"
        "env = gymnasium.make('bc_env:balance_control/BalanceControl-v0', config='core-3p')\n"
        "print(env.unwrapped.config.name, env.spec.id)"
    )
    assert out.split() == ["core-3p", "balance_control/BalanceControl-v0"]


def test_gymnasium_make_passes_options_and_takes_opponents_as_objects():
    import gymnasium

    from bc_env.env.errors import EnvOptionError

    bot = policies.load("heuristic", seed=1)
    env = gymnasium.make(bc_env.GYMNASIUM_ID, config="core-4p", opponents=bot, learner_seat=2)
    assert env.spec is not None and env.spec.id == bc_env.GYMNASIUM_ID
    kwargs = env.spec.kwargs  # Gymnasium keeps a deep copy of the arguments
    assert kwargs["config"] == "core-4p" and kwargs["learner_seat"] == 2
    assert type(kwargs["opponents"]).__name__ == "HeuristicPolicy"
    with pytest.raises(EnvOptionError, match="policies.load"):  # a name: the env sits below the bots
        gymnasium.make(bc_env.GYMNASIUM_ID, config="core-4p", opponents="heuristic")
    inner = env.unwrapped
    assert isinstance(inner, SingleAgentEnv) and inner.config.name == "core-4p"
    obs, info = env.reset(seed=1)
    assert info["learner_seat"] == 2 and obs.shape == env.observation_space.shape
    assert {type(p).__name__ for q, p in enumerate(inner._seats) if q != 2} == {"HeuristicPolicy"}
    # the default: random opponents from the env's own RNG, reproducible with the seed, no bot package needed
    first = gymnasium.make(bc_env.GYMNASIUM_ID, config="core-2p")
    second = gymnasium.make(bc_env.GYMNASIUM_ID, config="core-2p")
    for e in (first, second):
        e.reset(seed=9)
        for _ in range(15):
            e.step(int(np.flatnonzero(e.unwrapped.action_masks())[0]))
    assert first.unwrapped.game.to_dict() == second.unwrapped.game.to_dict()


def test_pettingzoo_registry_makes_the_aec_env():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry (before 1.27)")
    env = pettingzoo.make("aec", "balance_control/balance_control_v0", config="core-3p")
    assert isinstance(env, raw_env) and env.config.name == "core-3p"


# ----------------------------------------------------------------------------------------------- balance_control_v0
def test_balance_control_v0_module_follows_pettingzoo_classic():
    env = balance_control_v0.env(config="core-2p", render_mode="ansi")
    raw = balance_control_v0.raw_env(config="core-2p")
    assert isinstance(env, raw_env) and isinstance(raw, raw_env)
    assert env.metadata["name"] == "balance_control_v0" and env.metadata["is_parallelizable"] is False
    assert not hasattr(balance_control_v0, "parallel_env")  # turn-based: AEC only, as PettingZoo's board games
    env.reset(seed=2)
    assert env.render() == env.game.render()
    gym_env = balance_control_v0.gymnasium_env("core-2p", opponents=[policies.load("random", seed=0)])
    assert isinstance(gym_env, SingleAgentEnv)


# ----------------------------------------------------------------------------------------------- render_mode="human"
def _no_display(monkeypatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def test_human_render_without_a_display_prints_the_board_after_every_step(monkeypatch, capsys):
    _no_display(monkeypatch)
    env = bc_env.env("core-2p", render_mode="human")
    env.reset(seed=4)
    first = capsys.readouterr().out
    assert first.startswith("core-2p, round 1: P") and env.game.render() in first
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.game.render() in capsys.readouterr().out
    assert env.render() is None
    env.close()


def test_human_render_of_the_single_agent_env(monkeypatch, capsys):
    _no_display(monkeypatch)
    env = SingleAgentEnv("core-2p", render_mode="human")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    out = capsys.readouterr().out
    assert out.count("influence on tiles (per seat):") == 2 and env.game.render() in out


def test_human_render_opens_a_window_where_there_is_a_display(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a display without a screen
    renderer = HumanRenderer(cell_px=16, fps=1000)
    game = Game.new("core-2p", 0)
    renderer.show(game)
    assert renderer.window is True
    surface = pygame.display.get_surface()
    from bc_env.env.render import render_rgb

    frame = render_rgb(game, 16)
    assert surface.get_size() == (frame.shape[1], frame.shape[0])
    assert np.array_equal(pygame.surfarray.array3d(surface).swapaxes(0, 1), frame)
    renderer.close()
    assert not pygame.display.get_init()


# ----------------------------------------------------------------------------------------------- py.typed
def test_every_package_is_typed_and_installs_its_marker(tmp_path):
    for package in PACKAGES:
        assert (ROOT / package / "py.typed").is_file(), package
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert "py.typed" in data["*"]
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "-d", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.parent.name for p in tmp_path.glob("*/py.typed")) == PACKAGES
