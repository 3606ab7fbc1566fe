"""Endgame search: expectimax over the tile draws and the actions of the last turns (issue 27 item 2).

:class:`EndgameSearch` searches a position to a fixed depth (in decisions) and returns a value per player:

* **Decision nodes** belong to ``game.current_player`` (RULINGS R23: the owner of the pending decision). Its
  candidate actions come from ``candidates(game)`` (default: the expert bot's look-ahead values, the best
  ``width``, and the expert's own choice always, which includes its forced gate-opener and Hotspot-closing
  moves; ``width=0``: every legal action). With two players the game is zero-sum (``game.returns()``, RULINGS R9),
  so the search is a minimax on the root player's value with **alpha-beta** pruning; with more players each
  player maximises its own component (max-n, no pruning).
* **Chance nodes** are the tile draws. RULINGS R19: only the order of the DrawPile is hidden, its composition is
  public, so when an action ends a turn the next tile is any tile of the pile with equal probability. The
  search groups the pile's tiles into **kinds** (tiles whose rules are the same: kind, resort, value,
  Grassroots text and special text; a Hotspot's printed label changes nothing, ADD56-01-01-14..16) and
  branches once per kind, weighted by its count, by moving one tile of that kind to the top of the pile before
  the action is applied. With two players the chance nodes prune with **Star1** (Ballard 1983): the values lie
  in ``[-1, 1]``, so a chance node stops as soon as the weighted sum of its searched children bounds it outside
  the window. Only the first draw of a turn is a chance node (a tile with no legal cell is discarded and the
  next one drawn, CORE-01-04-06/07: those draws follow the determinized order).
* **Leaves**: a finished game counts ``game.returns()``; a position at depth 0 counts ``leaf(game)`` (default
  the heuristic's static score per player, ``tanh((own - best other) / 3)``; :mod:`policies.value` gives a
  trained value network). Values lie in ``[-1, 1]``.
* **Budget**: iterative deepening, one decision deeper per iteration, up to ``max_depth``, while the number of
  expanded nodes stays under ``nodes`` (an iteration that runs out is abandoned and the last finished one
  decides). Counting nodes instead of time keeps the search deterministic for a seed on every machine.

What else is hidden (the Measure draw piles of EXP-02, the game RNG) is fixed once per decision by one seeded
``game.resample_hidden(me, rng)``; the DrawPile's order below its top only matters for discards.

:class:`EndgamePolicy` (``policies.load("endgame")``, options after colons like ``mcts``:
``"endgame:rounds=6:width=3:nodes=300:base=expert:leaf=eval"``) plays the choice of its ``base`` bot (default the
expert; a shipped trained bot such as ``ppo-core-2p``) until the endgame window (the player's remaining turns
``game.turns_left(me) <= rounds``; default 6 with two players, 9 with more) and searches from there, the base's
choice and the expert's best ``width`` actions at the root; it keeps the base's choice unless the search finds
an action better by more than ``1e-9``. ``leaf=value``: the shipped value network of the game's configuration
(:mod:`policies.value`) instead of the static score. ``nodes`` is the budget (positions created per decision),
``max_depth`` the deepest iteration (decisions); ``exact=1``: the base's choice is overruled only by an iteration
that reached the end of the game on every line (no estimated leaf: the expectimax value over the candidates is
exact), never by a depth-limited one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bc_env.rules import BalanceControlError, Game, IllegalActionError

from .expert import ExpertPolicy
from .heuristic import player_scores
from .options import options_spec, parse_options, with_options

#: The candidate actions of a decision node, best first.
Candidates = Callable[[Game], list[int]]
#: A leaf evaluation: a game (not over) -> a value per player, each in [-1, 1].
Leaf = Callable[[Game], list[float]]

LOW, HIGH = -1.0, 1.0  # the bounds of every value (returns, leaf evaluations)


class EndgameOptionError(BalanceControlError):
    """An endgame option is unknown or out of range (the message names it)."""


def tile_kind(game: Game, tile: int) -> tuple[int, int, int, int, str]:
    """The rules-relevant identity of a tile: tiles of one kind are interchangeable (the label is not part of it,
    ADD56-01-01-14..16)."""
    s = game.catalogue[tile]
    return (s.kind, s.resort, s.value, s.text, s.special)


def pile_kinds(game: Game) -> list[tuple[int, int]]:
    """The DrawPile by kind: ``(index of the first tile of the kind in the pile, count)``, in order of first
    appearance from the top of the pile (deterministic for a given pile)."""
    pile = game.draw_pile
    first: dict[tuple[int, int, int, int, str], int] = {}
    count: dict[tuple[int, int, int, int, str], int] = {}
    for i in range(len(pile) - 1, -1, -1):
        k = tile_kind(game, pile[i])
        if k not in first:
            first[k] = i
            count[k] = 0
        count[k] += 1
    return [(first[k], count[k]) for k in first]


def static_leaf(game: Game, scale: float = 3.0) -> list[float]:
    """The heuristic's static score per player, ``tanh((own - best other) / scale)``."""
    s = player_scores(game)
    n = len(s)
    return [math.tanh((s[p] - max(s[q] for q in range(n) if q != p)) / scale) for p in range(n)]


