"""The one game runner: every game that ``match``, ``tournament``, ``sprt`` and tools/match_games.py play is
played here, by one loop, with one seeding scheme, one seat permutation and one timing.

* **Bots** (:func:`make_bot`): a name of :func:`policies.available`, the search bot with options, the path of
  an exported policy, or ``cmd:PROGRAM`` (an outside program speaking the stdio protocol,
  :mod:`benchmarking.external`). A bot is created afresh for each game with a seed from :func:`bot_seed`; a
  trained bot draws nothing at random, so one object per process serves every game.
* **One game** (:func:`play_game`): seat ``q`` decided by ``bots[q]``, wall-clock and CPU time per decision
  (reporting only: no time feeds a decision), the result, the rule IDs fired, the Measure events and the
  replay. A bot that fails (an outside program that crashes, hangs past its time limit or answers an illegal
  action: :class:`~benchmarking.external.BotFailure`) forfeits the game (:data:`FORFEIT_RULING`); any other
  exception is a bug and propagates.
* **A schedule** is a list of :class:`ScheduledGame` (index, rules, engine seed, bot per seat, bot seeds):
  each game is a pure function of its entry, so :func:`run_games` may play them in this process, in local
  worker processes or on Ray (:mod:`benchmarking.ray_runner`) and the results are the same.
* **Matches** (:func:`match_schedule`, :func:`play_match`): game ``i`` uses engine seed ``seed + i``; with
  rotated seats entrant ``e`` sits in seat ``(e + i) % players`` (fixed seats: seat ``e``) and its bot is
  seeded ``bot_seed(seed, i, e)``. :class:`MatchResult` has per entrant the fractional wins (a victory shared
  by ``k`` counts ``1/k``, CORE-01-09-04), Wilson intervals, mean Influence and decision latency. Paired
  deals (``paired=True``): game ``i`` on engine seed ``seed + i // n``, each deal in every seat rotation
  (:mod:`benchmarking.paired` summarizes them).
* **Match files** (:func:`play_match_file`): the games of a match as JSON lines, one per game, resumable
  (tools/match_games.py).
* **Logs** (:func:`open_log_for_append`): every JSON-lines file this package appends to is opened here, so a
  resume never joins a new line onto one cut off mid-write.

Tournaments (blocks of seat rotations on one deal, :mod:`benchmarking.tournament`) and the SPRT
(:mod:`benchmarking.sprt`) are schedules and logs on top of this module.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

import policies
from bc_env.rules import Game, RulesConfig, record
from bc_env.rules.errors import BalanceControlError, ConfigError, StateError
from bc_env.rules.jsonread import strict_loads
from policies.base import Policy
from policies.neural import NeuralPolicy

from .external import DEFAULT_MOVE_TIME, BotFailure, ExternalBot, check_external, is_external

#: An entrant of a match: a bot name (created afresh per game) or a Policy object (reused).
Entrant = str | Policy
#: Event types whose card and player a game record keeps (EXP-01 Measures).
MEASURE_EVENTS = ("take-measure", "play-measure")
#: How a forfeited game scores (docs/benchmarking.md, "Outside bots").
FORFEIT_RULING = (
    "a bot that fails (crashes, hangs past the time limit, breaks the protocol or chooses an illegal action) "
    "forfeits: the game stops there, the failing seat loses and every other seat shares the victory (in 2 "
    "players the opponent wins outright; a victory shared by k counts 1/k); returns as RULINGS R9 gives them "
    "for those winners (the loser -1, the others +1/k); Influence is the board's at the forfeit"
)


# ---------------------------------------------------------------------------- numbers


def bot_seed(match_seed: int, game: int, slot: int) -> int:
    """The seed of the bot created for ``slot`` (an entrant in a match, a seat in a tournament) of game ``game``."""
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


def format_wins(wins: Fraction) -> str:
    """A win count as people read it: ``214``, ``214 1/3``, ``1/2`` (a victory shared by k counts 1/k)."""
    whole, rest = divmod(wins.numerator, wins.denominator)
    if rest == 0:
        return str(whole)
    part = f"{rest}/{wins.denominator}"
    return f"{whole} {part}" if whole else part


# ---------------------------------------------------------------------------- bots

#: Trained bots read their weights once per process (they draw nothing at random, so one object serves all).
_SEEDLESS: dict[tuple[str, RulesConfig], Policy] = {}


def make_bot(name: str, seed: int, config: RulesConfig, move_time: float = DEFAULT_MOVE_TIME) -> Policy:
    """The bot ``name`` for one game, seeded ``seed``, checked against ``config`` (a trained bot); ``cmd:...`` an
    outside program (:mod:`benchmarking.external`) with ``move_time`` seconds per request."""
    if is_external(name):
        return ExternalBot(name, seed, move_time)
    key = (name, config)
    cached = _SEEDLESS.get(key)
    if cached is not None:
        return cached
    bot = policies.load(name, seed=seed, config=config)
    if isinstance(bot, NeuralPolicy):
        _SEEDLESS[key] = bot
    return bot


def bot_label(entrant: Entrant) -> str:
    return entrant if isinstance(entrant, str) else getattr(entrant, "name", type(entrant).__name__)


# ---------------------------------------------------------------------------- one game


@dataclass
class GameResult:
    """One finished game."""

    seed: int
    #: Bot name per seat.
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
    #: CPU seconds of this process per decision, per seat (``time.process_time``: one core's work).
    cpu: list[list[float]] = field(default_factory=list)
    #: The game's place in its schedule.
    index: int = 0
    #: The seed each seat's bot was created with (empty for Policy objects).
    bot_seeds: list[int] = field(default_factory=list)
    #: The seat the seed drew as start player (CORE-01-03-03), rounds played.
    start_player: int = 0
    rounds: int = 0
    #: How often each rule ID appears in the game's events.
    rules: dict[str, int] = field(default_factory=dict)
    #: The EXP-01 Measure events: ``[type, player, card]``.
    measures: list[list[Any]] = field(default_factory=list)
    #: The replay document (``bc_env.rules.record``).
    replay: dict[str, Any] = field(default_factory=dict)
    #: The seat that took the last turn (:func:`last_turn_seat`).
    last_turn: int = 0
    #: A forfeit (:data:`FORFEIT_RULING`): ``{"seat", "bot", "reason"}``; None for a game played to its end.
    forfeit: dict[str, Any] | None = None


def play_game(
    config: RulesConfig | str, policies_by_seat: Sequence[Policy], seed: int, *, index: int = 0
) -> GameResult:
    """Play one game with ``policies_by_seat[q]`` deciding for seat ``q``; returns the result."""
    game = Game.new(RulesConfig.resolve(config), seed)
    n = game.num_players
    if len(policies_by_seat) != n:
        raise ValueError(f"{game.config.name} has {n} seats, got {len(policies_by_seat)} policies")
    wall: list[list[float]] = [[] for _ in range(n)]
    cpu: list[list[float]] = [[] for _ in range(n)]
    actions: list[int] = []
    forfeit: dict[str, Any] | None = None
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            action = policies_by_seat[seat].act(game)
        except BotFailure as exc:  # an outside bot failed: it forfeits (FORFEIT_RULING)
            forfeit = {"seat": seat, "bot": bot_label(policies_by_seat[seat]), "reason": str(exc)}
            break
        wall[seat].append(time.perf_counter() - t0)
        cpu[seat].append(time.process_time() - c0)
        game.apply(action)
        actions.append(action)
    return GameResult(
        seed=seed,
        seats=[bot_label(p) for p in policies_by_seat],
        latencies=wall,
        actions=actions,
        cpu=cpu,
        index=index,
        replay=record(game, seed, actions),
        last_turn=last_turn_seat(game),
        forfeit=forfeit,
        **outcome(game, len(actions), None if forfeit is None else forfeit["seat"]),
    )


def last_turn_seat(game: Game) -> int:
    """The seat that took the game's last turn: the player of the last tile drawn (every turn starts with a draw,
    CORE-01-04-04; the game ends when the next player must draw from the empty DrawPile, CORE-01-09-01, RULINGS
    R8). With 71 tiles and no discard that is the seat ``(start + 70) mod n``: the start player in 2 players
    (36 turns to 35), the third in turn order in 4 (18, 18, 18, 17)."""
    return next(e["player"] for e in reversed(game.events) if e["type"] == "draw")


def outcome(game: Game, decisions: int, forfeit_seat: int | None = None) -> dict[str, Any]:
    """What a game record says about a finished (or forfeited by ``forfeit_seat``) game, computed from the game
    itself (the runner records it; :func:`benchmarking.tournament.verify_record` recomputes it from a replay)."""
    rules = Counter(str(e.get("rule")) for e in game.events)
    winners, returns = game.winners(), game.returns()
    if forfeit_seat is not None:  # FORFEIT_RULING
        n = game.num_players
        winners = [s for s in range(n) if s != forfeit_seat]
        returns = [-1.0 if s == forfeit_seat else 1.0 / len(winners) for s in range(n)]
    return {
        "winners": winners,
        "influence": list(game.on_board),
        "returns": returns,
        "decisions": decisions,
        "start_player": next((e["player"] for e in game.events if e.get("type") == "start-player"), 0),
        "rounds": game.round,
        "rules": dict(sorted(rules.items())),
        "measures": [[e["type"], e.get("player"), e.get("card")] for e in game.events if e["type"] in MEASURE_EVENTS],
    }


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a schedule: everything needed to play it (and nothing that depends on when)."""

    index: int
    config: RulesConfig
    seed: int
    seats: tuple[str, ...]
    bot_seeds: tuple[int, ...]
    #: Seconds an outside bot may take per request (built-in bots run in this process, unlimited).
    move_time: float = DEFAULT_MOVE_TIME


