"""Fast behavioural tests of policies.expert.ExpertPolicy (the heuristic plus Hotspot bank and longer gate hold)."""

from __future__ import annotations

import hashlib
import json

from crossproc import in_fresh_process

from bc_env.rules import Game, RulesConfig
from policies.base import RandomPolicy
from policies.expert import ExpertPolicy, my_hotspots
from policies.heuristic import HeuristicPolicy, holds_gate


def _play(config: str, seed: int, make) -> Game:
    game = Game.new(RulesConfig.resolve(config), seed)
    pols = [make(q) for q in range(game.num_players)]
    while not game.is_terminal():
        a = pols[game.current_player].act(game)
        assert a in game.legal_actions()
        game.apply(a)
    return game


def test_legal_actions_over_random_games() -> None:
    for seed in range(3):
        seat = seed % 2
        g = _play("core-2p", seed, lambda q, s=seat: ExpertPolicy(seed=q) if q == s else RandomPolicy(seed=q))
        assert g.is_terminal()
    g = _play("core-4p", 7, lambda q: ExpertPolicy(seed=q) if q == 0 else HeuristicPolicy(seed=q))
    assert g.is_terminal()


def expert_game_digest() -> str:
    """Every action and event of one seeded expert-vs-heuristic game."""
    g = _play("core-2p", 11, lambda q: ExpertPolicy(seed=5) if q == 1 else HeuristicPolicy(seed=3))
    return hashlib.sha256(json.dumps(g.to_dict(), sort_keys=True).encode()).hexdigest()


def test_deterministic_given_seed() -> None:
    """The same game in a fresh process with another hash seed (no hash() or set order in the bots' choices)."""
    assert in_fresh_process(expert_game_digest) == expert_game_digest()


def _first_position(config: str, expert_seat: int, seeds: range, hit) -> tuple[Game, ExpertPolicy] | None:
    """Play expert (``expert_seat``) vs heuristics until ``hit(game, expert)`` is true on the expert's decision;
    returns that position and the expert (its state, e.g. a remembered opener Move, as in play)."""
    for seed in seeds:
        game = Game.new(RulesConfig.resolve(config), seed)
        expert = ExpertPolicy(seed=seed)
        pols = [expert if q == expert_seat else HeuristicPolicy(seed=q) for q in range(game.num_players)]
        while not game.is_terminal():
            me = game.current_player
            if me == expert_seat and hit(game, expert):
                return game, expert
            game.apply(pols[me].act(game))
    return None


def test_holds_gate_one_turn_longer_than_heuristic_with_more_players() -> None:
    """With 3+ players (``margin_multi=-1``) the expert keeps its last Starting Influence back one turn after
    the heuristic would release it: no Place that opens the gate this turn."""

    def hit(g: Game, e: ExpertPolicy) -> bool:
        me = g.current_player
        return (
            g.phase_name == "political"
            and not g.formalize_gate_open()
            and g.starting[me] - g.deployed[me] == 1
            and not holds_gate(g, me)
            and e.holds(g, me, use_open=False)
        )

    found = _first_position("core-4p", 0, range(50_000, 50_010), hit)
    assert found is not None, "no position where the expert holds longer than the heuristic"
    game, expert = found
    me = game.current_player
    deployed = game.deployed[me]
    while game.current_player == me and game.phase_name != "place_tile":
        game.apply(expert.act(game))
    assert game.deployed[me] == deployed  # the held Influence stayed in the supply


def test_opener_tile_closes_own_hotspot_opens_gate_and_formalizes() -> None:
    """When the hold is over and an own-majority Hotspot has one empty neighbour, the expert's tile closes
    it: the free placement puts the held Influence on the Board (the gate opens), and the same turn's
    Political Action is a FormalizeInfluence (one turn gained)."""
    found = _first_position(
        "core-2p", 1, range(50_000, 50_020), lambda g, e: e._opener_tile(g, g.current_player) is not None
    )
    assert found is not None, "no opener position found"
    game, expert = found
    me = game.current_player
    assert not game.formalize_gate_open() and game.starting[me] - game.deployed[me] == 1
    n_events = len(game.events)
    game.apply(expert.act(game))
    resolved = [e for e in game.events[n_events:] if e["type"] == "hotspot-resolved"]
    assert resolved and resolved[0]["player"] == me
    assert game.formalize_gate_open() and game.deployed[me] == game.starting[me]
    if game.on_board[me] + game.supply[me] < game.cap:
        created = game.created[me]
        while game.current_player == me and game.phase_name != "place_tile" and not game.is_terminal():
            game.apply(expert.act(game))
        assert game.created[me] == created + 1