class BudgetExceeded(Exception):
    """The node budget of the search ran out (the iteration in progress is abandoned)."""


class EndgameSearch:
    """Depth-limited expectimax over decisions and tile draws (see the module docstring)."""

    def __init__(self, candidates: Candidates, leaf: Leaf = static_leaf, nodes: int = 0) -> None:
        self.candidates = candidates
        self.leaf = leaf
        self.budget = nodes  # 0: no limit
        self.nodes = 0  # positions created (one per action applied): the budget's unit
        self.leaves = 0  # positions valued by ``leaf`` (0 after a search: every line reached the end of the game)

    # ------------------------------------------------------------------ public
    def values(self, game: Game, depth: int, actions: list[int] | None = None) -> dict[int, float]:
        """The value of each root action (``actions``, default the candidates) for the player to move, at ``depth``
        decisions: exact for the best action; with two players the others are upper bounds (alpha-beta)."""
        me = game.current_player
        if me is None:
            raise IllegalActionError("the game is over: no decision to take")
        out: dict[int, float] = {}
        two = game.num_players == 2
        alpha = LOW - 1.0
        for a in self.candidates(game) if actions is None else actions:
            v = self._after(game, a, depth - 1, me, alpha if two else LOW - 1.0, HIGH + 1.0)
            out[a] = v[me]
            if v[me] > alpha:
                alpha = v[me]
        return out

    def value(self, game: Game, depth: int) -> list[float]:
        """The expectimax value of ``game`` per player at ``depth`` decisions (two players: exact minimax)."""
        root = game.current_player
        return self._node(game, depth, 0 if root is None else root, LOW - 1.0, HIGH + 1.0)

    # ------------------------------------------------------------------ the recursion
    def _count(self) -> None:
        self.nodes += 1
        if self.budget and self.nodes > self.budget:
            raise BudgetExceeded

    def _node(self, g: Game, depth: int, root: int, alpha: float, beta: float) -> list[float]:
        """Value vector of ``g``; with two players ``alpha``/``beta`` bound the root player's component (a value
        outside the window is only a bound: fail-hard)."""
        if g.is_terminal():
            return g.returns()
        if depth <= 0:
            self.leaves += 1
            return self.leaf(g)
        p = g.current_player
        assert p is not None
        two = g.num_players == 2
        best: list[float] | None = None
        for a in self.candidates(g):
            v = self._after(g, a, depth - 1, root, alpha, beta)
            if best is None or v[p] > best[p]:
                best = v
            if two:
                if p == root:
                    alpha = max(alpha, v[root])
                else:
                    beta = min(beta, v[root])
                if alpha >= beta:
                    break
        assert best is not None
        return best

    def _after(self, g: Game, a: int, depth: int, root: int, alpha: float, beta: float) -> list[float]:
        """The value after action ``a`` in ``g``: a chance node over the kinds of the next tile if ``a`` ends the
        turn (Star1 with two players), else the next decision node."""
        self._count()
        child = g.clone()
        before = len(child.draw_pile)
        child.apply(a)
        if len(child.draw_pile) == before or before <= 1:  # no draw, or only one tile could be drawn
            return self._node(child, depth, root, alpha, beta)
        kinds = pile_kinds(g)
        if len(kinds) == 1:
            return self._node(child, depth, root, alpha, beta)
        total = float(before)
        n = g.num_players
        two = n == 2
        acc = [0.0] * n
        seen = 0.0
        for i, (index, count) in enumerate(kinds):
            prob = count / total
            if i == 0 and index == before - 1:
                c = child  # the top tile is already of the first kind
            else:
                self._count()
                c = g.clone()
                pile = c.draw_pile
                pile[index], pile[-1] = pile[-1], pile[index]
                c.apply(a)
            if two:
                rest = 1.0 - seen - prob
                # Star1: the child window that keeps the chance node's value inside (alpha, beta).
                lo = (alpha - acc[root] - HIGH * rest) / prob
                hi = (beta - acc[root] - LOW * rest) / prob
                v = self._node(c, depth, root, max(lo, LOW - 1.0), min(hi, HIGH + 1.0))
            else:
                v = self._node(c, depth, root, alpha, beta)
            for q in range(n):
                acc[q] += prob * v[q]
            seen += prob
            if two:
                rest = 1.0 - seen
                upper = acc[root] + HIGH * rest
                lower = acc[root] + LOW * rest
                if upper <= alpha or lower >= beta:  # the rest cannot bring the value back into the window
                    bound = upper if upper <= alpha else lower
                    return [bound, -bound] if root == 0 else [-bound, bound]
        return acc


