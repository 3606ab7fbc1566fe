"""Ratings for free-for-all games with uncertainty, a leaderboard and a pairwise score matrix.

* **Ratings**: OpenSkill's Plackett–Luce model (the ``openskill`` package), one update per game in index order.
  A game's ranking is its players' Influence on the Board (the victory metric, CORE-01-09-03): more Influence
  ranks higher and equal Influence is a tie, so a shared victory (CORE-01-09-04) is a tie for first place. A
  bot that holds several seats of one game (fewer bots than seats) is ranked by its best seat. Each rating is
  ``mu`` with uncertainty ``sigma``; the leaderboard shows ``mu ± 1.96 sigma`` and sorts by OpenSkill's
  conservative ``mu - 3 sigma``.
* **Win rates** per bot and seat-game, a victory shared by ``k`` counting ``1/k`` (as in the arena), with
  95% Wilson intervals (:func:`benchmarking.runner.wilson_interval`).
* **Pairwise scores**: for two bots in the same game, 1 if the first ranks higher, 1/2 on equal rank, 0 below;
  the matrix gives the mean score of the row bot against the column bot with a 95% Wilson interval.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from benchmarking.runner import wilson_interval

from .errors import TournamentError

Z95 = 1.959964


def seat_ranks(influence: list[int] | list[float]) -> list[int]:
    """1-based rank of each seat by Influence on the Board (ties share the better rank)."""
    return [1 + sum(1 for y in influence if y > x) for x in influence]


def record_ranks(rec: dict[str, Any]) -> list[int]:
    """1-based rank of each seat in a game record: by Influence, or, in a forfeited game (``forfeit``), the
    winners first and the seat that forfeited last (``benchmarking.runner.FORFEIT_RULING``)."""
    if rec.get("forfeit") is not None:
        return [1 if s in rec["winners"] else 2 for s in range(len(rec["seats"]))]
    return seat_ranks(rec["influence"])


def bot_ranks(rec: dict[str, Any]) -> dict[str, int]:
    """Each bot's rank in a game record (its best seat), in seat order of first appearance."""
    ranks: dict[str, int] = {}
    for bot, rank in zip(rec["seats"], record_ranks(rec)):
        ranks[bot] = min(rank, ranks.get(bot, rank))
    return ranks


@dataclass
class BotRating:
    name: str
    mu: float
    sigma: float
    #: Seat-games played and fractional wins (a victory shared by k counts 1/k).
    games: int = 0
    wins: float = 0.0
    influence_sum: float = 0.0

    @property
    def ordinal(self) -> float:
        """OpenSkill's conservative estimate ``mu - 3 sigma`` (the leaderboard's order)."""
        return self.mu - 3.0 * self.sigma

    @property
    def interval(self) -> tuple[float, float]:
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def win_ci(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def _model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise TournamentError("ratings need the openskill package: pip install -e '.[tournament]'") from None
    return PlackettLuce()


def rate(records: Iterable[dict[str, Any]], bots: Iterable[str] = ()) -> list[BotRating]:
    """Rate the bots of ``records`` (taken in the order given: pass them by index); best first.

    ``bots`` lists bots to show even without games (at the model's prior)."""
    model = _model()
    ratings: dict[str, Any] = {}
    stats: dict[str, BotRating] = {}

    def entry(name: str) -> BotRating:
        if name not in stats:
            ratings[name] = model.rating(name=name)
            stats[name] = BotRating(name, ratings[name].mu, ratings[name].sigma)
        return stats[name]

    for name in bots:
        entry(name)
    for rec in records:
        k = len(rec["winners"])
        for seat, name in enumerate(rec["seats"]):
            st = entry(name)
            st.games += 1
            st.influence_sum += rec["influence"][seat]
            if seat in rec["winners"]:
                st.wins += 1.0 / k
        ranks = bot_ranks(rec)
        if len(ranks) < 2:
            continue
        names = list(ranks)
        new = model.rate([[ratings[n]] for n in names], ranks=[ranks[n] for n in names])
        for n, team in zip(names, new):
            ratings[n] = team[0]
    for name, st in stats.items():
        st.mu, st.sigma = float(ratings[name].mu), float(ratings[name].sigma)
    return sorted(stats.values(), key=lambda r: (-r.ordinal, r.name))


def leaderboard(ratings: list[BotRating]) -> str:
    """The ratings as a Markdown table."""
    lines = [
        "| # | bot | mu | 95% interval (mu ± 1.96 sigma) | mu - 3 sigma | seat-games | win rate | 95% CI (Wilson) "
        "| mean Influence |",
        "|--:|---|--:|---|--:|--:|--:|---|--:|",
    ]
    for i, r in enumerate(ratings, start=1):
        lo, hi = r.interval
        wlo, whi = r.win_ci
        mean_inf = r.influence_sum / r.games if r.games else 0.0
        lines.append(
            f"| {i} | {r.name} | {r.mu:.2f} | {lo:.2f} .. {hi:.2f} | {r.ordinal:.2f} | {r.games} | "
            f"{r.win_rate:.1%} | {wlo:.1%} .. {whi:.1%} | {mean_inf:.2f} |"
        )
    return "\n".join(lines)


@dataclass
class PairScore:
    score: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def mean(self) -> float:
        return self.score / self.games if self.games else float("nan")

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.games)


@dataclass
class PairwiseMatrix:
    bots: list[str]
    cells: dict[tuple[str, str], PairScore] = field(default_factory=dict)

    def get(self, a: str, b: str) -> PairScore:
        return self.cells.get((a, b), PairScore())

    def table(self) -> str:
        """Row bot's mean score against the column bot, 95% Wilson interval and games, as Markdown."""
        lines = ["| row vs column | " + " | ".join(self.bots) + " |", "|---|" + "---|" * len(self.bots)]
        for a in self.bots:
            cells = []
            for b in self.bots:
                c = self.get(a, b)
                if a == b or not c.games:
                    cells.append("—")
                else:
                    lo, hi = c.ci95
                    cells.append(f"{c.mean:.1%} ({lo:.0%}..{hi:.0%}, n={c.games})")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def pair_score(ranks: dict[str, int], a: str, b: str) -> float:
    """Score of bot ``a`` against bot ``b`` in one game: 1 above, 1/2 level, 0 below."""
    if ranks[a] < ranks[b]:
        return 1.0
    return 0.5 if ranks[a] == ranks[b] else 0.0


def pairwise(records: Iterable[dict[str, Any]], bots: list[str] | None = None) -> PairwiseMatrix:
    """The pairwise score matrix of ``records`` (rows and columns: ``bots`` or every bot seen)."""
    seen: list[str] = list(bots or [])
    cells: dict[tuple[str, str], PairScore] = {}
    for rec in records:
        ranks = bot_ranks(rec)
        for a in ranks:
            if a not in seen:
                seen.append(a)
            for b in ranks:
                if a == b:
                    continue
                s = pair_score(ranks, a, b)
                c = cells.setdefault((a, b), PairScore())
                c.score += s
                c.games += 1
                c.wins += s == 1.0
                c.draws += s == 0.5
                c.losses += s == 0.0
    return PairwiseMatrix(seen, cells)


__all__ = [
    "BotRating",
    "PairScore",
    "PairwiseMatrix",
    "bot_ranks",
    "leaderboard",
    "pair_score",
    "pairwise",
    "rate",
    "record_ranks",
    "seat_ranks",
]
