"""A search bot: multi-player Monte Carlo tree search with determinization (``policies.load("mcts")``).

Every simulation starts from one determinization of the position: ``game.resample_hidden(me, rng)`` re-samples
what the player to act (``me``) cannot see (RULINGS R19: the order of the tile DrawPile and of the Measure draw
piles; the game RNG is re-seeded too). The simulation then walks down one tree shared by all determinizations:

* a node is one public history: the actions taken and the chance outcomes they revealed (the tiles drawn and
  the Measures turned face up, read from ``game.events``), so the positions of a node look alike to everybody;
* each node keeps, per action, the visit count and the *vector* of summed returns, one per player; the node
  maximises the return of the player who owns its decision (``game.current_player``: RULINGS R23 decisions by
  a non-active player included) with PUCT: ``Q_p(a) + c * P(a) * sqrt(N) / (1 + N(a))``; an unvisited action
  counts with the node's own mean return for that player (first-play urgency);
* a new node's priors come from the prior (below) and its value from the leaf evaluation; a terminal position
  counts with ``game.returns()`` (RULINGS R9: the k winners share +1, the others -1).

The bot plays the most visited root action. Pluggable parts (options after ``mcts:``, separated by colons, so
that a bot list stays comma-separated: ``balance-control tournament --bots mcts:sims=400:prior=expert,heuristic``):

* ``prior``: ``expert`` (default: softmax of the expert bot's one-step look-ahead values, ``policies/expert.py``,
  at temperature ``temp``, over its candidate actions; the pruned actions get no prior and are not searched),
  ``heuristic`` (the same with the heuristic bot's values), ``uniform`` (every legal action alike), or the
  name/path of an exported policy (softmax of its logits);
* ``greedy`` (default 0): the share of the prior moved onto the expert bot's own choice (``ExpertPolicy.act``,
  which includes its forced gate-opener and Hotspot-closing moves that its look-ahead values do not show);
* ``leaf``: ``eval`` (default: the heuristic's static score of every player, ``tanh((own - best other) /
  scale)``), ``playout`` (the expert bot plays every seat for ``depth`` decisions, 0 = to the end of the game,
  then the game's returns if it ended, else ``eval``), ``rollout`` (a uniformly random playout to the end of
  the game), or ``value`` (the value head of the exported policy given as ``prior``, asked once per player;
  see ``policies.neural``);
* budget: ``sims`` (simulations per decision, default 200), ``steps`` (a cap on the playout decisions of one
  search, 0 = none; a deterministic stand-in for time with ``leaf=playout``, at least two simulations run;
  with ``min_sims`` > 0, a decision where fewer than ``min_sims`` playouts to the end would fit (by the pace of the
  last finished playout: decisions per round, and its last round) is not searched and plays the prior's
  favourite, so the search is spent late in the game, where playouts to the end are short) or
  ``ms`` (wall-clock milliseconds per decision, then ``sims`` is only a cap). Without ``ms`` the bot is
  deterministic for its seed; with ``ms`` the number of simulations depends on the machine.

``policies.load("mcts:sims=400:leaf=rollout", seed=1)`` or ``MCTSPolicy(seed=1, sims=400, leaf="rollout")``.
Only the public Game API is used (``clone``, ``resample_hidden``, ``apply``, ``legal_actions``, ``events``, ...).
The search statistics of the last decision (``last_visits``, ``last_simulations``) serve expert iteration
(``training/expert_iteration.py``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bc_env.rules import BalanceControlError, Game, IllegalActionError

from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy, player_scores
from .options import options_spec, parse_options, with_options

#: A prior: the game (a decision pending) and its legal actions -> {action: probability} (a subset may be given).
Prior = Callable[[Game, list[int]], dict[int, float]]
#: A leaf evaluation: the game (not over) -> an estimated return per player, each in [-1, 1].
LeafEval = Callable[[Game], list[float]]


_BUILTIN_PRIORS = ("heuristic", "expert", "uniform")
_LEAVES = ("eval", "playout", "rollout", "value")


class MCTSOptionError(BalanceControlError):
    """A search option is unknown or out of range (the message names it)."""


@dataclass(frozen=True)
class MCTSConfig:
    """The search's settings (see the module docstring)."""

    sims: int = 200
    ms: float = 0.0
    c_puct: float = 1.5
    prior: str = "expert"
    leaf: str = "eval"
    temp: float = 0.1
    scale: float = 3.0
    depth: int = 0
    steps: int = 0
    min_sims: int = 0
    greedy: float = 0.0

    def check(self) -> MCTSConfig:
        if isinstance(self.sims, bool) or not isinstance(self.sims, int) or not 1 <= self.sims <= 10_000_000:
            raise MCTSOptionError(f"mcts option sims must be an integer 1..10000000, got {self.sims!r}")
        for name in ("depth", "steps", "min_sims"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000_000:
                raise MCTSOptionError(f"mcts option {name} must be an integer 0..100000000, got {value!r}")
        for name in ("ms", "c_puct", "temp", "scale", "greedy"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise MCTSOptionError(f"mcts option {name} must be a number, got {value!r}")
        if self.ms < 0 or self.c_puct < 0 or self.temp <= 0 or self.scale <= 0:
            raise MCTSOptionError("mcts options: ms and c_puct must be >= 0, temp and scale > 0")
        if not 0 <= self.greedy <= 1:
            raise MCTSOptionError(f"mcts option greedy must be in [0, 1], got {self.greedy!r}")
        if self.leaf not in _LEAVES:
            raise MCTSOptionError(f"mcts option leaf must be {', '.join(_LEAVES)}, got {self.leaf!r}")
        if not isinstance(self.prior, str) or not self.prior:
            raise MCTSOptionError(f"mcts option prior must be heuristic, expert, uniform or a policy: {self.prior!r}")
        if self.leaf == "value" and self.prior in _BUILTIN_PRIORS:
            raise MCTSOptionError("mcts option leaf=value needs prior=<an exported policy with a value head>")
        return self

    def spec(self) -> str:
        """The options as ``parse`` reads them: ``sims`` and every option that differs from its default."""
        return options_spec(self, always=("sims",))

    @classmethod
    def parse(cls, text: str) -> MCTSConfig:
        """``"sims=400:leaf=rollout"`` -> a checked config (``MCTSOptionError`` names a bad option)."""
        return parse_options(cls, text, "mcts", MCTSOptionError).check()


class Node:
    """One public history: per-action visit counts and summed return vectors; children by (action, chance)."""

    __slots__ = ("player", "priors", "visits", "n", "w", "kids")

    def __init__(self) -> None:
        self.player = -1
        self.priors: dict[int, float] | None = None  # None: not expanded yet
        self.visits = 0
        self.n: dict[int, int] = {}
        self.w: dict[int, list[float]] = {}
        self.kids: dict[tuple[int, tuple[Any, ...]], Node] = {}


def _chance(events: list[dict[str, Any]]) -> tuple[Any, ...]:
    """What an action revealed by chance: the tiles drawn and the Measures turned face up (public events)."""
    return tuple(e["tile"] if e["type"] == "draw" else str(e["card"]) for e in events if e["type"] in _CHANCE)


_CHANCE = ("draw", "measure-refill")


def _softmax(values: dict[int, float], temp: float) -> dict[int, float]:
    best = max(values.values())
    ex = {a: math.exp((v - best) / temp) for a, v in values.items()}
    total = sum(ex.values())
    return {a: x / total for a, x in ex.items()}


class MCTSPolicy:
    """Determinized multi-player PUCT search (module docstring); deterministic for a seed with a ``sims`` budget."""

    name = "mcts"

    def __init__(self, seed: int | None = None, config: MCTSConfig | None = None, **options: Any) -> None:
        self.config = with_options(MCTSConfig, config, options, "mcts", MCTSOptionError).check()
        self.rng = random.Random(seed)
        bot = ExpertPolicy if self.config.prior == "expert" else HeuristicPolicy
        self._heuristic = bot(seed=self.rng.getrandbits(32))
        self._network: Any = None
        cfg = self.config
        if cfg.prior not in _BUILTIN_PRIORS:
            from . import load

            self._network = load(cfg.prior)
            if not hasattr(self._network, "logits"):
                raise MCTSOptionError(f"mcts prior {cfg.prior!r} is not a trained policy (an exported network)")
            if cfg.leaf == "value" and not getattr(self._network, "has_value", False):
                raise MCTSOptionError(f"mcts leaf=value: policy {cfg.prior!r} has no value head")
        builtin = {"heuristic": self._heuristic_prior, "expert": self._heuristic_prior, "uniform": self._uniform_prior}
        self.prior: Prior = builtin.get(cfg.prior, self._network_prior)
        leaves: dict[str, LeafEval] = {
            "eval": self._eval_leaf,
            "playout": self._playout_leaf,
            "rollout": self._rollout_leaf,
            "value": self._value_leaf,
        }
        self.leaf = leaves[cfg.leaf]
        # The expert that plays every seat in the playouts (one per seat: it remembers its own plans), and the one
        # whose own choice gets the ``greedy`` share of the prior (its forced opener / closing moves included).
        self._players: list[ExpertPolicy] = []
        self._steps = 0  # playout decisions of the current search (the ``steps`` budget)
        self._pace: tuple[float, int] | None = None  # decisions per round and last round of a finished playout
        self._chooser = ExpertPolicy(seed=self.rng.getrandbits(32)) if cfg.greedy > 0 else None
        self.name = "mcts:" + cfg.spec()
        #: Visit counts of the root actions at the last decision, and the simulations it ran (expert iteration).
        self.last_visits: dict[int, int] = {}
        self.last_simulations = 0

    # ------------------------------------------------------------------ priors and leaf evaluations
    def _uniform_prior(self, game: Game, legal: list[int]) -> dict[int, float]:
        return dict.fromkeys(legal, 1.0 / len(legal))

    def _heuristic_prior(self, game: Game, legal: list[int]) -> dict[int, float]:
        priors = _softmax(self._heuristic.action_values(game), self.config.temp)
        if self._chooser is not None:
            mix, choice = self.config.greedy, self._chooser.act(game)
            priors = {a: (1 - mix) * p for a, p in priors.items()}
            priors[choice] = priors.get(choice, 0.0) + mix
        return priors

    def _network_prior(self, game: Game, legal: list[int]) -> dict[int, float]:
        net = self._network
        logits = net.logits(net.observe(game, game.current_player))
        return _softmax({a: float(logits[a]) for a in legal}, 1.0)

    def _eval_leaf(self, game: Game) -> list[float]:
        s = player_scores(game)
        n, scale = len(s), self.config.scale
        return [math.tanh((s[p] - max(s[q] for q in range(n) if q != p)) / scale) for p in range(n)]

    def _playout_leaf(self, game: Game) -> list[float]:
        """The expert plays every seat for ``depth`` decisions (0: to the end), then the game's returns or ``eval``.
        ``game`` is the simulation's own determinized copy, so it is played on directly."""
        players, depth = self._players, self.config.depth
        while len(players) < game.num_players:
            players.append(ExpertPolicy(seed=self.rng.getrandbits(32)))
        steps, start = 0, game.round
        try:
            while not game.is_terminal():
                if depth and steps >= depth:
                    return self._eval_leaf(game)
                game.apply(players[game.current_player].act(game))
                steps += 1
            if game.round > start:  # the pace of a whole playout: decisions per round, and the last round
                self._pace = (steps / (game.round - start), game.round)
            return game.returns()
        finally:
            self._steps += steps

    def _rollout_leaf(self, game: Game) -> list[float]:
        g, rng = game.clone(), self.rng
        while not g.is_terminal():
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
        return g.returns()

    def _value_leaf(self, game: Game) -> list[float]:
        net = self._network
        return [net.value(net.observe(game, p)) for p in range(game.num_players)]

    # ------------------------------------------------------------------ search
    def act(self, game: Game) -> int:
        me = game.current_player
        if me is None:
            raise IllegalActionError("the game is over: no decision to take")
        legal = game.legal_actions()
        if len(legal) == 1:
            self.last_visits, self.last_simulations = {legal[0]: 1}, 0
            return legal[0]
        if self._skip(game):
            priors = self.prior(game, legal)
            top = max(priors.values())
            choice = min(a for a, p in priors.items() if p == top)
            self.last_visits, self.last_simulations = {choice: 1}, 0
            return choice
        root = self.search(game)
        if not root.n:  # not searched (``min_sims``): the prior's favourite, the expert's choice with greedy >= 0.5
            assert root.priors is not None
            top = max(root.priors.values())
            choice = min(a for a, p in root.priors.items() if p == top)
            self.last_visits = {choice: 1}
            return choice
        self.last_visits = dict(root.n)
        best = max(root.n.values())
        return min(a for a, v in root.n.items() if v == best)

    def _skip(self, game: Game) -> bool:
        """``min_sims``: whether the playouts to the end would be too long for ``min_sims`` simulations within the
        ``steps`` budget, by the pace of the last playout that reached the end (none yet: search, and learn it)."""
        cfg = self.config
        if not (cfg.min_sims and cfg.steps and self._pace is not None):
            return False
        per_round, last = self._pace
        return (last - game.round + 1) * per_round * cfg.min_sims > cfg.steps

    def search(self, game: Game) -> Node:
        """Run the budget's simulations from ``game`` and return the root (its ``n``: visits per action)."""
        cfg = self.config
        root = Node()
        me = game.current_player
        deadline = time.perf_counter() + cfg.ms / 1000.0 if cfg.ms > 0 else None
        sims = self._steps = 0
        while sims < cfg.sims:
            if deadline is not None and sims > 0 and time.perf_counter() >= deadline:
                break
            if cfg.steps and sims > 1 and self._steps >= cfg.steps:
                break
            self._simulate(root, game.resample_hidden(me, self.rng))
            sims += 1
            if sims == 1 and cfg.steps and cfg.min_sims and self._steps * cfg.min_sims > cfg.steps:
                break  # the first playout says fewer than min_sims simulations fit the steps budget: no search
        self.last_simulations = sims
        return root

    def _simulate(self, root: Node, g: Game) -> None:
        node, path = root, []
        while True:
            if g.is_terminal():
                value = g.returns()
                break
            if node.priors is None:
                node.player = g.current_player
                legal = g.legal_actions()
                node.priors = self.prior(g, legal) if len(legal) > 1 else {legal[0]: 1.0}
                value = self.leaf(g)
                break
            a = self._select(node)
            before = len(g.events)
            g.apply(a)
            path.append((node, a))
            key = (a, _chance(g.events[before:]))
            child = node.kids.get(key)
            if child is None:
                child = node.kids[key] = Node()
            node = child
        n = len(value)
        for parent, a in path:
            parent.visits += 1
            parent.n[a] = parent.n.get(a, 0) + 1
            w = parent.w.get(a)
            if w is None:
                parent.w[a] = list(value)
            else:
                for p in range(n):
                    w[p] += value[p]

    def _select(self, node: Node) -> int:
        priors = node.priors
        assert priors is not None
        if len(priors) == 1:
            return next(iter(priors))
        p = node.player
        total = node.visits
        # First-play urgency: an unvisited action counts with the node's mean return for its player.
        fpu = sum(w[p] for w in node.w.values()) / total if total else 0.0
        c = self.config.c_puct * math.sqrt(total + 1)
        best_a, best_u = -1, -math.inf
        for a, prior in priors.items():
            na = node.n.get(a, 0)
            q = node.w[a][p] / na if na else fpu
            u = q + c * prior / (1 + na)
            if u > best_u:
                best_a, best_u = a, u
        return best_a


def visit_distribution(visits: dict[int, int], num_actions: int) -> np.ndarray:
    """The visit counts of a root as a probability vector over the action layout (expert-iteration targets)."""
    out = np.zeros(num_actions, dtype=np.float32)
    total = sum(visits.values())
    for a, v in visits.items():
        out[a] = v / total
    return out


__all__ = ["MCTSConfig", "MCTSOptionError", "MCTSPolicy", "Node", "visit_distribution"]
