"""EXP-02 invariants over random games of every EXP-02 preset (tests/invariants.py models the core game and EXP-01
only): Resources, Influence and Regulations conserved (EXP-02-02-A-03: a Regulation is in the supply or on exactly
one tile; placed - returned = attached), caps, every attachment legal (RULINGS R41), JSON round trips and clones
equal the game, every legal action applies and replays are deterministic. Steered play prefers Regulation and
Measure actions and gives every seat SEC, so Regulations are placed, moved and removed.

The games and checks are tools/invariant_games.py's ``play(..., steer=True)``: ``GAMES`` per preset here, as many as
wanted with ``python tools/invariant_games.py --preset PRESET --games N --steer`` (the recorded runs: 30-100 games
per preset, docs/benchmarks.md)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from invariant_games import play  # noqa: E402

GAMES = 8
PRESETS = ("exp02-2p", "exp02-4p", "exp02-6p", "exp0102-4p", "exp0203-4p", "all-4p", "all-6p")


@pytest.mark.parametrize("preset", PRESETS)
def test_exp02_invariants_hold_over_random_games(preset):
    """``GAMES`` steered games (seeds 0..7); tools/invariant_games.py --steer plays the same games at full size."""
    events: Counter[str] = Counter()
    for seed in range(GAMES):
        _decisions, problem, counted = play(preset, seed, every=25, steer=True)
        assert problem is None, problem
        events += counted
    # The steering reaches what the checks are about: Regulations placed, moved or removed, Measures played.
    assert events["regulation-placed"] > 0 and events["regulation-moved"] + events["regulation-removed"] > 0, events
    assert events["play-measure"] > 0, events
