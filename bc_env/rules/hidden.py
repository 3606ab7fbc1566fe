"""Re-sampling hidden information for search (RULINGS R19): a determinization of a game from one player's view.

RULINGS R19: the order of the tile DrawPile and of each MeasureDrawPile is hidden; everything else is public (the
Measure hands are taken from face-up OpenMeasures, so they are known to all). :func:`resample_hidden` returns a
clone in which every hidden order is shuffled uniformly (every order of the same cards is equally likely, which is
exactly the set of states consistent with what any player has seen: nobody has seen a face-down card) and the
game's own random number generator is re-seeded, so that future shuffles (a MeasureRecyclePile becoming a new
draw pile) are hidden too. The observer's observation (``bc_env.encoding``) and every public field of
``to_dict`` are unchanged.

``rng`` is a :class:`random.Random`. Only its ``getrandbits`` is used (stable across Python versions for a given
seed): it seeds one engine :class:`~bc_env.rules.rng.Rng` (SplitMix64, the same on every machine) that does the
shuffles, and one more 64-bit draw re-seeds the clone's game RNG. Expansions re-sample their own hidden zones in
:meth:`~bc_env.rules.expansions.base.Expansion.resample_hidden`, which gets that engine ``Rng``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .errors import BalanceControlError
from .rng import Rng

if TYPE_CHECKING:
    from .game import Game


def resample_hidden(game: Game, observer: int, rng: random.Random) -> Game:
    """A clone of ``game`` with what ``observer`` cannot see re-sampled uniformly (RULINGS R19); ``game`` is
    unchanged. ``observer`` is a seat (``0 <= observer < game.num_players``), ``rng`` a :class:`random.Random`."""
    if isinstance(observer, bool) or not isinstance(observer, int) or not 0 <= observer < game.num_players:
        raise BalanceControlError(f"observer must be a seat 0..{game.num_players - 1}, got {observer!r}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
    g = game.clone()
    shuffler = Rng.from_seed(rng.getrandbits(64))
    if g.set_aside:  # design option equal_turns (docs/rulings.md BC-67): which tiles lie face down is hidden too
        hidden = g.draw_pile + g.set_aside
        shuffler.shuffle(hidden)
        g.draw_pile, g.set_aside = hidden[: len(g.draw_pile)], hidden[len(g.draw_pile) :]
    else:
        shuffler.shuffle(g.draw_pile)  # CORE: the DrawPile's order (the drawn tile is face up: public)
    for ex in g.expansions:
        ex.resample_hidden(g, observer, shuffler)
    g.rng = Rng.from_seed(rng.getrandbits(64))  # future shuffles are hidden too
    return g


__all__ = ["resample_hidden"]
