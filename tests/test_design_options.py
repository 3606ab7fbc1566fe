"""The design options of issue 29 (docs/rulings.md BC-67): not part of the printed rules, off by default, each a
RulesConfig field. Defaults leave every game, state and digest as it was (the golden playthroughs, perft counts
and encoding digests are unchanged); set, each does what it says and the invariant harness still holds."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from invariants import run_checked_game

from bc_env.rules import ConfigError, Game, RulesConfig, StateError


def _play(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_bc67_the_options_are_off_by_default_and_not_written_to_the_state() -> None:
    cfg = RulesConfig.preset("core-2p")
    assert (cfg.influence_cap, cfg.equal_turns, cfg.tie_break) == (None, False, "shared")
    data = Game.new(cfg, seed=3).to_dict()
    assert not {"influence_cap", "equal_turns", "tie_break"} & set(data["config"])
    assert "set_aside" not in data


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("influence_cap", 3, "influence_cap must be in 4..20, got 3"),
        ("influence_cap", "7", "influence_cap must be an integer"),
        ("equal_turns", 1, "equal_turns must be true or false"),
        ("tie_break", "coin", "tie_break must be one of 'shared', 'resources', got 'coin'"),
    ],
)
def test_bc67_bad_values_name_the_field(field: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RulesConfig(**{field: value})


def test_bc67_influence_cap_caps_supply_plus_board_in_play() -> None:
    cfg = RulesConfig.preset("core-2p").replace(influence_cap=5)
    assert cfg.cap == 5 and RulesConfig.preset("core-6p").cap == 8 and RulesConfig.preset("core-4p").cap == 7
    game = Game.new(cfg, seed=11)
    assert game.cap == 5
    rng = random.Random(11)
    peak = 0
    while not game.is_terminal():
        game.apply(rng.choice(game.legal_actions()))
        peak = max(peak, *(s + b for s, b in zip(game.supply, game.on_board)))
    assert peak == 5  # reached, never passed (RULINGS R12 with the option's value)
    assert max(game.on_board) <= 5
    assert Game.from_dict(game.to_dict()).cap == 5


@pytest.mark.parametrize("preset", ["core-2p", "core-3p", "core-4p", "core-6p", "exp01-4p", "all-6p"])
def test_bc67_equal_turns_gives_every_player_the_same_number_of_turns(preset: str) -> None:
    cfg = RulesConfig.preset(preset).replace(equal_turns=True)
    plain = Game.new(RulesConfig.preset(preset), seed=5)
    game = Game.new(cfg, seed=5)
    n = cfg.players
    pile = len(plain.draw_pile) + 1  # the start player's first tile is drawn at Setup
    assert len(game.set_aside) == pile % n
    assert (len(game.draw_pile) + 1) % n == 0
    # the same shuffle: the set-aside tiles are the bottom of the pile the printed game would draw last
    assert game.set_aside + game.draw_pile == plain.draw_pile
    _play(game, 5)
    turns = Counter(e["player"] for e in game.events if e["type"] == "draw")
    discards = sum(1 for e in game.events if e["type"] == "discard")
    if not discards:  # a discarded unplaceable tile costs its player a draw, not a turn (BC-67)
        assert len(set(turns.values())) == 1, turns


def test_bc67_equal_turns_state_round_trip_hidden_tiles_and_conservation() -> None:
    cfg = RulesConfig.preset("core-2p").replace(equal_turns=True)
    game = Game.new(cfg, seed=2)
    data = game.to_dict()
    assert data["config"]["equal_turns"] is True and data["set_aside"] == game.set_aside != []
    assert Game.from_dict(data).to_dict() == data
    resampled = game.resample_hidden(0, random.Random(1))
    assert sorted(resampled.draw_pile + resampled.set_aside) == sorted(game.draw_pile + game.set_aside)
    assert len(resampled.set_aside) == len(game.set_aside)
    plain = Game.new(RulesConfig.preset("core-2p"), seed=2).to_dict()
    with pytest.raises(StateError, match="only a configuration with equal_turns sets tiles aside"):
        Game.from_dict({**plain, "set_aside": []})
    missing = {k: v for k, v in data.items() if k != "set_aside"}
    with pytest.raises(StateError, match="set_aside"):
        Game.from_dict(missing)
    run_checked_game(cfg, 2)  # every tile in exactly one zone (CORE-01-00), the set-aside pile included


def test_bc67_tie_break_by_resources_in_the_personal_supply() -> None:
    cfg = RulesConfig.preset("core-2p").replace(tie_break="resources")
    decided = 0
    for seed in range(12):
        game = _play(Game.new(cfg, seed=seed), seed)
        plain = _play(Game.new(RulesConfig.preset("core-2p"), seed=seed), seed)
        assert plain.on_board == game.on_board  # the option changes no play, only the result
        top = [p for p in range(2) if game.on_board[p] == max(game.on_board)]
        held = [sum(game.res[p * game.num_resorts : (p + 1) * game.num_resorts]) for p in range(2)]
        expected = [p for p in top if held[p] == max(held[q] for q in top)]
        assert game.winners() == expected
        assert game.events[-1]["winners"] == expected
        assert sum(game.returns()) == pytest.approx(0.0)
        decided += len(top) == 2 and len(expected) == 1
    assert decided > 0  # random 2-player games nearly always end tied: the option decides some of them
    run_checked_game(cfg, 0)
