"""The bots (random, heuristic) and the arena: legality, purity, determinism, strength, scoring."""

from __future__ import annotations

import random

import pytest
from crossproc import in_fresh_process
from positions import Position

import policies
from bc_env.rules import Game, RulesConfig
from bc_env.rules.config import GrassrootsText
from benchmarking.runner import play_game, play_match, wilson_interval
from policies.base import RandomPolicy
from policies.heuristic import (
    HeuristicPolicy,
    HeuristicWeights,
    evaluate,
    holds_gate,
    player_scores,
    turns_needed_after_gate,
)

PRESETS = ["core-2p", "core-3p", "core-4p", "core-5p", "core-6p", "core-4p-variants", "core-4p-hex"]


# ------------------------------------------------------------------------------------------ registry
def test_load_known_bots_speak_the_policy_protocol():
    assert {"heuristic", "random"} <= set(policies.available())
    assert policies.available() == sorted(policies.available())
    for name in ("heuristic", "random"):
        bot = policies.load(name, seed=1)
        assert isinstance(bot, policies.Policy)
        assert bot.name == name


def test_load_unknown_name_lists_the_available_bots():
    with pytest.raises(ValueError, match=r"unknown policy 'alphazero'; available: ") as info:
        policies.load("alphazero")
    assert ", ".join(policies.available()) in str(info.value)
    assert "heuristic" in str(info.value) and "random" in str(info.value)


# ------------------------------------------------------------------------------------------ legality + purity
def _positions(preset: str, seed: int, every: int) -> list[Game]:
    """Positions of a random-play game (every ``every``-th decision, all phases), as independent clones."""
    game = Game.new(preset, seed)
    rng = random.Random(seed)
    out = []
    step = 0
    while not game.is_terminal():
        if step % every == 0:
            out.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        step += 1
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_RULINGS_R23_both_bots_return_a_legal_action_and_never_mutate_the_game(preset):
    """Over random positions of every phase of every core preset, each bot answers for the owner of the
    pending decision (RULINGS R23) with one of ``legal_actions()`` and leaves the game unchanged."""
    bots = [policies.load("random", seed=3), policies.load("heuristic", seed=3)]
    phases = set()
    for game in _positions(preset, seed=5, every=3):
        before = game.to_dict()
        legal = game.legal_actions()
        phases.add(game.phase_name)
        for bot in bots:
            action = bot.act(game)
            assert action in legal, (bot.name, game.phase_name, game.action_to_string(action))
            assert game.to_dict() == before, f"{bot.name} mutated the game"
    assert {"place_tile", "political", "move_to", "pay"} <= phases


@pytest.mark.parametrize("preset", PRESETS)
def test_heuristic_plays_whole_games_legally_in_every_seat(preset):
    """Heuristic bots in every seat of every preset play a full game (CORE-01-09-01) with legal actions."""
    cfg = RulesConfig.preset(preset)
    seats = [policies.load("heuristic", seed=q) for q in range(cfg.players)]
    result = play_game(cfg, seats, seed=2)  # Game.apply raises IllegalActionError on an illegal action
    assert result.winners
    assert all(0 <= v <= (8 if cfg.players >= 5 else 7) for v in result.influence)  # CORE-01-08-01, ADD56-01-03
    assert abs(sum(result.returns)) < 1e-9


# ------------------------------------------------------------------------------------------ determinism
def _action_trace(names: list[str], preset: str, game_seed: int, bot_seed: int) -> list[int]:
    game = Game.new(preset, game_seed)
    bots = [policies.load(n, seed=bot_seed + q) for q, n in enumerate(names)]
    trace = []
    while not game.is_terminal():
        a = bots[game.current_player].act(game)
        trace.append(a)
        game.apply(a)
    return trace


def test_bots_are_deterministic_given_their_seed():
    names = ["heuristic", "random", "heuristic", "random"]
    first = _action_trace(names, "core-4p", game_seed=9, bot_seed=40)
    assert first == in_fresh_process(_action_trace, names, "core-4p", 9, 40)  # another process and hash seed
    # The random bot's seed matters (a different seed gives a different game).
    assert first != _action_trace(names, "core-4p", game_seed=9, bot_seed=41)


