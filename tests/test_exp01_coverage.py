"""Coverage over random games: every EXP-01 Measure is played and resolves with an effect.

A biased random player (it prefers TakeMeasure / PlayMeasure / targets when legal) plays seeded games
until every Measure has been played (``play-measure``) and resolved (``measure-effect``, EXP-01-06-10)
and, where the lasting effect can show, applied:

* ``measure-applied`` events (logged by the engine when an effect changes an outcome): M01 (a Hotspot
  kept from resolving), M02 / M04 / M05 (a production amount), M06 (a surcharge paid), M08 (a
  substitution used);
* prohibitions leave no event (legality has no side effects), so for M03, M07 and M09 the test checks
  at each decision whether removing the effect would change the legal actions.

M10 never applies in an EXP-01-only game (docs/rulings.md BC-30); it must still be played and resolve.
The loop stops as soon as everything is covered; it may use at most ``MAX_GAMES`` games per edition.
"""

from __future__ import annotations

import random

import pytest

from bc_env.rules import Game, RulesConfig

MAX_GAMES = 3000
CARDS = [f"EXP-01-M{i:02d}" for i in range(1, 11)]
APPLIED_BY_EVENT = {"EXP-01-M01", "EXP-01-M02", "EXP-01-M04", "EXP-01-M05", "EXP-01-M06", "EXP-01-M08"}
PROHIBITIONS = {"EXP-01-M03", "EXP-01-M07", "EXP-01-M09"}


def prohibition_bites(g: Game, index: int) -> bool:
    """Would the legal actions differ without ``g.active_effects[index]``?"""
    twin = g.clone()
    del twin.active_effects[index]
    twin._legal = None
    return twin.legal_actions() != g.legal_actions()


@pytest.mark.parametrize("preset", ["exp01-4p", "exp01-v1.3-4p"])
def test_every_measure_is_played_resolved_and_applied(preset):
    config = RulesConfig.preset(preset)
    played: set[str] = set()
    resolved: set[str] = set()
    applied: set[str] = set()
    wanted_applied = APPLIED_BY_EVENT | PROHIBITIONS
    games = 0
    for seed in range(MAX_GAMES):
        games += 1
        rng = random.Random(seed)
        g = Game.new(config, seed)
        take = g.layout.take
        while not g.is_terminal():
            for i, a in enumerate(g.active_effects):
                if a.id in PROHIBITIONS and a.id not in applied and prohibition_bites(g, i):
                    applied.add(a.id)
            legal = g.legal_actions()
            pref = [a for a in legal if a >= take]
            g.apply(rng.choice(pref) if pref and rng.random() < 0.8 else rng.choice(legal))
        for e in g.events:
            if e["type"] == "play-measure":
                played.add(e["card"])
            elif e["type"] == "measure-effect":
                resolved.add(e["card"])
            elif e["type"] == "measure-applied":
                applied.add(e["id"])
        if played >= set(CARDS) and resolved >= set(CARDS) and applied >= wanted_applied:
            break
    print(f"{preset}: covered after {games} games")
    assert sorted(set(CARDS) - played) == [], f"not played after {games} games"
    assert sorted(set(CARDS) - resolved) == [], f"not resolved after {games} games"
    assert sorted(wanted_applied - applied) == [], f"never applied after {games} games"
