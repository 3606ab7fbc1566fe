"""A seeded fuzz of replay files finds no error of a foreign type (issue 13): 300 cases of tools/fuzz_replays.py
(the script runs 10,000; docs/replays.md records them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_seeded_fuzz_of_replay_files_finds_no_foreign_error():
    spec = importlib.util.spec_from_file_location("fuzz_replays", ROOT / "tools" / "fuzz_replays.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.fuzz(300, seed=13)
    assert figures["foreign"] == []
    outcomes = figures["outcomes"]
    assert sum(outcomes.values()) == 300
    for error in ("StateError", "IllegalActionError", "ConfigError"):
        assert outcomes.get(error, 0) > 10, outcomes
    assert outcomes.get("loaded, same game", 0) > 0  # e.g. a change of nothing the game depends on