@dataclass(frozen=True)
class EndgameConfig:
    """The endgame bot's settings (see the module docstring); ``rounds=0``: 6 with two players, 9 with more."""

    rounds: int = 0
    width: int = 3
    nodes: int = 300
    max_depth: int = 12
    leaf: str = "eval"
    base: str = "expert"
    exact: int = 0

    def check(self) -> EndgameConfig:
        for name, lo, hi in (
            ("rounds", 0, 1000),
            ("width", 0, 1000),
            ("nodes", 1, 10_000_000),
            ("max_depth", 1, 200),
            ("exact", 0, 1),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise EndgameOptionError(f"endgame option {name} must be an integer {lo}..{hi}, got {value!r}")
        if not isinstance(self.leaf, str) or not self.leaf:
            raise EndgameOptionError(f"endgame option leaf must be eval or value, got {self.leaf!r}")
        if not isinstance(self.base, str) or not self.base or self.base.startswith(("endgame", "champion", "mcts")):
            raise EndgameOptionError(f"endgame option base must be a bot without search, got {self.base!r}")
        if self.leaf not in ("eval", "value"):
            raise EndgameOptionError(f"endgame option leaf must be eval or value, got {self.leaf!r}")
        return self

    def spec(self) -> str:
        """The options as ``parse`` reads them: every option that differs from its default."""
        return options_spec(self)

    @classmethod
    def parse(cls, text: str) -> EndgameConfig:
        """``"rounds=6:width=3"`` -> a checked config (``EndgameOptionError`` names a bad option)."""
        return parse_options(cls, text, "endgame", EndgameOptionError).check()


class EndgamePolicy:
    """The expert until the endgame window, then :class:`EndgameSearch` (deterministic for its seed)."""

    name = "endgame"

    def __init__(self, seed: int | None = None, config: EndgameConfig | None = None, **options: Any) -> None:
        self.config = with_options(EndgameConfig, config, options, "endgame", EndgameOptionError).check()
        self.rng = random.Random(seed)
        base_seed = self.rng.getrandbits(32)
        if self.config.base == "expert":
            self.base: Any = ExpertPolicy(seed=base_seed)  # the bot's own play outside the search
        else:
            from . import load

            self.base = load(self.config.base, seed=base_seed)
        self._ranker = ExpertPolicy(seed=self.rng.getrandbits(32))  # candidates inside the search (its own memory)
        self._values: dict[int, Any] = {}
        spec = self.config.spec()
        self.name = "endgame" + (":" + spec if spec else "")
        #: Statistics of the last decision: the depth of the last finished iteration, the nodes expanded, whether an
        #: iteration reached the end of the game on every line (exact) and the base bot's choice.
        self.last_depth = 0
        self.last_nodes = 0
        self.last_exact = False
        self.last_choice = -1

    def window(self, game: Game) -> int:
        return self.config.rounds or (6 if game.num_players == 2 else 9)

    def _leaf(self, game: Game) -> Leaf:
        if self.config.leaf == "eval":
            return static_leaf
        n = game.num_players
        net = self._values.get(n)
        if net is None:
            from .value import load_value

            net = self._values[n] = load_value(game)
        return net.values

    def candidates(self, game: Game) -> list[int]:
        legal = game.legal_actions()
        width = self.config.width
        if len(legal) == 1 or width == 0:
            return legal
        values = self._ranker.action_values(game)
        order = sorted(values, key=lambda a: (-values[a], a))[:width]
        choice = self._ranker.act(game)
        if choice in order:
            order.remove(choice)
        return [choice, *order]

    def act(self, game: Game) -> int:
        me = game.current_player
        if me is None:
            raise IllegalActionError("the game is over: no decision to take")
        choice = self.base.act(game)  # always asked: the expert keeps its plans up to date
        legal = game.legal_actions()
        self.last_depth = self.last_nodes = 0
        self.last_exact = False
        self.last_choice = choice
        if len(legal) == 1 or game.turns_left(me) > self.window(game):
            return choice
        g = game.resample_hidden(me, self.rng)
        search = EndgameSearch(self.candidates, self._leaf(game), self.config.nodes)
        roots = self.candidates(g)
        if choice in roots:
            roots.remove(choice)
        roots.insert(0, choice)
        best = choice
        for depth in range(1, self.config.max_depth + 1):
            search.leaves = 0
            try:
                values = search.values(g, depth, roots)
            except BudgetExceeded:
                break
            self.last_depth = depth
            self.last_exact = search.leaves == 0
            if self.config.exact and search.leaves:  # ``exact``: only a search to the end may overrule the base
                continue
            top = values[choice]
            best = choice
            for a in roots:
                if values[a] > top + 1e-9:
                    best, top = a, values[a]
            if search.leaves == 0:  # every line reached the end of the game: deeper changes nothing
                break
        self.last_nodes = search.nodes
        return best


__all__ = [
    "BudgetExceeded",
    "EndgameConfig",
    "EndgameOptionError",
    "EndgamePolicy",
    "EndgameSearch",
    "pile_kinds",
    "static_leaf",
    "tile_kind",
]
