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


def _before_last_turns(turns: int, seed: int = 41) -> Game:
    """A core-2p expert game played until seat 0 decides with ``turns`` Political Actions left (its current turn
    included) and at least two legal actions."""
    g = Game.new("core-2p", seed)
    experts = [policies.load("expert", seed=q) for q in range(2)]
    while not (g.current_player == 0 and g.turns_left(0) == turns and len(g.legal_actions()) >= 2):
        assert not g.is_terminal()
        g.apply(experts[g.current_player].act(g))
    return g


def test_champion_is_deterministic_for_a_seed_and_legal():
    g = _before_last_turns(1)  # its last turn: the search runs
    a, b = ChampionPolicy(seed=3), ChampionPolicy(seed=3)
    first = a.act(g)
    assert first == b.act(g) and first in g.legal_actions()
    search = a.bot_for(g)
    assert search.last_depth >= 1 and search.last_choice in g.legal_actions()  # searched, over the base's choice


def test_champion_plays_the_same_endgame_twice_for_a_seed():
    """From two turns before its end to the end of the game, against the same expert: the same actions."""
    start = _before_last_turns(2, seed=7)
    games = []
    for _ in range(2):
        g = start.clone()
        bots = [ChampionPolicy(seed=11), policies.load("expert", seed=5)]
        actions = []
        while not g.is_terminal():
            actions.append(bots[g.current_player].act(g))
            g.apply(actions[-1])
        games.append((actions, g.returns()))
    assert games[0] == games[1] and len(games[0][0]) > 4


def test_champion_searches_only_its_last_turn():
    """Before its last turn the champion answers with its base bot alone (a search there does not reach the end of
    the game with its budget, so it could not change the choice: docs/policies.md)."""
    g = _before_last_turns(2)
    c = ChampionPolicy(seed=3)
    assert c.act(g) == policies.load("ppo-core-2p").act(g)
    assert c.bot_for(g).last_depth == 0 and c.bot_for(g).last_nodes == 0  # no search
    assert c.bot_for(g).window(g) == 1


def test_champion_searches_only_with_two_players_and_no_expansion():
    from policies.endgame import EndgamePolicy
    from policies.expert import ExpertPolicy
    from policies.neural import NeuralPolicy

    c = ChampionPolicy(seed=1)
    assert isinstance(c.bot_for(Game.new("core-2p", 0)), EndgamePolicy)
    assert isinstance(c.bot_for(Game.new("core-4p", 0)), NeuralPolicy)
    assert isinstance(c.bot_for(Game.new("all-4p", 0)), ExpertPolicy)


def test_exactness_tool_reports_the_champions_search_in_its_last_turn_only(capsys):
    """tools/endgame_exactness.py (the docs' table of where the search time goes) on one paired deal."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import endgame_exactness

    assert endgame_exactness.main(["--bot", "champion", "--deals", "1", "--seed", "27000"]) == 0
    rows = {
        line.split("|")[1].strip(): [float(x) for x in line.split("|")[2:8]]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and not line.startswith("| turns")
    }
    assert set(rows) == {"1", ">= 2", "all"}
    assert rows["1"][1] > 0 and rows[">= 2"][1] == 0  # searched: only with one turn left
    assert rows["all"][0] == rows["1"][0] + rows[">= 2"][0]
