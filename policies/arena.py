"""A small arena: play seeded games between bots and measure them.

* :func:`play_game` plays one game, one policy per seat, and returns a :class:`GameResult`.
* :func:`play_match` plays ``games`` games between the same entrants, rotating the seats (game ``i``
  puts entrant ``e`` in seat ``(e + i) % players``, so with a multiple of ``players`` games every
  entrant plays every seat equally often) and returns a :class:`MatchResult` with, per entrant:
  wins, win rate with a 95% Wilson interval, mean final Influence on the Board and decision latency.

Scoring (CORE-01-09-03/04): a shared victory of ``k`` players counts ``1/k`` of a win for each of them
(``wins``); outright and shared victories are also counted separately (``outright``, ``shared``).
The Wilson interval is computed on the fractional win rate ``wins / games`` (a shared win counts as a
partial success), which is the usual approximation for such scores.

Entrants given by name are created afresh for every game with a seed derived from the match seed,
the game index and the entrant index, so every game of a match is reproducible on its own. Entrants
given as :class:`~policies.base.Policy` objects are reused across games (deterministic for the whole
match). Wall-clock time is only measured for the latency report; it never feeds a decision.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from bc_env.rules import Game, RulesConfig

from . import load
from .base import Policy

Entrant = str | Policy


@dataclass
class GameResult:
    """One finished game."""

    seed: int
    #: Policy name per seat.
    seats: list[str]
    #: Seats sharing the victory (CORE-01-09-04).
    winners: list[int]
    #: Final Influence on the Board per seat (the victory metric, CORE-01-09-03).
    influence: list[int]
    #: ``game.returns()`` per seat (RULINGS R9).
    returns: list[float]
    #: Number of decisions taken in the game.
    decisions: int
    #: Seconds per decision, per seat (wall clock; reporting only).
    latencies: list[list[float]] = field(default_factory=list)
    #: The game's actions in order (with ``seed`` and the config, its replay: ``bc_env.rules.record``).
    actions: list[int] = field(default_factory=list)


def play_game(config: RulesConfig | str, policies_by_seat: Sequence[Policy], seed: int) -> GameResult:
    """Play one game with ``policies_by_seat[q]`` deciding for seat ``q``; returns the result."""
    game = Game.new(RulesConfig.resolve(config), seed)
    if len(policies_by_seat) != game.num_players:
        raise ValueError(f"{game.config.name} has {game.num_players} seats, got {len(policies_by_seat)} policies")
    latencies: list[list[float]] = [[] for _ in range(game.num_players)]
    actions: list[int] = []
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        start = time.perf_counter()
        action = policies_by_seat[seat].act(game)
        latencies[seat].append(time.perf_counter() - start)
        game.apply(action)
        actions.append(action)
    return GameResult(
        seed=seed,
        seats=[getattr(p, "name", type(p).__name__) for p in policies_by_seat],
        winners=game.winners(),
        influence=list(game.on_board),
        returns=game.returns(),
        decisions=len(actions),
        latencies=latencies,
        actions=actions,
    )


def bot_seed(match_seed: int, game: int, slot: int) -> int:
    """The seed of the bot created for ``slot`` (an entrant here, a seat in a tournament) of game ``game``."""
    return (match_seed * 1_000_003 + game) * 16 + slot


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class EntrantStats:
    """Everything measured for one entrant of a match."""

    label: str
    games: int = 0
    #: Fractional wins: a victory shared by k players counts 1/k (``wins_exact`` as a fraction).
    wins: float = 0.0
    wins_exact: Fraction = Fraction(0)
    outright: int = 0
    shared: int = 0
    influence_sum: int = 0
    return_sum: float = 0.0
    latencies: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def mean_influence(self) -> float:
        return self.influence_sum / self.games if self.games else 0.0

    @property
    def mean_return(self) -> float:
        return self.return_sum / self.games if self.games else 0.0

    def latency_ms(self, q: float) -> float:
        """A latency quantile in milliseconds (q = 0.5 median, 0.99 p99); nan without decisions."""
        if not self.latencies:
            return float("nan")
        data = sorted(self.latencies)
        if q == 0.5:
            return 1000.0 * statistics.median(data)
        return 1000.0 * data[min(len(data) - 1, int(q * len(data)))]


@dataclass
class MatchResult:
    config: str
    games: int
    seed: int
    rotate_seats: bool
    entrants: list[EntrantStats]
    results: list[GameResult]

    def table(self) -> str:
        """The match as a Markdown table."""
        lines = [
            f"{self.config}: {self.games} games, seed {self.seed}, seats "
            f"{'rotated' if self.rotate_seats else 'fixed'}; a victory shared by k counts 1/k",
            "| entrant | games | wins | outright | shared | win rate | 95% CI (Wilson) | mean Influence "
            "| mean return | decision ms (median / p99) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for e in self.entrants:
            lo, hi = e.ci95
            lines.append(
                f"| {e.label} | {e.games} | {format_wins(e.wins_exact)} | {e.outright} | {e.shared} | "
                f"{e.win_rate:.1%} | "
                f"{lo:.1%} .. {hi:.1%} | {e.mean_influence:.2f} | {e.mean_return:+.3f} | "
                f"{e.latency_ms(0.5):.2f} / {e.latency_ms(0.99):.2f} |"
            )
        return "\n".join(lines)

    def rows(self) -> list[dict[str, object]]:
        """One record per entrant (the columns of :meth:`table`, machine-readable: ``--json`` / ``--csv``)."""
        out: list[dict[str, object]] = []
        for e in self.entrants:
            lo, hi = e.ci95
            out.append(
                {
                    "entrant": e.label,
                    "games": e.games,
                    "wins": round(e.wins, 6),
                    "wins_fraction": format_wins(e.wins_exact),
                    "outright": e.outright,
                    "shared": e.shared,
                    "win_rate": round(e.win_rate, 6),
                    "ci95_low": round(lo, 6),
                    "ci95_high": round(hi, 6),
                    "mean_influence": round(e.mean_influence, 6),
                    "mean_return": round(e.mean_return, 6),
                    "decision_ms_median": _ms(e.latency_ms(0.5)),
                    "decision_ms_p99": _ms(e.latency_ms(0.99)),
                }
            )
        return out

    def to_dict(self) -> dict[str, object]:
        """The match summary as a JSON-ready object (``balance-control match --json``)."""
        return {
            "config": self.config,
            "games": self.games,
            "seed": self.seed,
            "seats": "rotated" if self.rotate_seats else "fixed",
            "scoring": "a victory shared by k counts 1/k",
            "entrants": self.rows(),
        }


def _ms(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def format_wins(wins: Fraction) -> str:
    """A win count as people read it: ``214``, ``214 1/3``, ``1/2`` (a victory shared by k counts 1/k)."""
    whole, rest = divmod(wins.numerator, wins.denominator)
    if rest == 0:
        return str(whole)
    part = f"{rest}/{wins.denominator}"
    return f"{whole} {part}" if whole else part


def _labels(entrants: Sequence[Entrant]) -> list[str]:
    names = [e if isinstance(e, str) else getattr(e, "name", type(e).__name__) for e in entrants]
    out = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            name = f"{name}#{names[: i + 1].count(name)}"
        out.append(name)
    return out


def _progress(iterable: range, enabled: bool | None) -> range:
    """Wrap in a tqdm bar if tqdm is installed (default: only when stderr is a terminal)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional
        return iterable
    return tqdm(iterable, desc="games", unit="game")  # type: ignore[no-any-return]