def test_heuristic_tie_break_depends_on_the_seed_only():
    game = Game.new("core-2p", 4)  # the first placement: every frontier cell scores the same
    picks = {HeuristicPolicy(seed=s).act(game) for s in range(12)}
    assert len(picks) > 1
    assert HeuristicPolicy(seed=7).act(game) == HeuristicPolicy(seed=7).act(game)


# ------------------------------------------------------------------------------------------ strength
def test_heuristic_beats_random_in_a_seeded_two_player_match():
    """CORE-01-09-03: the heuristic wins clearly; a shared victory counts 1/2 (expected ~0.9 per game)."""
    result = play_match("core-2p", ["heuristic", "random"], games=24, seed=100)
    heur, rand = result.entrants
    assert heur.wins >= 19, result.table()
    assert heur.wins + rand.wins == pytest.approx(24)
    assert heur.mean_influence > rand.mean_influence + 0.5


def test_heuristic_beats_three_random_bots_in_four_player_games():
    result = play_match("core-4p", ["heuristic", "random", "random", "random"], games=8, seed=200)
    assert result.entrants[0].wins >= 6, result.table()


# ------------------------------------------------------------------------------------------ evaluation scenarios
def _hotspot_position(majority: int) -> Game:
    """core-2p, P0 to place a Committee; the Hotspot at 8,7 has one empty neighbour (8,8) left.

    ``majority`` holds 1 Influence on the Hotspot; every player has deployed its Starting Influence and
    holds one created Influence in supply (so the gate is open and nobody is holding it).
    """
    pos = Position("core-2p", seed=3)

    def infl(mine: int, other: int) -> list[int]:
        return [mine, other] if majority == 0 else [other, mine]

    pos.put("8,7", "Hotspot", influence=infl(1, 0))
    pos.put("9,7", "DOM-W2", influence=infl(0, 1))
    pos.put("8,6", "FOR-W2", influence=infl(2, 2))
    pos.put("6,7", "INF-W2", influence=infl(1, 1))
    pos.player(0, supply=1)
    pos.player(1, supply=1)
    pos.drawn("Committee")
    pos.turn(0)
    return pos.game()


def test_CORE_01_06_05_heuristic_closes_a_hotspot_where_it_holds_the_majority():
    game = _hotspot_position(majority=0)
    assert HeuristicPolicy(seed=0).act(game) == game.string_to_action("place-tile 8,8")
    after = game.clone()
    after.apply(game.string_to_action("place-tile 8,8"))
    assert after.on_board[0] == game.on_board[0] + 1  # the Hotspot placed P0's Influence


def test_CORE_01_06_05_heuristic_does_not_close_a_hotspot_an_opponent_would_win():
    game = _hotspot_position(majority=1)
    for seed in range(5):
        assert HeuristicPolicy(seed=seed).act(game) != game.string_to_action("place-tile 8,8")


def test_CORE_01_05_04_heuristic_puts_a_resort_next_to_its_own_lobbyist():
    """A Resort next to an owned Lobbyist is controlled at once (+1 virtual Influence, RULINGS R13)."""
    pos = Position("core-2p", seed=3)
    pos.put("6,7", "Lobbyist", influence=[1, 0])  # P0 owns it
    pos.put("8,7", "Lobbyist", influence=[0, 1])  # P1 owns it
    pos.put("7,6", "Committee", influence=[1, 1])
    pos.put("7,8", "Committee", influence=[2, 2])
    pos.drawn("DOM-W5")
    pos.turn(0)
    game = pos.game()
    action = HeuristicPolicy(seed=0).act(game)
    cell = game.topo.parse(game.action_to_string(action).split()[1])
    after = game.clone()
    after.apply(action)
    assert after.controller(cell) == 0
    assert game.topo.label(cell) in ("5,7", "6,6", "6,8")  # next to P0's Lobbyist, not P1's


