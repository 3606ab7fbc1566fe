"""One game runner (issue 31): ``match``, ``tournament``, ``sprt`` and tools/match_games.py give exactly the
results they gave before they became front ends of ``benchmarking/runner.py``.

``tests/fixtures/runner_golden.json`` was recorded with the three separate runners (commit dbde365:
policies/arena.py, benchmarking/tournament.py, tools/match_games.py) by running this file with
``BC_RECORD_RUNNER_GOLDEN=1``; every number but the wall-clock timings is compared exactly: the match tables
(``--json``) and every game's replay, the tournament and SPRT logs line by line, their printed ratings and
verdicts, and the match-file rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from balance_control.cli import main

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "runner_golden.json"
sys.path.insert(0, str(ROOT / "tools"))

MATCHES = [
    ["--config", "core-2p", "--bots", "heuristic,random", "--games", "4", "--seed", "3"],
    ["--config", "core-2p", "--bots", "random,random", "--games", "3", "--seed", "11", "--fixed-seats"],
    ["--config", "core-4p", "--bots", "heuristic,random,random,random", "--games", "4", "--seed", "5"],
]
TOURNAMENTS = [
    ["--bots", "random,heuristic", "--config", "core-2p", "--config", "core-4p", "--games", "4", "--seed", "1"],
    ["--bots", "random,heuristic,expert", "--config", "core-2p", "--games", "6", "--seed", "7"],
]
SPRTS = [
    ["--a", "heuristic", "--b", "random", "--config", "core-2p", "--elo1", "200", "--max-games", "12", "--seed", "2"],
    ["--a", "random", "--b", "heuristic", "--model", "trinomial", "--elo1", "100", "--max-games", "8", "--seed", "4"],
]
MATCH_FILES = [
    ("core-2p", ["heuristic", "random"], 9, 3),
    ("core-4p", ["random", "heuristic", "random", "random"], 2, 4),
]
TIMING = (
    "decision_ms_median",
    "decision_ms_p99",
    "decision_cpu_ms_median",
    "decision_cpu_ms_p99",
    "decision_cpu_ms_max",
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _cli(argv: list[str], capsys: Any) -> str:
    try:
        rc = main(argv)
    except SystemExit as exc:  # ``fail``
        raise AssertionError(f"{argv}: {exc.code}") from None
    out = capsys.readouterr().out
    assert rc == 0, out
    return out


def _log_lines(path: Path) -> list[str]:
    """The log's lines, each canonical JSON (key order kept as written: it is part of the format)."""
    return [_digest(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _outputs(tmp: Path, capsys: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"match": [], "tournament": [], "sprt": [], "match_games": []}
    for k, argv in enumerate(MATCHES):
        replays = tmp / f"m{k}.jsonl"
        table = json.loads(_cli(["match", *argv, "--json", "--save-replay", str(replays)], capsys))
        for row in table["entrants"]:
            for key in TIMING:
                row.pop(key)
        out["match"].append({"argv": argv, "json": table, "replays": _log_lines(replays)})
    for k, argv in enumerate(TOURNAMENTS):
        log = tmp / f"t{k}.jsonl"
        text = _cli(["tournament", *argv, "--log", str(log), "--workers", "1"], capsys).replace(str(log), "LOG")
        first, rest = text.split("\n", 1)  # the first line has the run's wall-clock time
        out["tournament"].append({"argv": argv, "first": first.split(";")[0], "ratings": rest, "log": _log_lines(log)})
    for k, argv in enumerate(SPRTS):
        log = tmp / f"s{k}.jsonl"
        text = _cli(["sprt", *argv, "--log", str(log), "--workers", "1"], capsys).replace(str(log), "LOG")
        out["sprt"].append({"argv": argv, "stdout": text, "log": _log_lines(log)})
    import match_games

    for k, (config, bots, seed, games) in enumerate(MATCH_FILES):
        path = tmp / f"mf{k}.jsonl"
        match_games.play(config, bots, seed, games, path)
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            assert len(row.pop("wall")) == len(row.pop("cpu")) > 0
        out["match_games"].append({"args": [config, bots, seed, games], "rows": rows})
    return out


def test_the_front_ends_reproduce_the_recorded_results(tmp_path: Path, capsys: Any) -> None:
    got = _outputs(tmp_path, capsys)
    if os.environ.get("BC_RECORD_RUNNER_GOLDEN") == "1":
        FIXTURE.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
        pytest.skip("recorded")
    want = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for kind in ("match", "tournament", "sprt", "match_games"):
        assert len(got[kind]) == len(want[kind])
        for g, w in zip(got[kind], want[kind]):
            assert g == w, f"{kind} {w.get('argv', w.get('args'))} differs from the recorded run"


def test_a_match_in_two_worker_processes_gives_the_recorded_results(tmp_path: Path, capsys: Any) -> None:
    want = json.loads(FIXTURE.read_text(encoding="utf-8"))["match"][0]
    replays = tmp_path / "m.jsonl"
    argv = ["match", *want["argv"], "--json", "--save-replay", str(replays), "--workers", "2"]
    table = json.loads(_cli(argv, capsys))
    for row in table["entrants"]:
        for key in TIMING:
            row.pop(key)
    assert table == want["json"] and _log_lines(replays) == want["replays"]
