"""Game.resample_hidden (RULINGS R19): consistency with what the observer has seen, and uniformity."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from bc_env.encoding import get_encoder
from bc_env.rules import BalanceControlError, Game
from policies import load


def _played(config: str, seed: int, decisions: int) -> Game:
    game = Game.new(config, seed)
    bot = load("random", seed=seed)
    for _ in range(decisions):
        game.apply(bot.act(game))
    return game


def _public(game: Game) -> dict:
    """``to_dict`` without what RULINGS R19 hides: the pile orders (kept as multisets) and the RNG state."""
    data = game.to_dict()
    data.pop("rng")
    data["draw_pile"] = sorted(data["draw_pile"])
    for zones in data.get("measures", {}).get("decks", {}).values():
        zones["draw_pile"] = sorted(zones["draw_pile"])
    return data


def _chi2_limit(df: int, z: float = 3.719) -> float:
    """The chi-square quantile for p = 1e-4 (Wilson-Hilferty), so a seeded test is far from its edge."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize(("config", "decisions"), [("core-2p", 40), ("core-4p", 25), ("exp01-2p", 60)])
def test_observation_and_public_state_unchanged(config: str, decisions: int) -> None:
    game = _played(config, 5, decisions)
    before = game.to_dict()
    enc = get_encoder(game.config)
    rng = random.Random(1)
    for _ in range(5):
        sample = game.resample_hidden(game.current_player, rng)
        assert _public(sample) == _public(game)
        for p in range(game.num_players):
            assert (enc.encode(sample, p) == enc.encode(game, p)).all()
        assert sample.legal_actions() == game.legal_actions()
    assert game.to_dict() == before  # the original is untouched


def test_hidden_orders_and_future_are_resampled() -> None:
    game = _played("exp01-2p", 3, 30)
    sample = game.resample_hidden(0, random.Random(2))
    assert sample.draw_pile != game.draw_pile and sorted(sample.draw_pile) == sorted(game.draw_pile)
    assert any(len(z) > 1 for z in game.ext["measures"].draw)
    assert [sorted(z) for z in sample.ext["measures"].draw] == [sorted(z) for z in game.ext["measures"].draw]
    assert sample.ext["measures"].draw != game.ext["measures"].draw
    assert sample.to_dict()["rng"] != game.to_dict()["rng"]  # future shuffles are hidden too
    # Same rng seed, same sample (deterministic); the game goes on from the sample.
    again = game.resample_hidden(0, random.Random(2))
    assert again.to_dict() == sample.to_dict()
    bot = load("random", seed=0)
    while not sample.is_terminal():
        sample.apply(bot.act(sample))


def test_bad_arguments() -> None:
    game = Game.new("core-2p", 0)
    with pytest.raises(BalanceControlError, match="observer"):
        game.resample_hidden(2, random.Random(0))
    with pytest.raises(TypeError, match="random.Random"):
        game.resample_hidden(0, 7)


def test_tile_position_is_uniform() -> None:
    """Chi-square on the position of one hidden tile over many seeded resamples (deterministic: cannot flake)."""
    game = _played("core-2p", 11, 20)
    tile = game.draw_pile[0]
    size = len(game.draw_pile)
    rng = random.Random(123)
    runs = 60 * size
    counts = Counter(game.resample_hidden(1, rng).draw_pile.index(tile) for _ in range(runs))
    expected = runs / size
    chi2 = sum((counts.get(i, 0) - expected) ** 2 / expected for i in range(size))
    assert chi2 < _chi2_limit(size - 1), chi2
    # And the test would catch a biased shuffle: the unshuffled pile is maximally far from uniform.
    assert (runs - expected) ** 2 / expected > _chi2_limit(size - 1)


def test_measure_position_is_uniform() -> None:
    game = _played("exp01-2p", 4, 10)
    deck = max(range(len(game.ext["measures"].draw)), key=lambda d: len(game.ext["measures"].draw[d]))
    pile = game.ext["measures"].draw[deck]
    card, size = pile[0], len(pile)
    assert size >= 3
    rng = random.Random(9)
    runs = 100 * size
    counts = Counter(game.resample_hidden(0, rng).ext["measures"].draw[deck].index(card) for _ in range(runs))
    expected = runs / size
    chi2 = sum((counts.get(i, 0) - expected) ** 2 / expected for i in range(size))
    assert chi2 < _chi2_limit(size - 1), chi2
