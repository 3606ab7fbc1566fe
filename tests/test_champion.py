"""policies.load("champion"): the base bot per rules, determinism, the bot protocol's list."""

from __future__ import annotations

import policies
from bc_env.rules import Game
from embedding.protocol import bot_names
from policies.champion import ChampionPolicy, base_for


def test_champion_is_listed_for_the_protocol_and_the_ladder():
    assert "champion" in policies.available()
    assert "champion" in bot_names()
    assert isinstance(policies.load("champion", seed=1), ChampionPolicy)


def test_champion_base_is_the_trained_bot_of_the_rules_else_the_expert():
    assert base_for(Game.new("core-2p", 0)) == "ppo-core-2p"
    assert base_for(Game.new("core-4p", 0)) == "ppo-core-4p"
    assert base_for(Game.new("all-4p", 0)) == "expert"  # no trained bot for the expansions


def test_champion_is_deterministic_for_a_seed_and_legal():
    g = Game.new("core-2p", 41)
    experts = [policies.load("expert", seed=q) for q in range(2)]
    while len(g.draw_pile) > 5:  # into the endgame window: the search runs
        g.apply(experts[g.current_player].act(g))
    while g.current_player != 0 or len(g.legal_actions()) < 2:
        g.apply(experts[g.current_player].act(g))
    a, b = ChampionPolicy(seed=3), ChampionPolicy(seed=3)
    first = a.act(g)
    assert first == b.act(g) and first in g.legal_actions()
    assert a.bot_for(g).last_depth >= 1  # searched


def test_champion_searches_only_with_two_players_and_no_expansion():
    from policies.endgame import EndgamePolicy
    from policies.expert import ExpertPolicy
    from policies.neural import NeuralPolicy

    c = ChampionPolicy(seed=1)
    assert isinstance(c.bot_for(Game.new("core-2p", 0)), EndgamePolicy)
    assert isinstance(c.bot_for(Game.new("core-4p", 0)), NeuralPolicy)
    assert isinstance(c.bot_for(Game.new("all-4p", 0)), ExpertPolicy)