def play_scheduled(game_spec: ScheduledGame) -> GameResult:
    """Play one scheduled game (a pure function of ``game_spec``, outside bots apart)."""
    config = game_spec.config
    bots = [
        make_bot(name, seed, config, game_spec.move_time) for name, seed in zip(game_spec.seats, game_spec.bot_seeds)
    ]
    try:
        result = play_game(config, bots, game_spec.seed, index=game_spec.index)
    finally:
        for bot in bots:
            getattr(bot, "close", lambda: None)()
    result.seats = list(game_spec.seats)
    result.bot_seeds = list(game_spec.bot_seeds)
    return result


def check_bots(names: Sequence[str], configs: Sequence[RulesConfig]) -> None:
    """Load every bot once for every configuration (an unknown bot, or a trained bot of other rules, raises
    the project's error) before anything is played or written."""
    for name in dict.fromkeys(names):
        if is_external(name):  # start the program and shake hands
            check_external(name)
            continue
        for config in configs:
            policies.load(name, seed=0, config=config)


# ---------------------------------------------------------------------------- playing a schedule


def _pool_results(pending: list[ScheduledGame], workers: int) -> Iterator[GameResult]:
    import concurrent.futures as cf
    import multiprocessing

    # fork: the workers start at once with the parent's imports (no torch is imported here).
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    queue = iter(pending)
    running: set[cf.Future[GameResult]] = set()
    try:
        for g in itertools.islice(queue, 2 * workers):
            running.add(pool.submit(play_scheduled, g))
        while running:
            done, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                nxt = next(queue, None)
                if nxt is not None:
                    running.add(pool.submit(play_scheduled, nxt))
                yield fut.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def run_games(
    pending: list[ScheduledGame], workers: int | None = 1, ray_address: str | None = None
) -> Iterator[GameResult]:
    """Results of ``pending`` as they finish: in this process (``workers == 1``), in a pool of ``workers``
    local processes (None: all cores), or on the Ray cluster at ``ray_address``. The generator's ``close``
    stops the workers."""
    if ray_address is not None:
        from .ray_runner import ray_map

        return ray_map(play_scheduled, pending, ray_address, workers)
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or len(pending) <= 1:
        return (play_scheduled(g) for g in pending)
    return _pool_results(pending, workers)


