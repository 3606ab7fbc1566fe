"""Invariant harness: 1,000 seeded random games per preset, every invariant checked (see invariants.py).

Each game is played by ``random.Random(seed)``; a failure names the preset, the seed and the step, and
``run_checked_game(config, seed)`` reproduces it. Cheap checks run at every decision; the expensive ones
(JSON round trip with a lockstep twin, all legal actions on clones, clone independence, recomputed
production) at a few random points per game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import numpy as np
import pytest
from invariants import (
    PRESETS,
    InvariantError,
    Stats,
    Tracker,
    check_action_strings,
    check_all_legal_apply,
    check_clone_independent,
    check_derived,
    check_influence_on_tiles,
    check_legal,
    check_state,
    check_terminal,
    expected_starting,
    expected_tile_counts,
    round_trip,
    run_checked_game,
)

from bc_env.rules import Game, IllegalActionError, RulesConfig, preset_names
from bc_env.rules.components import HOTSPOT, KIND_NAMES

GAMES_PER_PRESET = 1000

#: Small tables, so that the table fills up: discards (CORE-01-04-06/07), an exhausted recycling pile
#: (RULINGS R4, BC-08) and Hotspots closed by the table edge (RULINGS R5) all happen.
SMALL_TABLES = [
    ("core-2p", 3),
    ("core-4p", 7),
    ("core-4p-variants", 5),
    ("core-4p-hex", 7),
    ("core-6p", 7),
]
GAMES_PER_SMALL_TABLE = 300

#: Rules that random play must exercise on every preset, so that the checks above are not vacuous.
MUST_FIRE = {
    "CORE-01-04-11": "Place Influence",
    "CORE-01-04-12": "Move Influence",
    "CORE-01-04-16": "Standard Committee payment",
    "CORE-01-04-17": "FormalizeInfluence via a Committee",
    "CORE-01-08-09": "Start Committee payment",
    "CORE-01-08-10": "FormalizeInfluence via the Start Committee",
    "CORE-01-04-22": "ConvertResources",
    "CORE-01-06-05": "Hotspot placement",
    "CORE-01-06-07": "Hotspot without supply",
    "CORE-01-05-02": "Hotspot tie",
    "CORE-01-06-11": "production to one controller",
    "CORE-01-06-14": "tied production split",
    "CORE-01-07-02": "Round Settlement",
    "CORE-01-09-03": "game over",
}


def _cfg(preset: str) -> RulesConfig:
    return RulesConfig.preset(preset)


# ---------------------------------------------------------------------------- the harness


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_CORE_01_00_invariants_hold_over_1000_random_games(preset: str) -> None:
    config = _cfg(preset)
    stats = Stats()
    for seed in range(GAMES_PER_PRESET):
        stats.merge(run_checked_game(config, seed))
    assert stats.games == GAMES_PER_PRESET
    missing = {rule: what for rule, what in MUST_FIRE.items() if not stats.rules[rule]}
    assert not missing, f"{preset}: random play never exercised {missing}"
    # Every kind of decision was JSON round-tripped and sampled (all its legal actions on clones).
    decisions = {"place_tile", "political", "move_to", "pay", "gain"}
    assert decisions <= set(stats.round_trip_phases), stats.round_trip_phases
    assert decisions <= set(stats.sample_phases), stats.sample_phases
    assert stats.sampled_actions >= 5 * GAMES_PER_PRESET
    assert stats.productions_checked >= GAMES_PER_PRESET  # at least the final settlements
    assert stats.hotspot_predictions >= GAMES_PER_PRESET
    assert stats.cap_reached > 0, "no game reached the Influence cap (R12 never tested)"
    assert stats.shared_wins > 0, "no shared victory (CORE-01-09-04 never tested)"


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "size"), SMALL_TABLES)
def test_RULINGS_R2_R4_R5_invariants_hold_on_small_tables(preset: str, size: int) -> None:
    config = _cfg(preset).replace(table_size=size, name=f"{preset} table_size={size}")
    stats = Stats()
    for seed in range(GAMES_PER_SMALL_TABLE):
        stats.merge(run_checked_game(config, seed))
    if config.tile_recycling:
        assert stats.rules["RULINGS-R4"] == GAMES_PER_SMALL_TABLE  # every game ends with a full table
    else:
        assert stats.rules["CORE-01-04-06"] > 0, "no tile was ever discarded"
    assert stats.events["hotspot-resolved"] + stats.events["hotspot-no-majority"] > 0


# ---------------------------------------------------------------------------- static checks per preset


def test_harness_covers_every_preset() -> None:
    assert set(PRESETS) == set(preset_names()), "add the new preset to invariants.PRESETS"


@pytest.mark.parametrize("preset", PRESETS)
def test_CORE_01_02_10_to_16_catalogue_matches_the_rule_text(preset: str) -> None:
    """CORE-01-02-01..17 and ADD56-01-01: the tile multiset, with ids numbering the catalogue."""
    game = Game.new(preset, seed=0)
    cat = game.catalogue
    assert [t.id for t in cat] == list(range(len(cat)))
    assert KIND_NAMES[cat[0].kind] == "start-committee"  # tile 0 = Start Committee
    got = {}
    for t in cat:
        key = (KIND_NAMES[t.kind], t.resort, t.name, t.value)
        got[key] = got.get(key, 0) + 1
    assert got == dict(expected_tile_counts(game.config))
    # CORE-01-02-02, CORE-01-03-02: every other tile is in the DrawPile (the first one already drawn).
    assert sorted([*game.draw_pile, game.drawn]) == list(range(1, len(cat)))


@pytest.mark.parametrize("preset", PRESETS)
def test_CORE_01_03_setup_positions_pass_every_check(preset: str) -> None:
    for seed in range(20):
        game = Game.new(preset, seed)
        tracker = Tracker(game)
        assert game.starting == expected_starting(game.config, game.start_player)
        check_legal(game, tracker)
        check_derived(game)
        check_influence_on_tiles(game)
        tracker.check_board_from_events()


@pytest.mark.parametrize("preset", PRESETS)
def test_action_strings_round_trip_for_every_action(preset: str) -> None:
    """Every action in 0..num_actions-1 (also grid cells off a hex table) has a unique string parsing back."""
    game = Game.new(preset, seed=0)
    check_action_strings(game, list(range(game.num_actions)))
    for bad in (-1, game.num_actions):
        with pytest.raises(IllegalActionError):
            game.action_to_string(bad)


# ---------------------------------------------------------------------------- the checks can fail


def _midgame(preset: str = "core-4p", seed: int = 3, steps: int = 90) -> tuple[Game, Tracker]:
    game = Game.new(preset, seed)
    tracker = Tracker(game)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        tracker.process()
        tracker.check()
    return game, tracker


def _hotspot_cell(game: Game) -> int:
    return next(c for c, t in enumerate(game.tile_at) if t >= 0 and game.catalogue[t].kind == HOTSPOT)


def _dup_tile(g: Game) -> None:
    g.discard.append(g.draw_pile[0])


def _lose_tile(g: Game) -> None:
    g.draw_pile.pop()


def _replace_start_committee(g: Game) -> None:
    g.tile_at[g.topo.centre] = 5


def _influence_on_start_committee(g: Game) -> None:
    g.infl[g.topo.centre * g.num_players] += 1
    g.supply[0] -= 1


def _influence_from_nowhere(g: Game) -> None:
    g.supply[1] += 1


def _beyond_cap(g: Game) -> None:
    g.supply[1] += 9
    g.created[1] += 9


def _wrong_on_board(g: Game) -> None:
    g.on_board[2] += 1


def _resource_from_nowhere(g: Game) -> None:
    g.res[0] += 1


def _negative_resource(g: Game) -> None:
    g.bank[0] += g.res[0] + 1  # conserved, but negative
    g.res[0] = -1


def _negative_noise(g: Game) -> None:
    g.bank[1] += g.noise[1] + 1
    g.noise[1] = -1


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (_dup_tile, "CORE-01-00-01/06 tile zones: duplicated"),
        (_lose_tile, "in no zone"),
        (_replace_start_committee, "duplicated"),
        (_influence_on_start_committee, "CORE-01-08-04"),
        (_influence_from_nowhere, "starting"),
        (_beyond_cap, "cap"),
        (_wrong_on_board, "on_board"),
        (_resource_from_nowhere, "not conserved"),
        (_negative_resource, "holds -1"),
        (_negative_noise, "negative Noise"),
    ],
)
def test_check_state_detects_corruption(corrupt: Callable[[Game], None], message: str) -> None:
    game, _ = _midgame()
    check_state(game)
    bad = game.clone()
    corrupt(bad)
    with pytest.raises(InvariantError, match=message):
        check_state(bad)


def _formalize_without_event(g: Game) -> None:
    g.supply[0] += 1
    g.created[0] += 1


def _created_for_starting(g: Game) -> None:
    g.created[0] += 1
    g.starting[0] -= 1


def _deployed(g: Game) -> None:
    g.deployed[0] += 1


def _start_used(g: Game) -> None:
    g.start_used[0] = not g.start_used[0]


def _noise_from_bank(g: Game) -> None:
    g.noise[2] += 1
    g.bank[2] -= 1


def _resource_from_bank(g: Game) -> None:
    g.res[1] += 1
    g.bank[1] -= 1


def _moved_without_event(g: Game) -> None:
    n = g.num_players
    src = next(c for c in g.nonstart if g.infl[c * n])
    dst = next(c for c in g.nonstart if c != src)
    g.infl[src * n] -= 1
    g.infl[dst * n] += 1


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (_formalize_without_event, "supplies"),
        (_created_for_starting, "starting Influence"),
        (_deployed, "deployed"),
        (_start_used, "start_used"),
        (_noise_from_bank, "rebuilt from the events"),
        (_resource_from_bank, "rebuilt from the events"),
        (_moved_without_event, "Influence of player 0"),
    ],
)
def test_tracker_detects_history_violations(corrupt: Callable[[Game], None], message: str) -> None:
    """Each corruption keeps the stateless sums consistent; only the event history exposes it."""
    game, tracker = _midgame()
    corrupt(game)
    check_state(game)
    with pytest.raises(InvariantError, match=message):
        tracker.check()


def test_noise_decrease_is_detected() -> None:
    """RULINGS R17: Noise is a sink; the tracker also compares with the previous step."""
    game, tracker = _midgame()
    tracker.prev_noise = [v + 1 for v in game.noise]
    with pytest.raises(InvariantError, match="Noise decreased"):
        tracker.check()


def test_derived_index_and_hotspot_corruption_is_detected() -> None:
    game, tracker = _midgame()
    check_derived(game)
    tracker.check_board_from_events()
    bad = game.clone()
    bad.frontier.pop()
    with pytest.raises(InvariantError, match="frontier"):
        check_derived(bad)
    bad = game.clone()
    bad.kind_at[bad.board[-1]] = -1
    with pytest.raises(InvariantError, match="kind_at"):
        check_derived(bad)
    cell = _hotspot_cell(game)
    game.resolved[cell] = not game.resolved[cell]
    with pytest.raises(InvariantError, match="Hotspot"):
        tracker.check_board_from_events()


def test_legal_set_corruption_is_detected() -> None:
    game, tracker = _midgame()
    legal = check_legal(game, tracker)
    bad = game.clone()
    bad._legal = legal[::-1] if len(legal) > 1 else [*legal, game.layout.pass_]
    with pytest.raises(InvariantError):
        check_legal(bad, tracker)
    bad = game.clone()
    bad._legal = sorted({*legal, game.layout.pass_})  # R7: Pass only when nothing else is legal
    with pytest.raises(InvariantError, match="extra"):
        check_legal(bad, tracker)
    bad = game.clone()
    bad._legal = []
    with pytest.raises(InvariantError, match="no legal action"):
        check_legal(bad)


# ---------------------------------------------------------------------------- API checks on one position


@pytest.mark.parametrize("preset", ["core-2p", "core-5p", "core-4p-hex"])
def test_every_legal_action_applies_and_round_trips_midgame(preset: str) -> None:
    game, tracker = _midgame(preset, seed=8, steps=60)
    legal = check_legal(game, tracker)
    check_action_strings(game, legal)
    assert check_all_legal_apply(game, legal, random.Random(0), limit=len(legal)) == len(legal)
    check_clone_independent(game, random.Random(1), steps=50)
    twin = round_trip(game)
    rng = random.Random(2)
    while not game.is_terminal():
        assert twin.legal_actions() == game.legal_actions()
        a = game.legal_actions()[rng.randrange(len(game.legal_actions()))]
        game.apply(a)
        twin.apply(a)
    assert twin.to_dict() == game.to_dict()
    check_terminal(game)


def test_to_dict_is_a_snapshot() -> None:
    """Mutating what to_dict() returned, or the dict given to from_dict(), leaves the games unchanged."""
    game, _ = _midgame()
    d = game.to_dict()
    text = json.dumps(d, sort_keys=True)
    d["board"][1]["influence"][0] += 1
    d["draw_pile"].append(0)
    d["events"][0]["type"] = "x"
    d["players"][0]["resources"]["DOM"] += 5
    assert json.dumps(game.to_dict(), sort_keys=True) == text
    source = json.loads(text)
    twin = Game.from_dict(source)
    source["draw_pile"].clear()
    source["board"][1]["influence"][0] += 1
    source["events"].clear()
    assert json.dumps(twin.to_dict(), sort_keys=True) == text


def test_legal_action_mask_is_a_fresh_array() -> None:
    game, _ = _midgame(steps=10)
    mask = game.legal_action_mask()
    mask[:] = True
    assert np.flatnonzero(game.legal_action_mask()).tolist() == game.legal_actions()
    legal = game.legal_actions()
    legal.append(-1)
    assert -1 not in game.legal_actions()
