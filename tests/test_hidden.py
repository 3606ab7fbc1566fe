"""Game.resample_hidden (RULINGS R19): consistency with what the observer has seen, and uniformity."""

from __future__ import annotations

import itertools
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


def _chi2(counts: Counter, cells: list, runs: int) -> float:
    expected = runs / len(cells)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


def _position_chi2(orders: list[tuple[int, ...]], item: int) -> tuple[float, float]:
    """Chi-square of the position of ``item`` over ``orders`` and its p = 1e-4 limit."""
    size = len(orders[0])
    counts = Counter(order.index(item) for order in orders)
    return _chi2(counts, list(range(size)), len(orders)), _chi2_limit(size - 1)


def _permutation_chi2(orders: list[tuple[int, ...]]) -> tuple[float, float]:
    """Chi-square of the whole order over all n! permutations of a small pile, and its p = 1e-4 limit."""
    cells = list(itertools.permutations(sorted(orders[0])))
    return _chi2(Counter(orders), cells, len(orders)), _chi2_limit(len(cells) - 1)


def _pair_chi2(orders: list[tuple[int, ...]], reference: list[int]) -> tuple[float, float]:
    """How often each item precedes its successor in ``reference``: a shuffle puts it first half the time. The
    sum of the pairs' z-squares (each ~ chi-square(1)) and its p = 1e-4 limit. A random rotation keeps almost
    every neighbouring pair in order, so this fails it on a pile of any size."""
    runs, pairs = len(orders), list(itertools.pairwise(reference))
    stat = 0.0
    for a, b in pairs:
        first = sum(order.index(a) < order.index(b) for order in orders)
        stat += (first - runs / 2) ** 2 / (runs / 4)
    return stat, _chi2_limit(len(pairs))


def _small_pile_game() -> Game:
    """A core-2p game played until five tiles are left in its DrawPile (5! = 120 orders)."""
    game = Game.new("core-2p", 0)
    bot = load("random", seed=0)
    while len(game.draw_pile) > 5:
        game.apply(bot.act(game))
    assert not game.is_terminal()
    return game


def _rotations(pile: list[int], runs: int, seed: int) -> list[tuple[int, ...]]:
    """A broken shuffle that is uniform per position: a random rotation of the pile."""
    rng = random.Random(seed)
    out = []
    for _ in range(runs):
        k = rng.randrange(len(pile))
        out.append(tuple(pile[k:] + pile[:k]))
    return out


def test_tile_order_is_uniform_over_whole_permutations() -> None:
    """RULINGS R19: every order of the hidden pile is equally likely. Chi-square over the 120 orders of a
    five-tile DrawPile and over the relative order of neighbouring tiles of a full pile (seeded: cannot flake)."""
    game = _small_pile_game()
    rng = random.Random(123)
    orders = [tuple(game.resample_hidden(1, rng).draw_pile) for _ in range(40 * 120)]
    stat, limit = _permutation_chi2(orders)
    assert stat < limit, (stat, limit)
    full = _played("core-2p", 11, 20)
    rng = random.Random(7)
    orders = [tuple(full.resample_hidden(0, rng).draw_pile) for _ in range(400)]
    stat, limit = _pair_chi2(orders, full.draw_pile)
    assert stat < limit, (stat, limit)


def test_the_uniformity_checks_catch_a_shuffle_that_is_uniform_per_position() -> None:
    """A random rotation puts every tile at every position equally often (the per-position check passes it),
    but only n of the n! orders ever occur and neighbours stay neighbours: both whole-order checks fail it."""
    pile = _small_pile_game().draw_pile
    rotated = _rotations(pile, 40 * 120, seed=1)
    stat, limit = _position_chi2(rotated, pile[0])
    assert stat < limit, "the per-position check cannot see a rotation"
    stat, limit = _permutation_chi2(rotated)
    assert stat > 10 * limit, (stat, limit)
    full = _played("core-2p", 11, 20).draw_pile
    stat, limit = _pair_chi2(_rotations(full, 400, seed=2), full)
    assert stat > 10 * limit, (stat, limit)


def test_tile_position_is_uniform() -> None:
    """Chi-square on the position of one hidden tile over many seeded resamples (deterministic: cannot flake)."""
    game = _played("core-2p", 11, 20)
    rng = random.Random(123)
    orders = [tuple(game.resample_hidden(1, rng).draw_pile) for _ in range(60 * len(game.draw_pile))]
    stat, limit = _position_chi2(orders, game.draw_pile[0])
    assert stat < limit, (stat, limit)


def test_measure_order_is_uniform() -> None:
    """Position of one card and relative order of neighbouring cards of the largest MeasureDrawPile."""
    game = _played("exp01-2p", 4, 10)
    deck = max(range(len(game.ext["measures"].draw)), key=lambda d: len(game.ext["measures"].draw[d]))
    pile = game.ext["measures"].draw[deck]
    assert len(pile) >= 3
    rng = random.Random(9)
    orders = [tuple(game.resample_hidden(0, rng).ext["measures"].draw[deck]) for _ in range(100 * len(pile))]
    stat, limit = _position_chi2(orders, pile[0])
    assert stat < limit, (stat, limit)
    stat, limit = _pair_chi2(orders, pile)
    assert stat < limit, (stat, limit)
