"""Invariant harness: seeded random games per preset, CORE-01 and EXP-01 (both editions), every invariant checked
(see invariants.py). The suite plays 200 games per preset and 100 per small table; the full-size run is 1,000 and
300 (``BC_INVARIANT_GAMES=1000 BC_INVARIANT_SMALL_TABLE_GAMES=300``, docs/testing.md, recorded in
docs/benchmarks.md).

Each game is played by ``random.Random(seed)``; a failure names the preset, the seed and the step, and
``run_checked_game(config, seed, **checks_for(seed))`` reproduces it. Cheap checks run at every decision
(event ledgers, legal sets recomputed); the expensive ones at a few random points per game, alternating
between games (:func:`checks_for`): even seeds apply sampled legal actions on clones and check clone
independence, odd seeds round-trip through JSON with a lockstep twin, every tenth game is replayed from
its seed (determinism); Round Settlements are recomputed in every game.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable

import numpy as np
import pytest
from exp01_support import supplemental_budget_seeker
from invariants import (
    EXP01_CARDS,
    EXP01_PRESETS,
    OTHER_HARNESS_PRESETS,
    PRESETS,
    InvariantError,
    Stats,
    Tracked,
    Tracker,
    check_action_strings,
    check_all_legal_apply,
    check_clone_independent,
    check_derived,
    check_influence_on_tiles,
    check_legal,
    check_measures,
    check_replay,
    check_state,
    check_terminal,
    choose,
    expected_starting,
    expected_tile_counts,
    round_trip,
    run_checked_game,
)

from bc_env.rules import Game, IllegalActionError, RulesConfig, preset_names
from bc_env.rules.components import HOTSPOT, KIND_NAMES
from bc_env.rules.effects import payment_options

#: Games per preset (the suite's sample; the full-size run sets 1000, docs/testing.md). A multiple of 10. The
#: EXP-01 presets may play up to twice as many in the sample: their rarest events (a declined Investment Program
#: exchange, about one game in 50) must happen for the checks to mean something, so they go on, 10 games at a
#: time, until every event of EXP01_MUST_FIRE has happened (:func:`play_sample`).
GAMES_PER_PRESET = int(os.environ.get("BC_INVARIANT_GAMES", "200"))


def games_for(preset: str) -> int:
    """The most games the sample of ``preset`` plays."""
    return min(2 * GAMES_PER_PRESET, 1000) if preset in EXP01_PRESETS and GAMES_PER_PRESET < 1000 else GAMES_PER_PRESET


def play_sample(config: RulesConfig, preset: str) -> Stats:
    """Seeds 0, 1, ...: ``GAMES_PER_PRESET`` games, then on in blocks of 10 up to :func:`games_for` while an event of
    EXP01_MUST_FIRE (an EXP-01 preset) has not happened yet. Deterministic: the same seeds every run."""
    stats = Stats()
    seed, most = 0, games_for(preset)
    while seed < most:
        for s in range(seed, seed + 10):
            stats.merge(run_checked_game(config, s, **checks_for(s)))
        seed += 10
        if seed >= GAMES_PER_PRESET and (not config.exp01 or all(stats.events[t] for t in EXP01_MUST_FIRE)):
            break
    return stats


def checks_for(seed: int) -> dict[str, int | bool]:
    """The expensive checks of game ``seed``: alternating, so every game stays cheap (see the docstring)."""
    even = seed % 2 == 0
    return {"samples": int(even), "clone_checks": int(even), "round_trips": int(not even), "replay": seed % 10 == 5}


#: Small tables, so that the table fills up: discards (CORE-01-04-06/07), an exhausted recycling pile
#: (RULINGS R4, BC-08) and Hotspots closed by the table edge (RULINGS R5) all happen.
SMALL_TABLES = [
    ("core-2p", 3),
    ("core-4p", 7),
    ("core-4p-variants", 5),
    ("core-4p-hex", 7),
    ("core-6p", 7),
    ("exp01-v1.3-4p", 7),
]
GAMES_PER_SMALL_TABLE = int(os.environ.get("BC_INVARIANT_SMALL_TABLE_GAMES", "100"))

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
#: Events that random play must produce on every EXP-01 preset (and their rules), so that the Measure checks
#: are not vacuous.
EXP01_MUST_FIRE = {
    "take-measure": "TakeMeasure (EXP-01-06-02)",
    "play-measure": "PlayMeasure (EXP-01-06-07)",
    "measure-refill": "OpenMeasures refilled (EXP-01-06-04)",
    "measure-not-refilled": "OpenMeasures left short (EXP-01-06-06)",
    "measure-recycled": "a first play into the RecyclePile (EXP-01-06-12)",
    "measure-final-discard": "a second play into the FinalDiscard (EXP-01-06-13)",
    "measure-recycle": "the RecyclePile shuffled into the MeasureDrawPile (EXP-01-06-16)",
    "effect-expired": "a Measure effect ending with its window (BC-22..BC-30)",
    "effect-consumed": "a Budget Deficit consumed (EXP-01-06-M06-07)",
    "measure-applied": "a Measure modifier at work",
    "investment-exchange": "the Investment Program exchange (EXP-01-05-03)",
    "investment-declined": "the Investment Program exchange declined (EXP-01-05-04)",
}


def _cfg(preset: str) -> RulesConfig:
    return RulesConfig.preset(preset)


# ---------------------------------------------------------------------------- the harness


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_CORE_01_00_EXP_01_invariants_hold_over_random_games(preset: str) -> None:
    config = _cfg(preset)
    stats = play_sample(config, preset)
    games = stats.games
    assert GAMES_PER_PRESET <= games <= games_for(preset) and games % 10 == 0
    missing = {rule: what for rule, what in MUST_FIRE.items() if not stats.rules[rule]}
    assert not missing, f"{preset}: random play never exercised {missing}"
    # Every kind of decision was JSON round-tripped and sampled (all its legal actions on clones).
    decisions = {"place_tile", "political", "move_to", "pay", "gain"}
    if config.exp01:
        # A Measure's target (BC-20), the Investment Program (BC-31), a payment of the Measure pipeline.
        decisions |= {"target", "exchange", "measure-pay"}
    assert decisions <= set(stats.round_trip_phases), stats.round_trip_phases
    assert decisions <= set(stats.sample_phases), stats.sample_phases
    assert stats.sampled_actions >= 5 * games // 2
    assert stats.productions_checked >= games  # at least the final settlements
    assert stats.hotspot_predictions >= games
    assert stats.legal_recomputed >= 100 * games  # the legal set recomputed at most decisions
    assert stats.replays == games // 10
    assert stats.cap_reached > 0, "no game reached the Influence cap (R12 never tested)"
    assert stats.shared_wins > 0, "no shared victory (CORE-01-09-04 never tested)"
    if not config.exp01:
        assert not stats.cards_played and not stats.events["take-measure"]  # EXP-01-07-04 (Rule Interaction)
        return
    missing = {t: what for t, what in EXP01_MUST_FIRE.items() if not stats.events[t]}
    assert not missing, f"{preset}: random play never exercised {missing}"
    # Every card was played, often enough that the checks of its effect window and modifiers ran.
    assert set(stats.cards_played) == set(Game.new(config, 0).layout.cards), stats.cards_played
    assert min(stats.cards_played.values()) >= games // 10, stats.cards_played
    assert stats.modified_productions >= 100, "Measures never modified a recomputed Round Settlement"
    if config.exp01_edition == "v1.3":
        assert stats.events["additional-action"] == stats.events["play-measure"]  # EXP-01-06-05 (v1.3)
        assert stats.events["labor-market"] > 0, "the v1.3 Labor Market never gave an Influence (BC-32)"
    else:
        assert not stats.events["additional-action"] and not stats.events["labor-market"]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "size"), SMALL_TABLES)
def test_RULINGS_R2_R4_R5_invariants_hold_on_small_tables(preset: str, size: int) -> None:
    config = _cfg(preset).replace(table_size=size, name=f"{preset} table_size={size}")
    stats = Stats()
    for seed in range(GAMES_PER_SMALL_TABLE):
        stats.merge(run_checked_game(config, seed, **checks_for(seed)))
    if config.tile_recycling:
        assert stats.rules["RULINGS-R4"] == GAMES_PER_SMALL_TABLE  # every game ends with a full table
    else:
        assert stats.rules["CORE-01-04-06"] > 0, "no tile was ever discarded"
    assert stats.events["hotspot-resolved"] + stats.events["hotspot-no-majority"] > 0


# ---------------------------------------------------------------------------- static checks per preset


def test_harness_covers_every_preset() -> None:
    assert set(PRESETS) | set(OTHER_HARNESS_PRESETS) == set(preset_names()), "add the new preset to invariants.PRESETS"


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


@pytest.mark.parametrize("preset", EXP01_PRESETS)
def test_EXP_01_06_M01_to_M10_measure_catalogue_matches_the_rule_text(preset: str) -> None:
    """EXP-01-06-M01..M10 / EXP-01-08-M01..M10: the ten cards, names, printed costs and targets; setup puts
    three face up and the rest in the MeasureDrawPile with every counter 0 (EXP-01-03-02/03)."""
    for seed in range(5):
        game = Game.new(preset, seed)
        resorts = game.config.resorts
        assert [m.key for m in game.measures] == list(EXP01_CARDS)
        for spec in game.measures:
            name, cost, target = EXP01_CARDS[spec.key]
            assert (spec.name, spec.target) == (name, target)
            # The printed cost is exactly one payment: those Resources (EXP-01-06-08: paid in full).
            assert [pay for pay, _ in payment_options(spec.cost, len(resorts))] == [
                tuple(sorted(resorts.index(r) for r in cost))
            ]
        assert (
            len(game.ext["measures"].open[0]) == 3
            and len(game.ext["measures"].draw[0]) == 7
            and not game.ext["measures"].recycle[0] + game.ext["measures"].final[0]
        )
        assert (
            not any(game.ext["measures"].hands)
            and game.ext["measures"].count == [0] * 10
            and game.ext["measures"].last_round == [0] * game.num_players
        )
        check_measures(game)


@pytest.mark.parametrize("preset", PRESETS)
def test_action_strings_round_trip_for_every_action(preset: str) -> None:
    """Every action in 0..num_actions-1 (also grid cells off a hex table) has a unique string parsing back."""
    game = Game.new(preset, seed=0)
    check_action_strings(game, list(range(game.num_actions)))
    for bad in (-1, game.num_actions):
        with pytest.raises(IllegalActionError, match=f"^action {bad} is out of range 0..{game.num_actions - 1}$"):
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


# ---------------------------------------------------------------------------- the EXP-01 checks can fail


def _exp01_midgame(preset: str = "exp01-4p", seed: int = 1, need_final: bool = False) -> tuple[Game, Tracker]:
    """A political decision of a Measure-heavy game: a card in a hand, one in the RecyclePile (and, with
    ``need_final``, one in the FinalDiscard), a Measure effect in force and a PlayMeasure legal."""
    game = Game.new(preset, seed)
    tracker = Tracker(game)
    rng = random.Random(seed)
    while not game.is_terminal():
        legal = game.legal_actions()
        if (
            game.phase_name == "political"
            and any(game.ext["measures"].hands)
            and game.ext["measures"].recycle[0]
            and (game.ext["measures"].final[0] or not need_final)
            and game.active_effects
            and any(a >= game.layout.play for a in legal)
        ):
            return game, tracker
        game.apply(choose(game, legal, rng, 0.7))
        tracker.process()
        tracker.check()
    raise AssertionError("no such position")


def _card_twice(g: Game) -> None:
    g.ext["measures"].hands[next(p for p, h in enumerate(g.ext["measures"].hands) if len(h) < 2)].append(
        g.ext["measures"].draw[0][0]
    )


def _card_lost(g: Game) -> None:
    g.ext["measures"].open[0].pop()


def _hand_of_three(g: Game) -> None:
    p = next(p for p, h in enumerate(g.ext["measures"].hands) if h)
    while len(g.ext["measures"].hands[p]) < 3:
        g.ext["measures"].hands[p].append(g.ext["measures"].open[0].pop())


def _four_open(g: Game) -> None:
    g.ext["measures"].open[0].append(g.ext["measures"].draw[0].pop())


def _recycled_counter_2(g: Game) -> None:
    g.ext["measures"].count[g.ext["measures"].recycle[0][0]] = 2


def _final_counter_1(g: Game) -> None:
    g.ext["measures"].count[g.ext["measures"].final[0][0]] = 1


def _third_play(g: Game) -> None:
    g.ext["measures"].count[g.ext["measures"].final[0][0]] = 3


def _twice_played_back_in_hand(g: Game) -> None:
    k = g.ext["measures"].final[0].pop()
    p = next(p for p, h in enumerate(g.ext["measures"].hands) if len(h) < 2)
    g.ext["measures"].hands[p].append(k)


def _empty_draw_beside_recycle(g: Game) -> None:
    for k in g.ext["measures"].draw[0]:
        g.ext["measures"].count[k] = 1
    g.ext["measures"].recycle[0] += g.ext["measures"].draw[0]
    g.ext["measures"].draw[0] = []


def _eco_from_nowhere(g: Game) -> None:
    g.res[g.ext["EXP-01"].eco] += 1


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (_card_twice, "Measure zones: duplicated"),
        (_card_lost, "in no zone"),
        (_hand_of_three, "EXP-01-06-03"),
        (_four_open, "EXP-01-03-03"),
        (_recycled_counter_2, "EXP-01-06-12"),
        (_final_counter_1, "EXP-01-06-13"),
        (_third_play, "play counters"),
        (_twice_played_back_in_hand, "EXP-01-06-14/15"),
        (_empty_draw_beside_recycle, "EXP-01-06-16"),
        (_eco_from_nowhere, "Resources of ECO not conserved"),
    ],
)
def test_EXP_01_check_state_detects_measure_corruption(corrupt: Callable[[Game], None], message: str) -> None:
    game, _ = _exp01_midgame(need_final=True)
    check_state(game)
    bad = game.clone()
    corrupt(bad)
    with pytest.raises(InvariantError, match=message):
        check_state(bad)


def _taken_without_event(g: Game) -> None:
    p = next(p for p, h in enumerate(g.ext["measures"].hands) if len(h) < 2)
    k = g.ext["measures"].open[0].pop()
    g.ext["measures"].hands[p].append(k)
    g.ext["measures"].hands[p].sort()


def _counted_without_play(g: Game) -> None:
    g.ext["measures"].count[g.ext["measures"].count.index(0)] = 1


def _played_this_round(g: Game) -> None:
    g.ext["measures"].last_round[g.active] = g.round


def _effect_dropped(g: Game) -> None:
    g.active_effects.pop()


def _effect_reowned(g: Game) -> None:
    a = g.active_effects[0]
    g.active_effects[0] = type(a)(a.id, (a.owner + 1) % g.num_players, a.until, a.from_round, a.data)


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (_taken_without_event, "Measure zones"),
        (_counted_without_play, "play counters"),
        (_played_this_round, "last PlayMeasure"),
        (_effect_dropped, "effects in force"),
        (_effect_reowned, "effects in force"),
    ],
)
def test_EXP_01_tracker_detects_measure_history_violations(corrupt: Callable[[Game], None], message: str) -> None:
    """Each corruption keeps the Measure zones consistent; only the event history exposes it."""
    game, tracker = _exp01_midgame()
    corrupt(game)
    check_state(game)
    with pytest.raises(InvariantError, match=message):
        tracker.check()


def test_EXP_01_07_06_an_effect_that_outlives_its_window_is_detected() -> None:
    """BC-22..BC-30: the tracker's own clock says when each effect must be gone."""
    game, tracker = _exp01_midgame()
    tracker._check_windows()
    # A "this turn" effect created a turn ago, and a Budget Deficit whose target has acted since.
    p = game.active
    for late in (
        Tracked("EXP-01-M10", p, "end_of_turn", game.round, {}, tracker.round, tracker.turns - 1),
        Tracked("EXP-01-M06", p, "consumed", game.round, {"target": p}, tracker.round, 0, tracker.acts[p] - 1),
    ):
        tracker.effects.append(late)
        with pytest.raises(InvariantError, match="outlived its window"):
            tracker._check_windows()
        tracker.effects.remove(late)


