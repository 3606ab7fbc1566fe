"""The endgame search (policies/endgame.py): exact expectimax values on small endgames, pruning, determinism."""

from __future__ import annotations

import pytest

import policies
from bc_env.rules import Game
from policies.endgame import (
    EndgameConfig,
    EndgameOptionError,
    EndgamePolicy,
    EndgameSearch,
    pile_kinds,
    tile_kind,
)


def _near_end(config: str, seed: int, pile: int) -> Game:
    """An expert game played until a turn starts with ``pile`` tiles left in the DrawPile."""
    g = Game.new(config, seed)
    bots = [policies.load("expert", seed=seed + q) for q in range(g.num_players)]
    while not (g.phase_name == "place_tile" and len(g.draw_pile) <= pile):
        g.apply(bots[g.current_player].act(g))
    assert not g.is_terminal()
    return g


def _first(k: int):
    return lambda g: g.legal_actions()[:k]


def _brute(g: Game, k: int) -> list[float]:
    """Expectimax by enumeration: every player maximises its own return over its first ``k`` legal actions; when an
    action draws, each tile of the pile (by identity, not by kind) is equally likely to be the one drawn (moved to
    the top by the same swap the search uses). No pruning, no leaf: every line is played to the end."""
    if g.is_terminal():
        return g.returns()
    p = g.current_player
    best: list[float] | None = None
    for a in g.legal_actions()[:k]:
        probe = g.clone()
        before = len(probe.draw_pile)
        probe.apply(a)
        if len(probe.draw_pile) == before or before == 0:
            v = _brute(probe, k)
        else:
            v = [0.0] * g.num_players
            for i in range(before):
                c = g.clone()
                c.draw_pile[i], c.draw_pile[-1] = c.draw_pile[-1], c.draw_pile[i]
                c.apply(a)
                w = _brute(c, k)
                v = [x + y / before for x, y in zip(v, w)]
        if best is None or v[p] > best[p] + 1e-12:
            best = v
    assert best is not None
    return best


def test_pile_kinds_groups_tiles_by_rules_identity():
    g = _near_end("core-2p", 3, 8)
    kinds = pile_kinds(g)
    assert sum(c for _, c in kinds) == len(g.draw_pile)
    keys = [tile_kind(g, g.draw_pile[i]) for i, _ in kinds]
    assert len(set(keys)) == len(keys)  # one entry per kind
    for i, c in kinds:
        assert sum(1 for t in g.draw_pile if tile_kind(g, t) == tile_kind(g, g.draw_pile[i])) == c


@pytest.mark.parametrize(("config", "seed", "k"), [("core-2p", 5, 2), ("core-2p", 11, 2), ("core-4p", 7, 2)])
def test_search_is_exact_on_small_endgames(config, seed, k):
    """Two tiles left: three more turns, a chance node over the first of them; the search (kinds, alpha-beta and
    Star1 with two players, max-n with four) equals the enumeration over tile identities, at full depth."""
    g = _near_end(config, seed, 2)
    assert len(g.draw_pile) == 2 and len(pile_kinds(g)) == 2  # a real chance node: two kinds, one tile each
    expected = _brute(g, k)
    search = EndgameSearch(_first(k))
    got = search.value(g, 200)
    assert search.leaves == 0  # every line reached the end: nothing was estimated
    me = g.current_player
    assert got[me] == pytest.approx(expected[me], abs=1e-9)
    values = search.values(g, 200)
    assert max(values.values()) == pytest.approx(expected[me], abs=1e-9)


def test_last_turn_full_width_finds_the_exact_value():
    """The last turn of the game, every legal action searched: the value is the best final result for the mover,
    one of the game's returns (RULINGS R9), and it matches the enumeration."""
    g = _near_end("core-2p", 21, 0)
    g.apply(policies.load("expert", seed=1).act(g))  # the tile is placed: the last Political Action is left
    assert g.turns_left(g.current_player) == 1 and len(g.legal_actions()) > 2
    search = EndgameSearch(lambda x: x.legal_actions())
    got = search.value(g, 50)
    expected = _brute(g, 10_000)
    me = g.current_player
    assert got[me] == pytest.approx(expected[me])
    assert got[me] in (-1.0, 0.0, 1.0)


def test_the_pruned_search_equals_the_unpruned_values_at_a_depth_limit():
    """At a depth limit (static leaves), alpha-beta and Star1 keep the root value of the full expectimax."""
    g = _near_end("core-2p", 13, 4)
    pruned = EndgameSearch(_first(3))
    got = pruned.value(g, 5)
    ref = _maxn(EndgameSearch(_first(3)), g, 5)  # the same tree, no windows
    me = g.current_player
    assert pruned.leaves > 0  # the depth limit was reached: leaves were estimated
    assert got[me] == pytest.approx(ref[me], abs=1e-9)


def _maxn(search: EndgameSearch, g: Game, depth: int) -> list[float]:
    if g.is_terminal():
        return g.returns()
    if depth <= 0:
        return search.leaf(g)
    p = g.current_player
    best = None
    for a in search.candidates(g):
        probe = g.clone()
        before = len(probe.draw_pile)
        probe.apply(a)
        if len(probe.draw_pile) == before or before <= 1 or len(pile_kinds(g)) == 1:
            v = _maxn(search, probe, depth - 1)
        else:
            v = [0.0, 0.0]
            for index, count in pile_kinds(g):
                c = g.clone()
                c.draw_pile[index], c.draw_pile[-1] = c.draw_pile[-1], c.draw_pile[index]
                c.apply(a)
                w = _maxn(search, c, depth - 1)
                v = [x + count / before * y for x, y in zip(v, w)]
        if best is None or v[p] > best[p]:
            best = v
    return best


def _play_tail(bot, g: Game, seed: int) -> list[int]:
    other = policies.load("expert", seed=seed)
    actions = []
    while not g.is_terminal():
        a = bot.act(g) if g.current_player == 0 else other.act(g)
        actions.append(a)
        g.apply(a)
    return actions


def test_endgame_bot_is_deterministic_for_a_seed():
    base = _near_end("core-2p", 17, 5)
    runs = [_play_tail(policies.load("endgame:nodes=60", seed=4), base.clone(), 9) for _ in range(2)]
    assert runs[0] == runs[1]
    bot = EndgamePolicy(seed=4, nodes=60)
    g = base.clone()
    while g.current_player != 0 or len(g.legal_actions()) < 2:
        g.apply(g.legal_actions()[0])
    bot.act(g)
    assert bot.last_depth >= 1 and bot.last_nodes > 0  # inside the window: searched


def test_endgame_options_are_checked():
    assert EndgameConfig.parse("rounds=4:width=2").width == 2
    with pytest.raises(EndgameOptionError, match="width"):
        EndgameConfig.parse("width=-1")
    with pytest.raises(EndgameOptionError, match="unknown endgame option"):
        policies.load("endgame:depth=3")
    with pytest.raises(EndgameOptionError, match="leaf"):
        EndgamePolicy(leaf="magic")


def test_exact_option_keeps_the_base_choice_unless_the_search_reached_the_end():
    g = _near_end("core-2p", 17, 9)
    while g.current_player is None or len(g.legal_actions()) < 3:
        g.apply(g.legal_actions()[0])
    bot = policies.load("endgame:nodes=40:exact=1:rounds=20", seed=4)
    twin = policies.load("endgame:nodes=40:exact=1:rounds=20", seed=4)
    assert bot.act(g) == twin.base.act(g)  # the base's choice: 40 positions reach nowhere near the end
    assert bot.last_depth >= 1