def play_match(
    config: RulesConfig | str,
    policies: Sequence[Entrant],
    games: int,
    seed: int,
    rotate_seats: bool = True,
    progress: bool | None = False,
    on_game: Callable[[GameResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` seeded games between ``policies`` (one entrant per seat; names or Policy objects).

    Game ``i`` uses engine seed ``seed + i``; with ``rotate_seats`` entrant ``e`` sits in seat
    ``(e + i) % players``, otherwise in seat ``e``.
    """
    cfg = RulesConfig.resolve(config)
    n = cfg.players
    if len(policies) != n:
        raise ValueError(f"{cfg.name} has {n} seats: give {n} policies, got {len(policies)}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    labels = _labels(policies)
    stats = [EntrantStats(label) for label in labels]
    results = []
    for i in _progress(range(games), progress):
        shift = i % n if rotate_seats else 0
        seat_of = [(e + shift) % n for e in range(n)]
        by_seat: list[Policy] = [None] * n  # type: ignore[list-item]
        for e, entrant in enumerate(policies):
            if isinstance(entrant, str):
                entrant = load(entrant, seed=bot_seed(seed, i, e), config=cfg)
            by_seat[seat_of[e]] = entrant
        result = play_game(cfg, by_seat, seed + i)
        results.append(result)
        k = len(result.winners)
        for e, st in enumerate(stats):
            s = seat_of[e]
            st.games += 1
            st.influence_sum += result.influence[s]
            st.return_sum += result.returns[s]
            st.latencies.extend(result.latencies[s])
            if s in result.winners:
                st.wins_exact += Fraction(1, k)
                st.wins = float(st.wins_exact)
                if k == 1:
                    st.outright += 1
                else:
                    st.shared += 1
        if on_game is not None:
            on_game(result)
    return MatchResult(cfg.name, games, seed, rotate_seats, stats, results)


__all__ = [
    "EntrantStats",
    "GameResult",
    "MatchResult",
    "bot_seed",
    "format_wins",
    "play_game",
    "play_match",
    "wilson_interval",
]
