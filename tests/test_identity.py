"""Behaviour is identical across engine refactorings (the engine-redesign issue's proof).

``tests/fixtures/identity.json`` was recorded with the engine before the redesign (``tools/make_identity.py``): the
encodings of one seeded random game per preset (core and EXP-01) and the actions the shipped and built-in bots
choose in seeded games. The goldens and perft fixtures cover the rules; this covers encoder and bots.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import make_identity as mi  # noqa: E402

FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "identity.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("preset", mi.PRESETS)
def test_encoding_of_a_seeded_game_is_unchanged(preset):
    assert mi.encoding_digest(preset, 1) == FIXTURE["encodings"][preset]


@pytest.mark.parametrize("record", FIXTURE["bots"], ids=lambda r: f"{r['preset']}-{'-'.join(r['bots'])}-{r['seed']}")
def test_bots_choose_the_same_actions(record):
    again = mi.match_record(record["preset"], tuple(record["bots"]), record["seed"])
    assert again == record