def test_EXP_01_07_06_an_effect_that_ends_early_is_detected() -> None:
    """An effect-expired event for an effect whose window is still open fails (e.g. "next round" now)."""
    game, tracker = _exp01_midgame()
    a = game.active_effects[0]
    tracker.effects.append(Tracked(a.id, a.owner, "end_of_round", game.round + 1, {}, tracker.round, tracker.turns))
    game.events.append({"type": "effect-expired", "rule": "EXP-01-07-06", "id": a.id, "owner": a.owner})
    with pytest.raises(InvariantError, match="outside its window"):
        tracker.process()


def test_EXP_01_06_04_a_refill_without_take_measure_is_detected() -> None:
    game, tracker = _exp01_midgame()
    key = game.measures[game.ext["measures"].draw[0][-1]].key
    game.events.append({"type": "measure-refill", "rule": "EXP-01-06-04", "deck": "EXP-01", "card": key})
    with pytest.raises(InvariantError, match="BC-21"):
        tracker.process()


def test_EXP_01_06_18_a_second_play_measure_in_a_round_is_detected() -> None:
    game, tracker = _exp01_midgame()
    play = next(a for a in game.legal_actions() if a >= game.layout.play)
    tracker.last_play[game.active] = tracker.round  # as if this player had played a Measure this round
    game.apply(play)
    while game.phase_name in ("target", "pay"):  # complete the PlayMeasure
        game.apply(game.legal_actions()[0])
    with pytest.raises(InvariantError, match="EXP-01-06-18"):
        tracker.process()


