"""Random EXP-03 games under invariant checks (the issue's invariant harness with CLM and Countdown conservation):
Resources of every resort (CLM included) conserved, each expansion state's own check (Measure zones, the
CountdownMarkers: all in the supply all game, RULINGS R37, R58), the Influence cap, JSON and clone round trips,
illegal actions refused; and every EXP-03 Measure is played somewhere in the run."""

from __future__ import annotations

import random

import pytest
from exp03_support import incomplete_ok  # noqa: F401
from positions import not_legal_message

from bc_env.rules import Game, IllegalActionError, RulesConfig

pytestmark = pytest.mark.usefixtures("incomplete_ok")

CONFIGS = [  # the presets exp03-2p, exp03-4p, exp03-6p, exp0103-4p and more
    RulesConfig(players=2, exp03=True),
    RulesConfig(players=4, exp03=True),
    RulesConfig(players=4, exp01=True, exp03=True),
    RulesConfig(players=4, exp01=True, exp01_edition="v1.3", exp03=True),
    RulesConfig(players=6, exp01=True, exp03=True),
    RulesConfig.preset("exp0203-4p"),
    RulesConfig.preset("all-4p"),
    RulesConfig.preset("all-6p"),
]


def _check(g: Game) -> None:
    nr = g.num_resorts
    assert min(g.res) >= 0 and min(g.noise) >= 0
    for r in range(nr):  # CORE-01-00-04, EXP-03-01-01: supplies + Bank (net) + Noise = 0 with an unlimited Bank
        assert sum(g.res[r::nr]) + g.bank[r] + g.noise[r] == 0, g.config.resorts[r]
    for name, state in g.ext.items():
        assert state.check(g) == [], name
    cd = g.ext["EXP-03"]
    assert cd.supply == g.config.countdown_supply and cd.attached == {}  # R37: never placed
    np_ = g.num_players
    for p in range(np_):
        assert g.on_board[p] == sum(g.infl[p::np_]) and g.supply[p] + g.on_board[p] <= g.cap  # R12


def _play(config: RulesConfig, seed: int, played: set[str]) -> int:
    rng = random.Random(seed)
    g = Game.new(config, seed)
    take = g.layout.take
    steps = 0
    while not g.is_terminal():
        legal = g.legal_actions()
        assert legal
        pref = [a for a in legal if a >= take]
        a = rng.choice(pref if pref and rng.random() < 0.6 else legal)
        if steps % 41 == 0:
            bad = rng.randrange(g.num_actions)
            if bad not in legal:
                before = g.to_dict()
                with pytest.raises(IllegalActionError, match=not_legal_message(g, bad, g.phase_name)):
                    g.apply(bad)
                assert g.to_dict() == before
        g.apply(a)
        steps += 1
        if steps % 23 == 0:
            _check(g)
            assert Game.from_dict(g.to_dict()).to_dict() == g.to_dict()
            twin = g.clone()
            assert twin.to_dict() == g.to_dict()
            if not twin.is_terminal():
                twin.apply(twin.legal_actions()[0])
                assert g.to_dict() != twin.to_dict() or twin.is_terminal()
    _check(g)
    played.update(e["card"] for e in g.events if e["type"] == "play-measure")
    return steps


def test_random_exp03_games_keep_every_invariant_and_play_every_measure():
    played: set[str] = set()
    for seed in range(40):
        _play(CONFIGS[seed % len(CONFIGS)], seed, played)
    assert {f"EXP-03-M{i:02d}" for i in range(1, 16)} <= played