def test_CORE_01_04_13_heuristic_formalizes_when_it_can():
    """With the gate open, room under the cap and 2 Resources of different resorts, FormalizeInfluence."""
    pos = Position("core-2p", seed=3)
    pos.put("8,7", "Committee", influence=[2, 2])
    pos.put("6,7", "DOM-W1", influence=[2, 2])
    pos.player(0, resources={"DOM": 1, "FOR": 1})
    pos.turn(0)
    game = pos.game()
    assert game.formalize_gate_open()
    action = HeuristicPolicy(seed=0).act(game)
    assert game.action_to_string(action) == "formalize 8,7"  # the Standard Committee (cost 2), not the Start one


def _gate_position(pile: int) -> Game:
    """core-2p, P0 to act with 3 of 4 Starting Influence deployed; ``pile`` tiles left to draw."""
    pos = Position("core-2p", seed=3)
    pos.put("8,7", "DOM-W3", influence=[2, 0])
    pos.put("6,7", "FOR-W3", influence=[1, 4])
    pos.player(0, supply=1)
    pos.player(0, resources={"DOM": 5, "FOR": 5, "INF": 5})
    pos.pile_only(*(["Committee"] * 10 + ["Grassroots"] * 8 + ["Lobbyist"] * 9)[:pile])
    pos.turn(0)
    return pos.game()


def test_CORE_01_08_02_heuristic_holds_the_gate_while_time_allows():
    """Gate control: the last Starting Influence stays back while more turns are left than needed."""
    game = _gate_position(pile=20)  # P0 has 11 turns left, needs 1 + 2*3 = 7
    assert turns_needed_after_gate(game, 0) == 7
    assert holds_gate(game, 0)
    action = HeuristicPolicy(seed=0).act(game)
    assert not game.action_to_string(action).startswith("place ")
    # Without gate control the bot deploys its last Starting Influence (opening the gate for everybody).
    free = HeuristicPolicy(seed=0, weights=HeuristicWeights(hold_gate=False)).act(game)
    assert game.action_to_string(free).startswith("place ")


def test_CORE_01_08_02_heuristic_opens_the_gate_when_the_turns_run_short():
    game = _gate_position(pile=12)  # P0 has 7 turns left (this one included): exactly what it needs
    assert not holds_gate(game, 0)
    action = HeuristicPolicy(seed=0).act(game)
    assert game.action_to_string(action).startswith("place ")


def test_CORE_01_09_03_evaluation_counts_board_influence_fully_and_supply_minus_tempo():
    """Without Resorts or Resources the score is Influence on the Board + (1 - tempo) per supply Influence."""
    pos = Position("core-2p", seed=3)
    pos.put("8,7", "Committee", influence=[3, 1])
    pos.put("6,7", "Committee", influence=[1, 3])
    pos.player(0, supply=1)  # P0: Board 4, supply 1 (one created)
    pos.turn(0)
    game = pos.game()
    w = HeuristicWeights()
    p0, p1 = player_scores(game, w)
    assert p0 == pytest.approx(4 + (1 - w.tempo))
    assert p1 == pytest.approx(4)
    # Symmetric weights give an antisymmetric relative score in a 2-player game.
    sym = HeuristicWeights(opponent_potential=1.0)
    assert evaluate(game, 0, sym) == pytest.approx(-evaluate(game, 1, sym))
    assert evaluate(game, 0, w) == pytest.approx(1 - w.tempo)


# ------------------------------------------------------------------------------------------ incremental evaluation
# The bot values Places, Moves, tile placements, Formalize and Convert without a clone per action
# (policies/heuristic.py, IncrementalEvaluation); HeuristicPolicy(incremental=False) is the straightforward reference:
# clone, apply, continue the Political Action, evaluate(). Both must give the same values (bit for bit) and
# so the same decisions.

# A core variant the presets do not cover: control needed for action tiles (RULINGS R15), a finite Bank
# (RULINGS R17, BC-02: production and conversions run out) and a second Grassroots text (RULINGS R16).
_VARIANT = RulesConfig(
    players=3,
    action_tiles_require_control=True,
    bank_stock=6,
    grassroots_texts=(GrassrootsText(), GrassrootsText(pay=1, pay_rule="any", gain=1, gain_rule="any")),
    name="core-3p-finite-bank",
)


