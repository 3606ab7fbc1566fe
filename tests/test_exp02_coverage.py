"""Every EXP-02 Measure is played and its effect resolves (an event citing its effect rule EXP-02-08-Mxx-03) in
steered play of exp02-4p and exp0102-4p: a seat takes and plays the card as soon as it can, every seat starts with
Resources to spend (SEC among them), everything else is random."""

from __future__ import annotations

import random

import pytest

from bc_env.rules import Game

CARDS = [f"EXP-02-M{n:02d}" for n in range(1, 16)]


def _seek(preset: str, key: str, games: int = 12) -> bool:
    rule = f"EXP-02-08-M{key[-2:]}-03"
    for seed in range(games):
        rng = random.Random(seed)
        g = Game.new(preset, seed)
        for p in range(g.num_players):
            for r, name in enumerate(g.config.resorts):
                n = 6 if name == "SEC" else 2
                g.res[p * g.num_resorts + r] += n
                g.bank[r] -= n
        g._legal = None
        play, take = g.string_to_action(f"play {key}"), g.string_to_action(f"take {key}")
        while not g.is_terminal():
            legal = g.legal_actions()
            if play in legal:
                a = play
            elif take in legal:
                a = take
            else:
                pref = [a for a in legal if a >= g.layout.take and a not in range(g.layout.take, g.layout.target)]
                a = rng.choice(pref if pref and rng.random() < 0.7 else legal)
            g.apply(a)
            if any(e["rule"] == rule and e["type"] != "play-measure" for e in g.events[-6:]):
                return True
    return False


@pytest.mark.parametrize("key", CARDS)
def test_every_exp02_measure_is_played_and_its_effect_resolves(key):
    assert _seek("exp02-4p", key), f"{key} never resolved in steered exp02-4p play"


def test_exp02_measures_resolve_next_to_exp01_ones():
    assert _seek("exp0102-4p", "EXP-02-M01") and _seek("exp0102-4p", "EXP-02-M14")