def test_EXP_01_legal_set_corruption_is_detected() -> None:
    """BC-20: the recomputed legal set notices a missing PlayMeasure and an extra TakeMeasure."""
    game, tracker = _exp01_midgame()
    legal = check_legal(game, tracker)
    assert tracker.recomputed
    bad = game.clone()
    bad._legal = [a for a in legal if a < game.layout.play or a >= game.layout.target]
    with pytest.raises(InvariantError, match="misses"):
        check_legal(bad, tracker)
    bad = game.clone()
    taken = next(k for h in game.ext["measures"].hands for k in h)
    bad._legal = sorted({*legal, game.layout.take + taken})  # a card that is in a hand, not open
    with pytest.raises(InvariantError, match="extra"):
        check_legal(bad, tracker)


def _declining_seeker(g: Game, legal: list[int], rng: random.Random) -> int:
    """The Supplemental Budget seeker, but declining every exchange made under Collective Bargaining."""
    if g.phase_name == "exchange" and g.decision.supplemented:
        return g.layout.decline
    return supplemental_budget_seeker(g, legal, rng)


@pytest.mark.parametrize("policy", [supplemental_budget_seeker, _declining_seeker])
def test_bc30_EXP_01_06_M10_invariants_hold_where_supplemental_budget_applies(
    policy: Callable[[Game, list[int], random.Random], int],
) -> None:
    """The harness follows games in which standalone Supplemental Budget offers the Investment Program
    exchange under Collective Bargaining (the coverage-seeking player of exp01_support): the offer, the
    additional Resource's pay decision and the ledger are recomputed by the tracker (BC-30, BC-24, BC-31)."""
    config = RulesConfig.preset("exp01-4p")
    stats = Stats()
    for seed in range(200):
        stats.merge(run_checked_game(config, seed, policy=policy, **checks_for(seed)))
    if policy is supplemental_budget_seeker:
        assert stats.rules["EXP-01-06-M10-04"] >= 3 and stats.rules["EXP-01-06-M10-05"] >= 3, stats.rules
    else:
        assert not stats.rules["EXP-01-06-M10-04"] and stats.events["investment-declined"] >= 3


