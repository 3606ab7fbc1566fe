"""Invariants over random games on the EXP-01 presets (CORE-01-00-01/06, EXP-01-06-03, -11..17, RULINGS R20).

Every step: every tile and every Measure card in exactly one zone, the hand limit, play counters agreeing
with the zones, Resources and Influence conserved, mask and list agreeing, action strings round-tripping.
Sampled steps: to_dict / from_dict round trip (same legal actions) and clone independence. Per game:
determinism (same seed and actions, same final state).
"""

from __future__ import annotations

import json
import random

import pytest
from exp01_support import play_random

from bc_env.rules import Game, RulesConfig

PRESETS = ["exp01-2p", "exp01-4p", "exp01-6p", "exp01-v1.3-4p"]
GAMES = 40


def check_state(g: Game) -> None:
    n_cards = len(g.measures)
    zones: list[int] = []
    for d in range(len(g.decks)):
        zones += g.m_draw[d] + g.m_open[d] + g.m_recycle[d] + g.m_final[d]
        assert len(g.m_open[d]) <= 3  # EXP-01-03-03
        assert g.m_draw[d] or not g.m_recycle[d]  # EXP-01-06-16 (BC-21)
        for k in g.m_final[d]:
            assert g.m_count[k] == 2  # EXP-01-06-13
        for k in g.m_recycle[d]:
            assert g.m_count[k] == 1  # EXP-01-06-12
        for k in g.m_draw[d] + g.m_open[d]:
            assert g.m_count[k] <= 1  # EXP-01-06-14/15
    for hand in g.hands:
        assert len(hand) <= 2  # EXP-01-06-03
        assert all(g.m_count[k] <= 1 for k in hand)
        zones += hand
    assert sorted(zones) == list(range(n_cards))  # CORE-01-00-01/06 for Measure cards
    assert all(0 <= r <= g.round for r in g.m_round)
    # Tiles (CORE-01-00-01, -05, -06).
    tiles = g.draw_pile + g.discard + ([g.drawn] if g.drawn >= 0 else []) + [g.tile_at[c] for c in g.board]
    assert sorted(tiles) == list(range(len(g.catalogue)))
    # Resources: the unlimited Bank holds the net balance (CORE-01-00-04, RULINGS R17).
    nr = g.num_resorts
    for r in range(nr):
        assert sum(g.res[p * nr + r] for p in range(g.num_players)) + g.bank[r] + g.noise[r] == 0
    assert min(g.res) >= 0 and min(g.noise) >= 0
    # Influence (CORE-01-08-01, RULINGS R12).
    for p in range(g.num_players):
        on_board = sum(g.infl[c * g.num_players + p] for c in g.board)
        assert on_board == g.on_board[p]
        assert g.supply[p] + on_board == g.starting[p] + g.created[p] <= g.cap
    assert min(g.infl) >= 0 and min(g.supply) >= 0


@pytest.mark.parametrize("preset", PRESETS)
def test_exp01_invariants_over_random_games(preset):
    config = RulesConfig.preset(preset)
    for seed in range(GAMES):
        rng = random.Random(seed)
        g = Game.new(config, seed)
        actions = []
        while not g.is_terminal():
            check_state(g)
            legal = g.legal_actions()
            assert legal and legal == sorted(set(legal))
            mask = g.legal_action_mask()
            assert mask.sum() == len(legal) and all(mask[a] for a in legal)
            for a in legal:
                assert g.string_to_action(g.action_to_string(a)) == a
            if rng.random() < 0.03:
                d = g.to_dict()
                again = Game.from_dict(json.loads(json.dumps(d)))
                assert again.to_dict() == d and again.legal_actions() == legal
            if rng.random() < 0.03:
                before = g.to_dict()
                twin = g.clone()
                twin.apply(legal[-1])
                while not twin.is_terminal() and twin.current_player == g.current_player:
                    twin.apply(twin.legal_actions()[0])
                assert g.to_dict() == before  # the clone is independent
            # A bias towards Measures so that their paths are exercised.
            pref = [a for a in legal if a >= g.layout.take]
            a = rng.choice(pref) if pref and rng.random() < 0.6 else rng.choice(legal)
            g.apply(a)
            actions.append(a)
        check_state(g)
        assert g.winners() and abs(sum(g.returns())) < 1e-9
        replayed = Game.new(config, seed)
        for a in actions:
            replayed.apply(a)
        assert replayed.to_dict() == g.to_dict()  # determinism


def test_exp01_random_play_with_the_support_player_terminates():
    g = Game.new("exp01-6p", seed=99)
    actions = play_random(g, random.Random(99), measure_bias=0.9)
    assert g.is_terminal() and len(actions) > 100