def _heuristic_positions(config: RulesConfig | str, seed: int, every: int) -> list[Game]:
    """Positions of a game with heuristic bots in the even seats and random bots in the odd ones (gate
    control, Moves without supply, Hotspots closing, ...), every ``every``-th decision, as clones."""
    game = Game.new(config, seed)
    bots = [HeuristicPolicy(seed=seed + q) if q % 2 == 0 else policies.load("random", seed=q) for q in range(9)]
    out = []
    step = 0
    while not game.is_terminal():
        if step % every == 0 and len(game.legal_actions()) > 1:
            out.append(game.clone())
        game.apply(bots[game.current_player].act(game))
        step += 1
    return out


@pytest.mark.parametrize(
    ("config", "seed"),
    [("core-2p", 11), ("core-4p", 12), ("core-4p-variants", 13), ("core-6p", 14), ("core-4p-hex", 15), (_VARIANT, 16)],
)
def test_incremental_values_equal_the_clone_per_action_reference(config, seed):
    """CORE-01-04-03..22, CORE-01-06-02..07, CORE-01-07-03: for every phase of the bot's turn the incremental
    values equal those of a clone per action, and the bot picks the same action."""
    positions = _heuristic_positions(config, seed, every=3) + _positions(config, seed, every=8)
    phases: dict[str, int] = {}
    for k, game in enumerate(positions):
        fast = HeuristicPolicy(seed=k).action_values(game)
        reference = HeuristicPolicy(seed=k, incremental=False).action_values(game)
        assert fast == reference, (k, game.phase_name, game.render())
        assert HeuristicPolicy(seed=k).act(game) == HeuristicPolicy(seed=k, incremental=False).act(game)
        phases[game.phase_name] = phases.get(game.phase_name, 0) + 1
    assert {"place_tile", "political", "move_to", "pay"} <= set(phases), phases


def test_incremental_bot_plays_the_same_games_as_the_reference():
    """Whole games (the bot reuses a decision's data for its own Move destination or payment that follows):
    the same action at every decision, with heuristic bots in every seat and against random bots."""
    for names, preset, seed in ((["heuristic"] * 2, "core-2p", 3), (["heuristic", "random"] * 2, "core-4p", 4)):
        traces = []
        for incremental in (True, False):
            game = Game.new(preset, seed)
            bots = [
                HeuristicPolicy(seed=50 + q, incremental=incremental) if name == "heuristic" else RandomPolicy(seed=q)
                for q, name in enumerate(names)
            ]
            trace = []
            while not game.is_terminal():
                trace.append(bots[game.current_player].act(game))
                game.apply(trace[-1])
            traces.append(trace)
        assert traces[0] == traces[1]
        assert len(traces[0]) > 100


def test_CORE_01_06_05_incremental_tile_value_resolves_the_closed_hotspot():
    """Closing a Hotspot by a tile placement places its single majority's Influence (CORE-01-06-03/05):
    the incremental value of that placement is the value of the resolved position."""
    for majority in (0, 1):
        game = _hotspot_position(majority)
        close = game.string_to_action("place-tile 8,8")
        after = game.clone()
        after.apply(close)
        assert after.resolved[game.topo.parse("8,7")]
        values = HeuristicPolicy(seed=0).action_values(game)
        assert values[close] == evaluate(after, 0)
        assert values == HeuristicPolicy(seed=0, incremental=False).action_values(game)


