"""Coverage over random games: every EXP-01 Measure is played and resolves with an effect.

A biased random player (it prefers TakeMeasure / PlayMeasure / targets when legal) plays seeded games
until every Measure has been played (``play-measure``) and resolved (``measure-effect``, EXP-01-06-10)
and, where the lasting effect can show, applied:

* ``measure-applied`` events (logged by the engine when an effect changes an outcome): M01 (a Hotspot
  kept from resolving), M02 / M04 / M05 (a production amount), M06 (a surcharge paid), M08 (a
  substitution used), M10 in the standalone edition (a ConvertResources resolved fully: its Investment
  Program exchange made despite Collective Bargaining, for 1 additional Resource; docs/rulings.md BC-30);
* prohibitions leave no event (legality has no side effects), so for M03, M07 and M09 the test checks
  at each decision whether removing the effect would change the legal actions.

Standalone M10 changes the state only in one conjunction: its owner converts in the window (the owner's next
turn) while controlling the Investment Program, holding 2 ECO after the conversion and one more Resource, and
while another player's Collective Bargaining is in force. The biased player never gets there (0 of 3000 games
of ``exp01-4p``), so where it has not, a second, coverage-seeking random player
(``exp01_support.supplemental_budget_seeker``: legal actions only, steered towards that conjunction) plays
further seeded games of the same preset until Supplemental Budget has changed the state once; the change is
verified from the Resources (the exchange despite Collective Bargaining, the additional Resource paid).
In edition v1.3, M10 never changes the state of an EXP-01-only game (BC-30); it must still be played and
resolve. Each loop stops as soon as everything is covered; each may use at most ``MAX_GAMES`` games.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from exp01_support import supplemental_budget_seeker

from bc_env.rules import Game, RulesConfig

MAX_GAMES = 3000
CARDS = [f"EXP-01-M{i:02d}" for i in range(1, 11)]
APPLIED_BY_EVENT = {"EXP-01-M01", "EXP-01-M02", "EXP-01-M04", "EXP-01-M05", "EXP-01-M06", "EXP-01-M08"}
PROHIBITIONS = {"EXP-01-M03", "EXP-01-M07", "EXP-01-M09"}
BUDGET = "EXP-01-M10"


def prohibition_bites(g: Game, index: int) -> bool:
    """Would the legal actions differ without ``g.active_effects[index]``?"""
    twin = g.clone()
    del twin.active_effects[index]
    twin._legal = None
    return twin.legal_actions() != g.legal_actions()


def budget_changed_state(g: Game, before: list[int], bargaining: bool, new: list[dict]) -> bool:
    """Whether the action that logged ``new`` was a ConvertResources that Supplemental Budget resolved fully:
    under Collective Bargaining (``bargaining``, BC-24) the Investment Program exchange happened, and the
    player's Resources (``before``) changed by the payment, the additional Resource, the gain and the exchange
    (EXP-01-06-M10-04/05, BC-30), plus what a Round Settlement the action ended gave them."""
    if not any(e["type"] == "measure-applied" and e["id"] == BUDGET for e in new):
        return False
    assert bargaining, "Supplemental Budget applied without Collective Bargaining in force"
    kinds = [e["type"] for e in new]
    assert "investment-exchange" in kinds and "convert" in kinds, kinds
    p = next(e["player"] for e in new if e["type"] == "convert")
    delta: Counter[int] = Counter()
    for e in new:
        if e["type"] == "pay":
            delta.subtract(e["resorts"])
        elif e["type"] == "convert":
            delta[e["gain"]] += e["amount"]
        elif e["type"] == "investment-exchange":
            delta[g.ext["EXP-01"].eco] -= 2
            delta[e["gain"]] += 1
        elif e["type"] == "produce" and p in e["players"]:  # the action ended the round (CORE-01-06-11..15)
            delta[e["resort"]] += e["share"]
    rules = [e["rule"] for e in new if e["type"] == "pay"]
    assert rules == ["CORE-01-04-22", "EXP-01-06-M10-04"], rules  # the cost, then the additional Resource
    after = g.resources_of(p)
    assert [after[r] - before[r] for r in range(g.num_resorts)] == [delta[r] for r in range(g.num_resorts)]
    return True


def seek_supplemental_budget(config: RulesConfig) -> tuple[int, int]:
    """Play seeded games with the coverage-seeking player until Supplemental Budget changed the state:
    (games played, seed of that game), or (MAX_GAMES, -1)."""
    for seed in range(MAX_GAMES):
        rng = random.Random(seed)
        g = Game.new(config, seed)
        while not g.is_terminal():
            seen = len(g.events)
            before = g.resources_of(g.active)
            bargaining = any(a.id == "EXP-01-M03" for a in g.active_effects)
            g.apply(supplemental_budget_seeker(g, g.legal_actions(), rng))
            if budget_changed_state(g, before, bargaining, g.events[seen:]):
                return seed + 1, seed
    return MAX_GAMES, -1


@pytest.mark.parametrize("preset", ["exp01-4p", "exp01-v1.3-4p"])
def test_every_measure_is_played_resolved_and_applied(preset):
    config = RulesConfig.preset(preset)
    standalone = config.exp01_edition != "v1.3"
    played: set[str] = set()
    resolved: set[str] = set()
    applied: set[str] = set()
    wanted_applied = APPLIED_BY_EVENT | PROHIBITIONS | ({BUDGET} if standalone else set())
    games = budget_events = 0
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
            seen = len(g.events)
            before = g.resources_of(g.active)
            bargaining = any(a.id == "EXP-01-M03" for a in g.active_effects)
            g.apply(rng.choice(pref) if pref and rng.random() < 0.8 else rng.choice(legal))
            if standalone and budget_changed_state(g, before, bargaining, g.events[seen:]):
                applied.add(BUDGET)
        for e in g.events:
            if e["type"] == "play-measure":
                played.add(e["card"])
            elif e["type"] == "measure-effect":
                resolved.add(e["card"])
            elif e["type"] == "measure-applied":
                if e["id"] == BUDGET:
                    budget_events += 1  # standalone: verified by budget_changed_state
                else:
                    applied.add(e["id"])
        if played >= set(CARDS) and resolved >= set(CARDS) and applied >= wanted_applied - {BUDGET}:
            break
    print(f"{preset}: covered after {games} games")
    if standalone and BUDGET not in applied:
        sought, seed = seek_supplemental_budget(config)
        print(f"{preset}: Supplemental Budget changed the state in game {sought} (seed {seed}) of the seeking player")
        if seed >= 0:
            applied.add(BUDGET)
    if not standalone:
        assert budget_events == 0  # v1.3: M10 never changes the state of an EXP-01-only game (BC-30)
    assert sorted(set(CARDS) - played) == [], f"not played after {games} games"
    assert sorted(set(CARDS) - resolved) == [], f"not resolved after {games} games"
    assert sorted(wanted_applied - applied) == [], f"never applied after {games} games"
