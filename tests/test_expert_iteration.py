"""Expert iteration end to end on a tiny budget: generations, export + load, value head, resume, refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from bc_env.rules import Game  # noqa: E402
from policies import MCTSPolicy, NeuralPolicy, load  # noqa: E402
from training.config import TrainConfigError  # noqa: E402
from training.expert_iteration import ExItConfig, run  # noqa: E402
from training.rundir import RunDirError  # noqa: E402

# the recorded fingerprints need the torch thread count they were recorded with (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("recorded_torch_threads")


ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "train" / "exit-tiny.toml"


def _cfg(tmp: Path, **changes: object) -> ExItConfig:
    sets = [f"runs_dir={json.dumps(str(tmp))}", "sims=3", "explore_decisions=2", "eval_games=2"]
    sets += [f"{k}={json.dumps(v)}" for k, v in changes.items()]
    return ExItConfig.load(CONFIG).override(sets)


def test_two_generations_resume_export_and_search(tmp_path: Path, training_fingerprint) -> None:
    full = run(_cfg(tmp_path, name="full", generations=2))
    assert full["generation"] == 2
    # The same networks and every file as before expert iteration moved onto the training core (issue 31) ...
    fp = training_fingerprint.fingerprint(tmp_path / "full")
    recorded = json.loads((ROOT / "tests" / "fixtures" / "training-tiny.json").read_text())
    name = "exit sims=3 explore_decisions=2"
    golden = recorded[name]
    weights = {k: v for k, v in fp["weights"].items() if k in golden["weights"]}
    assert weights in training_fingerprint.recorded_weights(recorded, name), weights  # one per kind of CPU
    assert set(golden["files"]) <= set(fp["files"])
    # ... and now what the other trainers have: an evaluation per generation, TensorBoard, a learning curve.
    assert [e["step"] for e in fp["evals"]] == [1, 2] and fp["evals"][0]["random"]["games"] == 2
    for name in ("evals.json", "learning_curve.png", "summary.json", "progress.jsonl"):
        assert name in fp["files"], name
    assert "tb/events.out.tfevents.*" in fp["files"]
    summary = json.loads((tmp_path / "full" / "summary.json").read_text())
    assert summary["unit"] == "generation" and summary["steps"] == 2 and summary["generations"] == 2
    # Stopped after generation 1, resumed to 2: the same networks as without the stop.
    run(_cfg(tmp_path, name="split", generations=1))
    assert (tmp_path / "split" / "generations" / "gen-1.npz").is_file()
    assert not (tmp_path / "split" / "generations" / "gen-2.npz").exists()
    resumed = run(_cfg(tmp_path, name="split", generations=2), resume=True)
    assert [r["generation"] for r in resumed["chain"]] == [1, 2]
    a = np.load(tmp_path / "full" / "policy.npz")
    b = np.load(tmp_path / "split" / "policy.npz")
    assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)

    # The export is an ordinary bot (torch-free inference) with a value head and the chain in its manifest.
    bot = load(str(tmp_path / "split" / "policy"))
    assert isinstance(bot, NeuralPolicy) and bot.has_value
    chain = bot.manifest.data["training"]["generations"]
    assert [g["generation"] for g in chain] == [1, 2] and chain[1]["parent"] == "gen-1"
    assert chain[0]["examples"] > 0 and chain[1]["trained_on"] > chain[1]["examples"]
    game = Game.new("core-2p", 3)
    assert bot.act(game) in game.legal_actions()
    assert -1.0 <= bot.value(bot.observe(game, 0)) <= 1.0

    # The search runs on the network: its prior and its value head.
    search = MCTSPolicy(seed=0, sims=6, prior=str(tmp_path / "split" / "policy"), leaf="value")
    assert search.act(game) in game.legal_actions()

    # Refusals: an existing run without --resume, a resume with other settings, a bad key.
    with pytest.raises(RunDirError, match="already holds a run"):
        run(_cfg(tmp_path, name="split"))
    with pytest.raises(RunDirError, match="seed"):
        run(_cfg(tmp_path, name="split", seed=5, generations=3), resume=True)
    with pytest.raises(TrainConfigError, match="unknown config key"):
        _cfg(tmp_path, depth=3)
    with pytest.raises(TrainConfigError, match="leaf"):
        _cfg(tmp_path, leaf="oracle")


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from balance_control.cli import main

    with pytest.raises(SystemExit) as err:
        main(["expert-iteration", "--config", str(tmp_path / "missing.toml")])
    assert "balance-control: error: expert-iteration config not found" in str(err.value.code)
    with pytest.raises(SystemExit) as err:
        main(["expert-iteration", "--config", str(CONFIG), "--set", "sims=0"])
    assert "sims must be >= 1" in str(err.value.code)
    with pytest.raises(SystemExit) as err:
        runs = f"runs_dir={json.dumps(str(tmp_path))}"
        main(["expert-iteration", "--config", str(CONFIG), "--set", runs, "--resume"])
    assert "cannot resume" in str(err.value.code)


def test_the_command_prints_readable_lines_an_evaluation_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 28: one readable line per generation and per evaluation (no raw dicts), then the summary line; the
    run directory has the evaluation, TensorBoard and the learning curve like the PPO runs'."""
    from balance_control.cli import main

    sets = [f"runs_dir={json.dumps(str(tmp_path))}", "generations=1", "sims=3", "explore_decisions=2", "eval_games=2"]
    args = ["expert-iteration", "--config", str(CONFIG), "--no-progress"]
    assert main([*args, *[x for s in sets for x in ("--set", s)]]) == 0
    out, err = capsys.readouterr()
    lines = (out + err).splitlines()
    assert out.startswith("exit-tiny: expert iteration on core-2p, 1 generations x 1 self-play games")
    assert any(re.fullmatch(r"generation 1/1: 1 self-play game, [\d,]+ examples \(trained on [\d,]+\), policy loss "
                            r"\d+\.\d{3}, value loss \d+\.\d{3}; self-play [\d.]+ s, training [\d.]+ s on cpu", line)
               for line in lines), lines  # fmt: skip
    assert any(re.fullmatch(r"generation 1: vs random \d+% \(\d+%-\d+%\), vs heuristic \d+% \(\d+%-\d+%\) over 2 "
                            r"games each", line) for line in lines), lines  # fmt: skip
    assert any(line.startswith("done: exit-tiny 1 generation in ") for line in lines)
    assert "{" not in out + err and "nan" not in out + err
    run_dir = tmp_path / "exit-tiny"
    for name in ("evals.json", "learning_curve.png", "summary.json", "policy.npz"):
        assert (run_dir / name).is_file(), name
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))


def test_progress_figures_show_a_dash_before_there_is_a_value() -> None:
    """issue 28: no ``nan`` in a progress line (e.g. RLlib's mean return before any episode has finished)."""
    from bc_env.rules import RulesConfig
    from training.core import Run, signed
    from training.expert_iteration import ExItBackend

    assert signed(float("nan")) == "-" and signed(None) == "-" and signed(0.25) == "+0.25"
    run = Run(ExItBackend(ExItConfig.load(CONFIG)), RulesConfig.resolve("core-2p"), progress=False, invoked=0.0)
    run.show = {"return": signed(float("nan"))}
    assert run.postfix() == "return -"