def test_RULINGS_R13_incremental_move_value_follows_a_lobbyist_changing_hands():
    """A Move onto a Lobbyist that makes P0 its owner adds +1 to the totals of the Resort next to it
    (RULINGS R13, CORE-01-05-04): the incremental value equals evaluate() of the position after the Move."""
    pos = Position("core-2p", seed=3)
    pos.put("8,7", "Lobbyist", influence=[1, 1])
    pos.put("9,7", "DOM-W3", influence=[0, 1])  # P1 controls it; P0 owning the Lobbyist ties it
    pos.put("6,7", "FOR-W2", influence=[2, 0])
    pos.put("7,6", "Committee", influence=[2, 1])
    pos.player(0, supply=0)  # Moves only (a Place would dominate them)
    pos.turn(0)
    game = pos.game()
    move = [game.string_to_action("move-from 7,6"), game.string_to_action("move-to 8,7")]
    after = game.clone()
    for a in move:
        after.apply(a)
    assert after.lobbyist_owner(game.topo.parse("8,7")) == 0
    assert after.totals(game.topo.parse("9,7")) == [1, 1]
    bot = HeuristicPolicy(seed=0)
    assert bot.action_values(game) == HeuristicPolicy(seed=0, incremental=False).action_values(game)
    on_move_to = game.clone()
    on_move_to.apply(move[0])
    assert bot.action_values(on_move_to)[move[1]] == evaluate(after, 0)


# ------------------------------------------------------------------------------------------ arena
def test_play_match_rotates_seats_and_scores_shared_victories_fractionally():
    result = play_match("core-2p", ["random", "random"], games=6, seed=1)
    assert [e.label for e in result.entrants] == ["random#1", "random#2"]
    assert [r.seats for r in result.results] == [["random", "random"]] * 6
    total = sum(e.wins for e in result.entrants)
    assert total == pytest.approx(6)  # CORE-01-09-04: a shared victory splits one win
    for e in result.entrants:
        assert e.games == 6
        assert e.outright + e.shared <= 6
        lo, hi = e.ci95
        assert 0.0 <= lo <= e.win_rate <= hi <= 1.0
    # Game i uses engine seed seed + i.
    assert [r.seed for r in result.results] == list(range(1, 7))


def test_play_match_seat_rotation_puts_each_entrant_in_every_seat():
    seen: list[list[str]] = []
    play_match(
        "core-3p",
        [policies.load("random", seed=1), policies.load("heuristic", seed=1), policies.load("random", seed=2)],
        games=3,
        seed=0,
        on_game=lambda r: seen.append(r.seats),
    )
    assert [s.index("heuristic") for s in seen] == [1, 2, 0]


def test_play_match_is_reproducible_and_table_lists_every_entrant():
    a = play_match("core-2p", ["heuristic", "random"], games=2, seed=5)
    b = play_match("core-2p", ["heuristic", "random"], games=2, seed=5)
    assert [(r.winners, r.influence) for r in a.results] == [(r.winners, r.influence) for r in b.results]
    table = a.table()
    assert "| heuristic | 2 |" in table and "| random | 2 |" in table
    assert "95% CI (Wilson)" in table


def test_play_match_rejects_a_wrong_number_of_entrants():
    with pytest.raises(ValueError, match="core-4p has 4 seats"):
        play_match("core-4p", ["heuristic", "random"], games=1, seed=0)


def test_wilson_interval_matches_known_values():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(90, 100)
    assert lo == pytest.approx(0.8256, abs=1e-4) and hi == pytest.approx(0.9448, abs=1e-4)


def test_first_choice_breaks_ties_by_the_lowest_action():
    """With ``FirstChoice`` as its RNG the heuristic plays the lowest action id among its equally valued best
    actions (a function of the position: behaviour cloning's labels); with a seeded RNG it picks among them."""
    from policies.heuristic import FirstChoice

    ties = 0
    for seed in range(3):
        game = Game.new("core-2p", seed)
        canonical = HeuristicPolicy(seed=0)
        canonical.rng = FirstChoice()  # type: ignore[assignment]
        seeded = HeuristicPolicy(seed=seed)
        differs = 0
        while not game.is_terminal():
            values = canonical.action_values(game)
            best = max(values.values())
            top = sorted(a for a, v in values.items() if v >= best - 1e-9)
            action = canonical.act(game)
            assert action == top[0]
            if len(top) > 1:
                ties += 1
                differs += seeded.act(game) != action
            game.apply(action)
        assert differs > 0, "the seeded bot breaks some ties differently"
    assert ties > 20
