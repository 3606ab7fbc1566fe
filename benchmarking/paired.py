"""Paired deals: the evaluation where the skill is (issue 27).

Most games between good bots end in a shared victory, and the seat with the last turn converts: 71 tiles give
the start player of a 2-player game 36 turns to 35. A *paired* evaluation plays every deal (engine seed) once
per seat rotation, so every bot meets the same cards from every seat, and reports per bot and seat:

* by **position in turn order** (0 = the start player the seed drew, CORE-01-03-03) and by **last-turn seat**
  (:func:`benchmarking.runner.last_turn_seat`) or not: games, outright wins, shared victories, losses and the
  score (a victory shared by k counts 1/k, CORE-01-09-04), with 95% Wilson intervals;
* the **conversion rate** (outright wins from the last-turn seat) and the **loss rate from the other
  seats**, with 95% Wilson intervals: between bots of equal strength nearly every 2-player game is a shared
  7-7, and a stronger bot shows itself by converting its last turn more often and losing less from the other
  seat;
* the **deal score**: the bot's mean score per deal, with a 95% interval over deals (deals are independent,
  the games of one deal are not);
* for two bots that met on a deal exactly twice with the seats swapped (2 players), the **pentanomial** counts
  of the pairs by A's score 0, 1/4, 1/2, 3/4, 1 (the model of fishtest's SPRT, :mod:`benchmarking.sprt`),
  their mean with the pentanomial standard error ``sqrt(sum_i p_i (a_i - s)^2 / N)`` and the Elo it means.

Method: fishtest's pentanomial statistics and GSPRT (M. Van den Bergh, "Normalized Elo" and "A pentanomial
model for engine-testing" notes in the fishtest repository, ``server/fishtest/stats/stat_util.py``;
cutechess-cli plays paired openings with colours swapped the same way).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from bc_env.rules import load_replay

from .runner import MatchResult, entrant_seats, format_wins, last_turn_seat, wilson_interval
from .sprt import PAIR_SCORES, score_to_elo


@dataclass(frozen=True)
class DealGame:
    """What the paired evaluation needs of one game."""

    deal: Any
    seats: tuple[str, ...]
    winners: tuple[int, ...]
    start_player: int
    last_turn: int

    @property
    def players(self) -> int:
        return len(self.seats)

    def score(self, seat: int) -> Fraction:
        return Fraction(1, len(self.winners)) if seat in self.winners else Fraction(0)


@dataclass
class Rates:
    """Outcomes of one bot on some seat-games."""

    games: int = 0
    outright: int = 0
    shared: int = 0
    lost: int = 0
    score: Fraction = Fraction(0)

    def add(self, game: DealGame, seat: int) -> None:
        self.games += 1
        if seat not in game.winners:
            self.lost += 1
        elif len(game.winners) == 1:
            self.outright += 1
        else:
            self.shared += 1
        self.score += game.score(seat)

    def rate(self, what: str) -> float:
        value = float(self.score) if what == "score" else getattr(self, what)
        return value / self.games if self.games else float("nan")

    def ci(self, what: str) -> tuple[float, float]:
        value = float(self.score) if what == "score" else getattr(self, what)
        return wilson_interval(value, self.games)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"games": self.games, "outright": self.outright, "shared": self.shared}
        out["lost"] = self.lost
        out["score"] = format_wins(self.score)
        for what in ("outright", "shared", "lost", "score"):
            lo, hi = self.ci(what)
            out[f"{what}_rate"] = _r(self.rate(what))
            out[f"{what}_ci95"] = [_r(lo), _r(hi)]
        return out


def _r(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


@dataclass
class Pentanomial:
    """Pairs of games on one deal between bots A and B with the seats swapped, by A's pair score."""

    a: str
    b: str
    counts: list[int] = field(default_factory=lambda: [0] * 5)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """A's mean score per game over the pairs."""
        return sum(a * c for a, c in zip(PAIR_SCORES, self.counts)) / self.pairs if self.pairs else float("nan")

    @property
    def stderr(self) -> float:
        """The pentanomial standard error of :attr:`score`: ``sqrt(sum_i p_i (a_i - s)^2 / N)``."""
        n = self.pairs
        if n == 0:
            return float("nan")
        s = self.score
        return math.sqrt(sum(c / n * (a - s) ** 2 for a, c in zip(PAIR_SCORES, self.counts)) / n)

    def ci95(self) -> tuple[float, float]:
        half = 1.959964 * self.stderr
        return max(0.0, self.score - half), min(1.0, self.score + half)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.ci95()
        return {
            "a": self.a,
            "b": self.b,
            "pairs": self.pairs,
            "counts": list(self.counts),
            "score": _r(self.score),
            "ci95": [_r(lo), _r(hi)],
            "elo": _r(score_to_elo(self.score)) if self.pairs else None,
            "elo_ci95": [_r(score_to_elo(lo)), _r(score_to_elo(hi))] if self.pairs else None,
        }