@pytest.mark.parametrize(
    ("dropped", "message"),
    [
        ("EXP-01-06-M10-04", "measure-applied without an effect in force"),  # the additional Resource unpaid
        ("EXP-01-06-M10-05", "BC-30"),  # paid, but the exchange not resolved by Supplemental Budget
    ],
)
def test_bc30_EXP_01_06_M10_an_exchange_under_collective_bargaining_needs_both_events(
    dropped: str, message: str
) -> None:
    """Drop one event of a Supplemental Budget exchange (its pay or its measure-applied): the tracker objects."""
    config = RulesConfig.preset("exp01-4p")
    game = Game.new(config, 15)  # the seeker's first game with a Supplemental Budget exchange
    tracker = Tracker(game)
    rng = random.Random(15)
    while not game.is_terminal():
        seen = len(game.events)
        game.apply(supplemental_budget_seeker(game, game.legal_actions(), rng))
        new = enumerate(game.events[seen:], seen)
        extra = [i for i, e in new if e["rule"] == dropped and e["type"] in ("pay", "measure-applied")]
        if extra:
            del game.events[extra[0]]
            with pytest.raises(InvariantError, match=message):
                tracker.process()
            return
        tracker.process()
        tracker.check()
    raise AssertionError("no Supplemental Budget exchange in game 15")


def test_determinism_replay_detects_a_divergence() -> None:
    game, _ = _midgame(steps=40)
    history = []  # replaying no action from the same seed cannot reach the mid-game state
    with pytest.raises(InvariantError, match="replay"):
        check_replay(game, 3, history)


# ---------------------------------------------------------------------------- API checks on one position


@pytest.mark.parametrize("preset", ["core-2p", "core-5p", "core-4p-hex", "exp01-6p", "exp01-v1.3-4p"])
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
