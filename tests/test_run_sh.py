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
from training.config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "run.sh").read_text(encoding="utf-8")


def commands() -> list[list[str]]:
    """The ``"$BC" ...`` command lines of run.sh (continuation lines joined), with its variables filled in."""
    text = SCRIPT.replace("\\\n", " ")
    variables = dict(re.findall(r"^([A-Z]+)=(\S+)$", text, re.M))
    for name in variables:  # a variable may use the ones before it (BOTS: the bot of $OUT)
        for other in variables:
            if other != name:
                variables[name] = variables[name].replace(f"${other}", variables[other])
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith('"$BC" '):
            continue
        for name, value in variables.items():
            line = line.replace(f'"${name}"', value).replace(f"${name}", value)
        out.append(shlex.split(line)[1:])
    return out


def test_run_sh_runs_the_five_steps():
    assert [argv[0] for argv in commands()] == ["watch", "train", "tournament", "report", "bench"]
    assert "scripts/setup.sh tournament,train" in SCRIPT  # ratings, the report's figures, training (torch)


def test_the_bot_trained_in_run_sh_joins_its_tournament():
    train = next(argv for argv in commands() if argv[0] == "train")
    args = build_parser().parse_args(train)
    cfg = TrainConfig.load(args.config).override(args.overrides)  # the config exists, every override is known
    assert cfg.backend == "selfplay" and cfg.max_seconds <= 30
    tournament = next(argv for argv in commands() if argv[0] == "tournament")
    bots = tournament[tournament.index("--bots") + 1].split(",")
    assert str(cfg.run_dir / "policy") in bots


@pytest.mark.parametrize("argv", commands(), ids=lambda argv: argv[0])
def test_run_sh_commands_parse(argv):
    args = build_parser().parse_args(argv)  # an unknown option or a bad value exits
    if argv[0] == "train":
        return  # its config file: test_the_bot_trained_in_run_sh_joins_its_tournament
    config = getattr(args, "config", None) or []
    for preset in config if isinstance(config, list) else [config]:
        assert preset in preset_names()
    for bot in filter(None, (getattr(args, "bots", None) or "").split(",")):
        if not bot.startswith("runs/main-job/"):  # the bot trained by run.sh itself
            load(bot)  # a shipped bot (raises UnknownPolicyError otherwise)
