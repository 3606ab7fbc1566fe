"""A sequential probability ratio test on the score of one bot against another, as fishtest and cutechess-cli
run it for chess engines.

Hypotheses on the Elo difference of bot A over bot B (logistic Elo: a score ``s`` is
``1 / (1 + 10 ** (-elo / 400))``): H0 ``elo = elo0`` against H1 ``elo = elo1`` (``elo1 > elo0``), with error
rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds). The log-likelihood
ratio is the generalized SPRT's of fishtest's ``stat_util``::

    LLR = N sum_i f_i log(p1_i / p0_i)

with ``f`` the observed frequencies of the outcomes (counts regularized by 1e-3) and ``p0``, ``p1`` the most
likely outcome distributions with expected score ``s0`` and ``s1`` (fishtest's ``MLE_expected``). Two models:

* ``pentanomial`` (the default, fishtest's today): the outcomes are *pairs* of games on the same deal (the
  tournament plays every deal with the seats swapped), scored 0, 1/4, 1/2, 3/4 or 1, and ``N`` counts pairs.
  Games on one deal are not independent (the deal favours a seat); a pair is much closer to independent.
* ``trinomial``: every game is an outcome (loss 0, draw 1/2, win 1), ``N`` counts games; it treats the two
  games of a deal as independent, which they are not, and so stops too early when deals matter.

Each outcome moves the ratio by a bounded step, so a single early loss cannot end the test. The test stops as
soon as ``LLR >= log((1 - beta) / alpha)`` (H1 accepted: A is stronger by at least about ``elo1``), or
``LLR <= log(beta / (1 - alpha))`` (H0 accepted: A is not stronger by ``elo1``), or at ``max_games``
(inconclusive). In a game with more than two seats, A's result against B is their pairwise score
(:func:`benchmarking.ratings.pair_score`): above 1, level 1/2 (a shared victory), below 0. A draw is a game
where A and B end level (in two players: a shared victory).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import TournamentError
from .ratings import bot_ranks, pair_score

#: The largest Elo difference a hypothesis may name: a score of 99.7%; beyond it the expected scores round
#: towards 1 and the likelihood ratio degenerates (``--elo1 100000`` divided by zero).
MAX_ELO = 1000.0


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    score = min(max(score, 1e-9), 1.0 - 1e-9)
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mle(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The maximum-likelihood distribution on the outcomes ``a_i`` with expectation ``s``, given the empirical
    ``pdf`` of (a_i, frequency) pairs: ``p_i = f_i / (1 + x (a_i - s))`` with ``x`` the root of
    ``sum f_i (a_i - s) / (1 + x (a_i - s)) = 0`` (fishtest's ``MLE_expected``), found by bisection."""
    lo, hi = -1.0 / (1.0 - s), 1.0 / s  # where every 1 + x (a_i - s) stays positive for a_i in [0, 1]
    lo, hi = lo + 1e-12 * abs(lo), hi - 1e-12 * abs(hi)
    for _ in range(60):
        x = (lo + hi) / 2
        f = sum(p * (a - s) / (1 + x * (a - s)) for a, p in pdf)
        if f > 0:
            lo = x
        else:
            hi = x
    x = (lo + hi) / 2
    return [p / (1 + x * (a - s)) for a, p in pdf]