@dataclass
class BotPaired:
    name: str
    by_position: dict[int, Rates] = field(default_factory=dict)
    last_turn: Rates = field(default_factory=Rates)
    other: Rates = field(default_factory=Rates)
    total: Rates = field(default_factory=Rates)
    #: The bot's mean score on each deal it played.
    deal_scores: list[float] = field(default_factory=list)

    def deal_ci95(self) -> tuple[float, float, float]:
        """Mean deal score and its 95% interval (normal over deals)."""
        n = len(self.deal_scores)
        if n == 0:
            return float("nan"), float("nan"), float("nan")
        mean = sum(self.deal_scores) / n
        if n == 1:
            return mean, 0.0, 1.0
        sd = math.sqrt(sum((x - mean) ** 2 for x in self.deal_scores) / (n - 1))
        half = 1.959964 * sd / math.sqrt(n)
        return mean, max(0.0, mean - half), min(1.0, mean + half)


@dataclass
class PairedSummary:
    """The paired evaluation of a set of games of one configuration."""

    players: int
    deals: int
    games: int
    bots: list[BotPaired]
    pairs: list[Pentanomial]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"players": self.players, "deals": self.deals, "games": self.games, "bots": []}
        for b in self.bots:
            mean, lo, hi = b.deal_ci95()
            row: dict[str, Any] = {
                "bot": b.name,
                "total": b.total.to_dict(),
                "by_position": {str(p): r.to_dict() for p, r in sorted(b.by_position.items())},
                "last_turn_seat": b.last_turn.to_dict(),
                "other_seats": b.other.to_dict(),
                "deal_score": _r(mean),
                "deal_score_ci95": [_r(lo), _r(hi)],
            }
            row["conversion_from_last_turn"] = _r(b.last_turn.rate("outright"))
            row["conversion_from_last_turn_ci95"] = [_r(x) for x in b.last_turn.ci("outright")]
            row["loss_rate_from_other_seat"] = _r(b.other.rate("lost"))
            row["loss_rate_from_other_seat_ci95"] = [_r(x) for x in b.other.ci("lost")]
            out["bots"].append(row)
        out["pentanomial"] = [p.to_dict() for p in self.pairs]
        return out

    def table(self) -> str:
        """Markdown: per bot and seat the outcome rates; per bot the conversion and loss rates; pairs."""
        pct = "{:.1%}".format
        lines = [
            f"paired deals: {self.deals} deals, {self.games} games, {self.players} players; position 0 is the start "
            "player; a victory shared by k counts 1/k",
            "| bot | seat | games | outright | shared | lost | score | score 95% CI (Wilson) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for b in self.bots:
            rows: list[tuple[str, Rates]] = [(f"position {p}", r) for p, r in sorted(b.by_position.items())]
            rows += [("last turn", b.last_turn), ("other", b.other), ("all", b.total)]
            for label, r in rows:
                lo, hi = r.ci("score")
                lines.append(
                    f"| {b.name} | {label} | {r.games} | {pct(r.rate('outright'))} | {pct(r.rate('shared'))} | "
                    f"{pct(r.rate('lost'))} | {pct(r.rate('score'))} | {pct(lo)} .. {pct(hi)} |"
                )
        lines.append("")
        for b in self.bots:
            mean, lo, hi = b.deal_ci95()
            text = f"{b.name}: deal score {pct(mean)} (95% CI over deals {pct(lo)} .. {pct(hi)})"
            c_lo, c_hi = b.last_turn.ci("outright")
            l_lo, l_hi = b.other.ci("lost")
            other = "the other seat" if self.players == 2 else "the other seats"
            text += (
                f"; conversion from the last-turn seat {pct(b.last_turn.rate('outright'))} ({pct(c_lo)} .. "
                f"{pct(c_hi)}), loss rate from {other} {pct(b.other.rate('lost'))} ({pct(l_lo)} .. {pct(l_hi)})"
            )
            lines.append(text)
        for p in self.pairs:
            lo, hi = p.ci95()
            lines.append(
                f"{p.a} vs {p.b}: {p.pairs} pairs by {p.a}'s score 0, 1/4, 1/2, 3/4, 1: {p.counts}; score "
                f"{pct(p.score)} (pentanomial 95% CI {pct(lo)} .. {pct(hi)}), Elo {score_to_elo(p.score):+.0f}"
            )
        return "\n".join(lines)


def match_games(match: MatchResult) -> list[DealGame]:
    """The games of a match (:func:`benchmarking.runner.play_match`), seats named by entrant label."""
    labels = [e.label for e in match.entrants]
    n = len(labels)
    out = []
    for r in match.results:
        seats = [""] * n
        for e, seat in enumerate(entrant_seats(r.index, n, match.rotate_seats)):
            seats[seat] = labels[e]
        out.append(DealGame(r.seed, tuple(seats), tuple(r.winners), r.start_player, r.last_turn))
    return out


def log_games(log: Any) -> dict[str, list[DealGame]]:
    """The games of a tournament log (:class:`benchmarking.tournament.TournamentLog`) by configuration name;
    a deal is one engine seed of one configuration (a tournament block, every rotation of a lineup)."""
    out: dict[str, list[DealGame]] = {}
    for rec in log.ordered():
        last = log.last_turn.get(rec["index"])
        if last is None:  # a log read without verification: replay the game
            last = last_turn_seat(load_replay(rec["replay"]))
        deal = (rec["config"], rec["seed"])
        game = DealGame(deal, tuple(rec["seats"]), tuple(rec["winners"]), rec["start_player"], last)
        out.setdefault(rec["config"], []).append(game)
    return out


def summarize_match(match: MatchResult) -> PairedSummary:
    """The paired evaluation of a match (meaningful for paired deals: ``play_match(..., paired=True)``)."""
    return summarize(match_games(match), [e.label for e in match.entrants])


def summarize(games: Iterable[DealGame], bots: Sequence[str] | None = None) -> PairedSummary:
    """The paired evaluation of ``games`` (one configuration); ``bots`` orders the rows."""
    games = list(games)
    players = games[0].players if games else 0
    if any(g.players != players for g in games):
        raise ValueError("a paired summary takes the games of one player count")
    names = list(bots or [])
    for g in games:
        names += [s for s in g.seats if s not in names]
    per = {name: BotPaired(name) for name in names}
    by_deal: dict[Any, list[DealGame]] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g)
        for seat, name in enumerate(g.seats):
            b = per[name]
            b.by_position.setdefault((seat - g.start_player) % players, Rates()).add(g, seat)
            (b.last_turn if seat == g.last_turn else b.other).add(g, seat)
            b.total.add(g, seat)
    order = {name: i for i, name in enumerate(names)}
    pairs: dict[tuple[str, str], Pentanomial] = {}
    for deal_games in by_deal.values():
        for name in names:
            scores = [float(g.score(s)) for g in deal_games for s, n in enumerate(g.seats) if n == name]
            if scores:
                per[name].deal_scores.append(sum(scores) / len(scores))
        if players != 2:
            continue
        for first, second in sorted({tuple(sorted(g.seats, key=order.__getitem__)) for g in deal_games}):
            if first == second:
                continue
            met = [g for g in deal_games if set(g.seats) == {first, second}]
            if len(met) == 2 and met[0].seats != met[1].seats:
                pair = pairs.setdefault((first, second), Pentanomial(first, second))
                total = sum(g.score(g.seats.index(first)) for g in met)
                pair.counts[int(total * 2)] += 1
    return PairedSummary(
        players,
        len(by_deal),
        len(games),
        [per[n] for n in names],
        sorted(pairs.values(), key=lambda p: (order[p.a], order[p.b])),
    )


__all__ = [
    "BotPaired",
    "DealGame",
    "PairedSummary",
    "Pentanomial",
    "Rates",
    "log_games",
    "match_games",
    "summarize",
    "summarize_match",
]