def test_makes_opener_with_a_move_on_the_release_turn() -> None:
    """On the turn the held Influence would be placed, without an opener, the expert instead Moves an own
    Influence onto a Hotspot with one empty neighbour to win its majority; the held Influence stays."""
    from bc_env.rules.actions import MOVE_FROM, MOVE_TO

    found = _first_position(
        "core-2p", 1, range(50_000, 50_020),
        lambda g, e: g.phase_name == "political" and e._release_turn(g, g.current_player)
        and bool(e._opener_targets(g, g.current_player)),
    )  # fmt: skip
    assert found is not None, "no release turn with an opener target found"
    game, expert = found
    me = game.current_player
    n = game.layout.n
    a = expert.act(game)
    assert MOVE_FROM * n <= a < MOVE_TO * n
    game.apply(a)
    b = expert.act(game)
    dst = b - MOVE_TO * n
    game.apply(b)
    assert game.supply[me] == 1 and not game.formalize_gate_open()
    assert dst in [c for c, m, e in my_hotspots(game, me) if e == 1]


def test_plans_gate_against_a_player_that_does_not_hold() -> None:
    """A random opponent places its Starting Influence at once; the expert alone decides when the gate opens
    and keeps it closed as long as its own plan allows: here it opens it with an own Hotspot on the turn
    with one turn fewer than a Place-then-Formalize plan needs, and still reaches the cap."""
    from policies.heuristic import turns_needed_after_gate

    game = Game.new(RulesConfig.resolve("core-2p"), 60_001)
    expert = ExpertPolicy(seed=1)
    pols = [RandomPolicy(seed=10), expert]
    opened = None
    while not game.is_terminal():
        p = game.current_player
        before = (game.turns_left(1), turns_needed_after_gate(game, 1))
        closed = not game.formalize_gate_open()
        if closed and p == 1 and game.phase_name == "political" and game.deployed[0] == game.starting[0]:
            assert expert.holds(game, 1) or game.turns_left(1) <= turns_needed_after_gate(game, 1)
        game.apply(pols[p].act(game))
        if closed and game.formalize_gate_open():
            opened = (p, *before)
    assert opened == (1, 6, 7)
    assert game.on_board[1] == game.cap


def test_window_lifts_hotspot_risk_penalty_before_release() -> None:
    """In the last ``bank_window`` turns of the hold the heuristic's penalty for own Hotspot majorities is
    lifted (an opener can be prepared); earlier it stays."""

    def holding(g: Game, e: ExpertPolicy) -> bool:
        me = g.current_player
        return g.phase_name == "political" and e.holds(g, me) and not g.formalize_gate_open()

    found = _first_position("core-2p", 1, range(50_000, 50_005), holding)
    assert found is not None
    game, expert = found
    me = game.current_player
    expert.action_values(game)
    assert expert.weights is (expert._weights_open if expert._in_window(game, me) else expert._weights_base)
    found = _first_position(
        "core-2p", 1, range(50_000, 50_005), lambda g, e: holding(g, e) and e._in_window(g, g.current_player)
    )
    assert found is not None
    game, expert = found
    expert.action_values(game)
    assert expert.weights is expert._weights_open


def test_closes_own_hotspot_after_the_gate_in_two_players() -> None:
    """After the gate, with Influence in its supply and below the cap, the expert's tile closes an own-majority
    Hotspot with one empty neighbour (CORE-01-06-01..06: a free placement); the heuristic-only expert
    (``close_after_gate=False``) does not always do so in the same positions."""

    def hit(g: Game, e: ExpertPolicy) -> bool:
        me = g.current_player
        return (
            g.phase_name == "place_tile"
            and g.formalize_gate_open()
            and g.supply[me] >= 1
            and g.on_board[me] < g.cap
            and any(empty == 1 for _, _, empty in my_hotspots(g, me, 1))
        )

    found = 0
    differs = 0
    for seat in (0, 1):
        for start in range(0, 400, 40):
            pos = _first_position("core-2p", seat, range(50000 + start, 50000 + start + 40), hit)
            if pos is None:
                continue
            game, expert = pos
            me = game.current_player
            cells = [c for c, _, empty in my_hotspots(game, me, 1) if empty == 1]
            a = expert.act(game)
            assert any(a in game.topo.neighbors[c] for c in cells)
            child = game.clone()
            child.apply(a)
            assert child.on_board[me] == game.on_board[me] + 1  # the free placement happened
            assert child.supply[me] == game.supply[me] - 1
            plain = ExpertPolicy(seed=0, close_after_gate=False)
            plain.rng = expert.rng
            differs += not any(plain.act(game) in game.topo.neighbors[c] for c in cells)
            found += 1
    assert found >= 4
    assert differs >= 1
