"""scripts/run.sh, the README's main job, calls the command line with options that exist and values it accepts
(the job itself takes minutes: scripts/run.sh is run by hand; docs/install.md records its time)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from balance_control.cli import build_parser
from bc_env.rules import preset_names
from policies import load

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "run.sh").read_text(encoding="utf-8")


def commands() -> list[list[str]]:
    """The ``"$BC" ...`` command lines of run.sh (continuation lines joined), with its variables filled in."""
    text = SCRIPT.replace("\\\n", " ")
    variables = dict(re.findall(r"^([A-Z]+)=(\S+)$", text, re.M))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith('"$BC" '):
            continue
        for name, value in variables.items():
            line = line.replace(f'"${name}"', value).replace(f"${name}", value)
        out.append(shlex.split(line)[1:])
    return out


def test_run_sh_runs_the_four_steps():
    assert [argv[0] for argv in commands()] == ["watch", "tournament", "report", "bench"]
    assert "scripts/setup.sh tournament" in SCRIPT  # ratings (openskill) and the report's figures (matplotlib)


@pytest.mark.parametrize("argv", commands(), ids=lambda argv: argv[0])
def test_run_sh_commands_parse(argv):
    args = build_parser().parse_args(argv)  # an unknown option or a bad value exits
    config = getattr(args, "config", None) or []
    for preset in config if isinstance(config, list) else [config]:
        assert preset in preset_names()
    for bot in filter(None, (getattr(args, "bots", None) or "").split(",")):
        load(bot)  # a shipped bot (raises UnknownPolicyError otherwise)