def llr_counts(counts: list[tuple[float, float]], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 over H0 for ``counts``: (outcome score in [0, 1], count) pairs."""
    regular = [(a, max(c, 1e-3)) for a, c in counts]
    n = sum(c for _, c in regular)
    pdf = [(a, c / n) for a, c in regular]
    p0 = _mle(pdf, elo_to_score(elo0))
    p1 = _mle(pdf, elo_to_score(elo1))
    return n * sum(f * math.log(b / a) for (_, f), a, b in zip(pdf, p0, p1))


def llr(wins: float, draws: float, losses: float, elo0: float, elo1: float) -> float:
    """Trinomial: the log-likelihood ratio for W/D/L counts of single games."""
    return llr_counts([(0.0, losses), (0.5, draws), (1.0, wins)], elo0, elo1)


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def llr_pentanomial(pairs: list[int] | tuple[int, ...], elo0: float, elo1: float) -> float:
    """Pentanomial: the log-likelihood ratio for counts of game pairs scoring 0, 1/4, 1/2, 3/4 and 1."""
    return llr_counts(list(zip(PAIR_SCORES, pairs)), elo0, elo1)


MODELS = ("pentanomial", "trinomial")


@dataclass
class SPRT:
    """A running test: :meth:`add` one result of A against B (1, 1/2 or 0) at a time, with its deal."""

    elo0: float = 0.0
    elo1: float = 30.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 10_000
    model: str = "pentanomial"
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: Pentanomial: finished pairs by score 0, 1/4, 1/2, 3/4, 1.
    pairs: list[int] = field(default_factory=lambda: [0] * 5)
    verdict: str | None = None
    history: list[float] = field(default_factory=list)
    #: Pentanomial: the first result of a deal whose second game is still to come.
    _open: dict[Any, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise TournamentError(f"{name} must be a finite number of Elo, got {value!r}")
            if abs(value) > MAX_ELO:
                raise TournamentError(
                    f"{name} must be within +-{MAX_ELO:g} Elo (expected scores {elo_to_score(-MAX_ELO):.4f} to "
                    f"{elo_to_score(MAX_ELO):.4f}; beyond that the test degenerates), got {value:g}"
                )
        if not self.elo1 > self.elo0:
            raise TournamentError(f"elo1 must be greater than elo0, got elo0={self.elo0}, elo1={self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value < 0.5:
                raise TournamentError(f"{name} must be in (0, 0.5), got {value}")
        if isinstance(self.max_games, bool) or not isinstance(self.max_games, int) or self.max_games < 1:
            raise TournamentError(f"max_games must be >= 1, got {self.max_games}")
        if self.model not in MODELS:
            raise TournamentError(f"model must be one of {', '.join(MODELS)}, got {self.model!r}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def llr(self) -> float:
        if self.model == "pentanomial":
            return llr_pentanomial(self.pairs, self.elo0, self.elo1)
        return llr(self.wins, self.draws, self.losses, self.elo0, self.elo1)

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else float("nan")

    def add(self, result: float, deal: Any = None) -> bool:
        """Record one result; True once the test has stopped (then further results are ignored).

        ``deal`` (the pentanomial model needs it) names the deal the game was played on: the test moves when
        the second game of a deal comes in. The trinomial model moves on every game."""
        if self.verdict is not None:
            return True
        if result not in (0.0, 0.5, 1.0):
            raise TournamentError(f"an SPRT result is 1, 0.5 or 0, got {result!r}")
        if self.model == "pentanomial" and deal is None:
            raise TournamentError("the pentanomial model pairs games by deal: pass deal=")
        self.wins += result == 1.0
        self.draws += result == 0.5
        self.losses += result == 0.0
        if self.model == "pentanomial":
            first = self._open.pop(deal, None)
            if first is None:
                self._open[deal] = result
                if self.games >= self.max_games:
                    self.verdict = "inconclusive"
                return self.verdict is not None
            self.pairs[int(round(2 * (first + result)))] += 1
        value = self.llr
        self.history.append(value)
        if value >= self.upper:
            self.verdict = "H1"
        elif value <= self.lower:
            self.verdict = "H0"
        elif self.games >= self.max_games:
            self.verdict = "inconclusive"
        return self.verdict is not None

    def add_record(self, rec: dict[str, Any], a: str, b: str) -> bool:
        """Add the result of A against B in a game record (ignored unless both played it)."""
        ranks = bot_ranks(rec)
        if a in ranks and b in ranks:
            return self.add(pair_score(ranks, a, b), deal=(rec["config"], rec["seed"]))
        return self.verdict is not None

    def reason(self, a: str = "A", b: str = "B") -> str:
        """Why the test stopped (or where it stands), in one line."""
        bounds = f"bounds {self.lower:.2f} .. {self.upper:.2f}"
        counts = f"score {self.score:.1%} over {self.games} games (W {self.wins}, D {self.draws}, L {self.losses})"
        if self.model == "pentanomial":
            counts += f", pairs by score 0..1 {self.pairs}"
        if self.verdict == "H1":
            return (
                f"H1 accepted: {a} is stronger than {b} by at least ~{self.elo1:g} Elo "
                f"(LLR {self.llr:.2f} >= {self.upper:.2f}); {counts}"
            )
        if self.verdict == "H0":
            return (
                f"H0 accepted: {a} is not stronger than {b} by {self.elo1:g} Elo (elo <= {self.elo0:g}) "
                f"(LLR {self.llr:.2f} <= {self.lower:.2f}); {counts}"
            )
        if self.verdict == "inconclusive":
            return f"inconclusive: reached max_games {self.max_games} with LLR {self.llr:.2f} inside {bounds}; {counts}"
        return f"running: LLR {self.llr:.2f}, {bounds}; {counts}"


def run_on_records(test: SPRT, records: Iterable[dict[str, Any]], a: str, b: str) -> SPRT:
    """Feed ``records`` (by index) to ``test`` until it stops."""
    for rec in records:
        if test.add_record(rec, a, b):
            break
    return test


__all__ = [
    "MAX_ELO",
    "MODELS",
    "SPRT",
    "elo_to_score",
    "llr",
    "llr_counts",
    "llr_pentanomial",
    "run_on_records",
    "score_to_elo",
]