def in_order(results: Iterator[GameResult], first: int = 0) -> Iterator[GameResult]:
    """``results`` (by ``index``, in any order) re-emitted in index order from ``first``."""
    held: dict[int, GameResult] = {}
    nxt = first
    for r in results:
        held[r.index] = r
        while nxt in held:
            yield held.pop(nxt)
            nxt += 1
    yield from (held[i] for i in sorted(held))


def progress_bar(total: int, initial: int, enabled: bool | None) -> Any:
    """A tqdm bar on stderr if tqdm is installed (``enabled`` None: only when stderr is a terminal)."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional
        return None
    return tqdm(total=total, initial=initial, desc="games", unit="game")


# ---------------------------------------------------------------------------- logs


def open_log_for_append(path: Path) -> IO[str]:
    """``path`` opened to append JSON lines, never joining a new line onto the last one: a last line without
    its final newline is completed with it when it is a whole JSON value (only the newline was lost), and
    removed when it is not (a write cut off mid-line; its game is played again)."""
    with path.open("rb+") as fh:
        data = fh.read()
        if data and not data.endswith(b"\n"):
            start = data.rfind(b"\n") + 1
            try:
                strict_loads(data[start:], str(path))
                fh.write(b"\n")
            except StateError:  # not JSON, not UTF-8, or a line no reader accepts (a non-finite number)
                fh.truncate(start)
    return path.open("a", encoding="utf-8")


# ---------------------------------------------------------------------------- matches


def match_schedule(
    config: RulesConfig,
    names: Sequence[str],
    games: int,
    seed: int,
    rotate_seats: bool = True,
    paired: bool = False,
) -> list[ScheduledGame]:
    """The games of a match: game ``i`` on engine seed ``seed + i``, entrant ``e`` in seat ``(e + i) % n``
    (``rotate_seats``; else seat ``e``) with a bot seeded ``bot_seed(seed, i, e)``.

    ``paired``: paired deals, game ``i`` on engine seed ``seed + i // n`` (deal ``i // n`` played once in each
    of the ``n`` seat rotations); ``games`` must then be a multiple of ``n``."""
    n = config.players
    if paired and (not rotate_seats or games % n):
        raise ValueError(f"paired deals rotate the seats over whole deals: games must be a multiple of {n}")
    out = []
    for i in range(games):
        shift = i % n if rotate_seats else 0
        seats: list[str] = [""] * n
        seeds = [0] * n
        for e, name in enumerate(names):
            seats[(e + shift) % n] = name
            seeds[(e + shift) % n] = bot_seed(seed, i, e)
        out.append(ScheduledGame(i, config, seed + (i // n if paired else i), tuple(seats), tuple(seeds)))
    return out


def entrant_seats(game: ScheduledGame | int, players: int, rotate_seats: bool = True) -> list[int]:
    """The seat of each entrant in match game ``game``."""
    i = game if isinstance(game, int) else game.index
    shift = i % players if rotate_seats else 0
    return [(e + shift) % players for e in range(players)]


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
    #: CPU seconds per decision (``time.process_time``: the bot's own work, less sensitive to a loaded machine).
    cpu: list[float] = field(default_factory=list)

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

    def cpu_ms(self, q: float) -> float:
        """A quantile of the CPU time per decision in milliseconds (0.5 median, 0.99 p99, 1.0 max); nan without
        decisions."""
        if not self.cpu:
            return float("nan")
        data = sorted(self.cpu)
        if q == 0.5:
            return 1000.0 * statistics.median(data)
        return 1000.0 * data[min(len(data) - 1, int(q * len(data)))]

    def add(self, result: GameResult, seat: int) -> None:
        k = len(result.winners)
        self.games += 1
        self.influence_sum += result.influence[seat]
        self.return_sum += result.returns[seat]
        self.latencies.extend(result.latencies[seat])
        if result.cpu:
            self.cpu.extend(result.cpu[seat])
        if seat in result.winners:
            self.wins_exact += Fraction(1, k)
            self.wins = float(self.wins_exact)
            if k == 1:
                self.outright += 1
            else:
                self.shared += 1


def _ms(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


@dataclass
class MatchResult:
    config: str
    games: int
    seed: int
    rotate_seats: bool
    entrants: list[EntrantStats]
    results: list[GameResult]
    #: Paired deals (:func:`match_schedule`): each deal played in every seat rotation.
    paired: bool = False

    def forfeits(self) -> list[dict[str, Any]]:
        """The forfeited games: ``{"game", "seat", "bot", "reason"}`` each (:data:`FORFEIT_RULING`)."""
        return [{"game": r.index, **r.forfeit} for r in self.results if r.forfeit is not None]

    def table(self) -> str:
        """The match as a Markdown table."""
        seats = "rotated" if self.rotate_seats else "fixed"
        if self.paired:
            seats = f"rotated on paired deals ({self.games // len(self.entrants)} deals)"
        lines = [
            f"{self.config}: {self.games} games, seed {self.seed}, seats {seats}; a victory shared by k counts 1/k",
            "| entrant | games | wins | outright | shared | win rate | 95% CI (Wilson) | mean Influence "
            "| mean return | decision ms (median / p99) | decision CPU ms (median / p99 / max) |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for e in self.entrants:
            lo, hi = e.ci95
            lines.append(
                f"| {e.label} | {e.games} | {format_wins(e.wins_exact)} | {e.outright} | {e.shared} | "
                f"{e.win_rate:.1%} | "
                f"{lo:.1%} .. {hi:.1%} | {e.mean_influence:.2f} | {e.mean_return:+.3f} | "
                f"{e.latency_ms(0.5):.2f} / {e.latency_ms(0.99):.2f} | "
                f"{e.cpu_ms(0.5):.2f} / {e.cpu_ms(0.99):.2f} / {e.cpu_ms(1.0):.2f} |"
            )
        lines += [f"forfeit: game {f['game']}, seat {f['seat']} ({f['bot']}): {f['reason']}" for f in self.forfeits()]
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
                    "decision_cpu_ms_median": _ms(e.cpu_ms(0.5)),
                    "decision_cpu_ms_p99": _ms(e.cpu_ms(0.99)),
                    "decision_cpu_ms_max": _ms(e.cpu_ms(1.0)),
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
            **({"forfeits": self.forfeits()} if self.forfeits() else {}),
        }


def entrant_labels(entrants: Sequence[Entrant]) -> list[str]:
    """Entrant names, a repeated one numbered (``random#1``, ``random#2``)."""
    names = [bot_label(e) for e in entrants]
    out = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            name = f"{name}#{names[: i + 1].count(name)}"
        out.append(name)
    return out


def play_match(
    config: RulesConfig | str,
    entrants: Sequence[Entrant],
    games: int,
    seed: int,
    rotate_seats: bool = True,
    progress: bool | None = False,
    on_game: Callable[[GameResult], None] | None = None,
    workers: int = 1,
    paired: bool = False,
    move_time: float = DEFAULT_MOVE_TIME,
) -> MatchResult:
    """Play ``games`` seeded games between ``entrants`` (one per seat; bot names or Policy objects).

    The games are :func:`match_schedule`'s. Bots given by name are created afresh for every game; Policy
    objects are reused (and need ``workers == 1``). ``on_game`` gets each result in game order. ``paired``:
    paired deals (each deal in every seat rotation; ``games`` rounded up to a whole number of deals).
    ``move_time``: seconds an outside bot (``cmd:...``) may take per request; one that fails forfeits the game.
    """
    cfg = RulesConfig.resolve(config)
    n = cfg.players
    if len(entrants) != n:
        raise ValueError(f"{cfg.name} has {n} seats: give {n} policies, got {len(entrants)}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    names = [bot_label(e) for e in entrants]
    if paired:
        games = -(-games // n) * n
    schedule = [replace(g, move_time=move_time) for g in match_schedule(cfg, names, games, seed, rotate_seats, paired)]
    objects = {e: p for e, p in enumerate(entrants) if not isinstance(p, str)}
    if objects and workers > 1:
        raise ValueError("Policy objects are played in this process: workers must be 1")
    stats = [EntrantStats(label) for label in entrant_labels(entrants)]
    results: list[GameResult] = []
    bar = progress_bar(games, 0, progress)
    if objects:

        def own(g: ScheduledGame) -> GameResult:
            seat_of = entrant_seats(g, n, rotate_seats)
            by_seat: list[Policy] = [None] * n  # type: ignore[list-item]
            made = []
            for e, entrant in enumerate(entrants):
                s = seat_of[e]
                if isinstance(entrant, str):
                    entrant = make_bot(entrant, g.bot_seeds[s], cfg, g.move_time)
                    made.append(entrant)
                by_seat[s] = entrant
            try:
                return play_game(cfg, by_seat, g.seed, index=g.index)
            finally:
                for bot in made:
                    getattr(bot, "close", lambda: None)()

        stream: Iterator[GameResult] = (own(g) for g in schedule)
    else:
        stream = run_games(schedule, workers)
    try:
        for result in in_order(stream):
            results.append(result)
            for e, seat in enumerate(entrant_seats(result.index, n, rotate_seats)):
                stats[e].add(result, seat)
            if bar is not None:
                bar.update(1)
            if on_game is not None:
                on_game(result)
    finally:
        getattr(stream, "close", lambda: None)()
        if bar is not None:
            bar.close()
    return MatchResult(cfg.name, games, seed, rotate_seats, stats, results, paired)


# ---------------------------------------------------------------------------- match files


class MatchFileError(BalanceControlError):
    """A results file that is not a match file's JSON lines, or holds the games of another match."""


MATCH_ROW_KEYS = frozenset({"i", "config", "bots", "seed", "seat", "winners", "result", "influence", "wall", "cpu"})


def match_row(result: GameResult, config: str, bots: list[str], seed: int) -> dict[str, Any]:
    """Game ``result.index`` of a match as a match-file row: the first entrant's seat, result and times."""
    me = entrant_seats(result.index, len(bots))[0]
    w = result.winners
    res = "lost" if me not in w else "outright" if len(w) == 1 else "shared"
    return {"i": result.index, "config": config, "bots": bots, "seed": seed, "seat": me, "winners": w,
            "result": res, "influence": result.influence, "wall": [round(x, 4) for x in result.latencies[me]],
            "cpu": [round(x, 4) for x in result.cpu[me]]}  # fmt: skip


def read_match_file(path: Path) -> list[dict[str, Any]]:
    """The games in a match file, each line checked to be a match-file row."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = strict_loads(line, f"{path}:{n}")
        except StateError as exc:
            raise MatchFileError(str(exc)) from None
        if not isinstance(row, dict) or not row.keys() >= MATCH_ROW_KEYS:
            raise MatchFileError(f"{path}:{n}: not a game of tools/match_games.py (needs {sorted(MATCH_ROW_KEYS)})")
        rows.append(row)
    return rows


def play_match_file(config: str, bots: list[str], seed: int, games: int, out: Path, workers: int = 1) -> None:
    """Play the games of ``match --config CONFIG --bots BOTS --seed SEED`` (seats rotated) that ``out`` does
    not hold yet and append one row per game as it finishes."""
    cfg = RulesConfig.resolve(config)
    n = cfg.players
    if len(bots) != n:
        raise ConfigError(f"{cfg.name} has {n} seats: give {n} bots, got {len(bots)}")
    check_bots(bots, [cfg])  # an unknown bot fails here, before the file is touched
    done = set()
    if out.exists():
        for row in read_match_file(out):
            if (row["config"], row["bots"], row["seed"]) != (cfg.name, bots, seed):
                raise MatchFileError(
                    f"{out} holds the games of {row['config']} {','.join(row['bots'])} seed {row['seed']}, not of"
                    f" {cfg.name} {','.join(bots)} seed {seed}: resume a match into its own file"
                )
            done.add(row["i"])
    else:
        out.touch()
    todo = [g for g in match_schedule(cfg, bots, games, seed) if g.index not in done]
    results = run_games(todo, workers)
    try:
        with open_log_for_append(out) as f:
            for result in results:
                f.write(json.dumps(match_row(result, cfg.name, bots, seed)) + "\n")
                f.flush()
    finally:
        getattr(results, "close", lambda: None)()


def _q(xs: list[float], f: float) -> float:
    return 1000 * xs[min(len(xs) - 1, int(len(xs) * f))] if xs else 0.0


def match_file_summary(path: Path) -> str:
    """One paragraph: the first bot's score, outcomes and decision times in the match file ``path``."""
    if not path.is_file():
        return f"{path}: no such file"
    rows = read_match_file(path)
    if not rows:
        return f"{path}: no games"
    g = len(rows)
    score = sum(1 / len(r["winners"]) for r in rows if r["result"] != "lost")
    counts = [sum(r["result"] == k for r in rows) for k in ("outright", "shared", "lost")]
    lo, hi = wilson_interval(score, g)
    wall = sorted(x for r in rows for x in r["wall"])
    cpu = sorted(x for r in rows for x in r["cpu"])
    return (
        f"{path}: {rows[0]['bots'][0]} in {rows[0]['config']} vs {', '.join(rows[0]['bots'][1:])}: {g} games, "
        f"score {score:g}, outright/shared/lost {counts[0]}/{counts[1]}/{counts[2]}, win rate {score / g:.1%} "
        f"(Wilson 95% {lo:.1%}-{hi:.1%}); first bot's decisions: CPU ms median {_q(cpu, 0.5):.0f} / p99 "
        f"{_q(cpu, 0.99):.0f} / max {_q(cpu, 1.0):.0f}, wall ms median {_q(wall, 0.5):.0f} / p99 {_q(wall, 0.99):.0f}"
    )


__all__ = [
    "MEASURE_EVENTS",
    "Entrant",
    "DEFAULT_MOVE_TIME",
    "FORFEIT_RULING",
    "BotFailure",
    "EntrantStats",
    "GameResult",
    "MatchFileError",
    "MatchResult",
    "ScheduledGame",
    "bot_seed",
    "check_bots",
    "format_wins",
    "in_order",
    "last_turn_seat",
    "make_bot",
    "match_file_summary",
    "match_schedule",
    "open_log_for_append",
    "outcome",
    "play_game",
    "play_match",
    "play_match_file",
    "play_scheduled",
    "run_games",
    "wilson_interval",
]
