"""EXP-01 checks that are not the invariant harness's.

The random-game invariants of the EXP-01 presets (every Measure card in exactly one zone, hand limit, play
counters, OpenMeasures, Resources and Influence conserved, mask and list agreeing, action strings, JSON
round trips, clone independence, determinism) live in the one harness for every preset:
``invariants.py`` / ``test_invariants.py``. What stays here tests the scenario helpers of
``exp01_support.py``.
"""

from __future__ import annotations

import random

from exp01_support import play_random

from bc_env.rules import Game


def test_exp01_random_play_with_the_support_player_terminates():
    g = Game.new("exp01-6p", seed=99)
    actions = play_random(g, random.Random(99), measure_bias=0.9)
    assert g.is_terminal() and len(actions) > 100
    # The bias reached the Measure actions: cards were taken and played (EXP-01-06-02, -07).
    types = {e["type"] for e in g.events}
    assert {"take-measure", "play-measure"} <= types
