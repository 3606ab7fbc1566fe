"""Tournaments: a schedule of seeded games between bots, played in parallel and streamed to a JSON-lines log.

**Schedule.** A tournament is a set of bots (names of :func:`policies.available` or paths of exported
policies), one or more rules configurations, a number of games per configuration and a seed. For a
configuration with ``P`` seats the games come in *blocks* of ``P``: a block takes one lineup of bots (the
``P``-bot combinations of the bots in turn; with fewer bots than seats, the bots repeated to fill the seats),
shuffles its order with a seeded RNG and plays every distinct rotation of it (``P`` of them, fewer when the
lineup repeats itself, as one bot in every seat does) on the same deal (engine seed ``seed + block``; blocks
are numbered across configurations). Every bot of a block therefore sits in every seat equally often on the
same cards, so no bot profits from a seat or a deal; the games asked for are rounded up to a whole block.

**Seeds.** Game ``i`` of block ``b`` uses engine seed ``seed + b``; the bot in seat ``s`` is created afresh
with :func:`policies.arena.bot_seed` ``(seed, i, s)`` (the arena's scheme), so every game is a pure function
of its schedule entry: the order in which workers finish, their number, or a resume change nothing.

**Log** (``docs/benchmarking.md``). Line 1 is the header (format, version, bots, configurations, games, seed);
every further line is one finished game: its index, configuration name, seed, seats, bot seeds, winners,
Influence on the Board, returns, start player, rounds, decisions, how often each rule ID fired in its events,
its Measure events and a complete replay document (``bc_env.rules.replay`` format) under ``replay``. Lines
are appended as games finish (in any order); readers sort by index. Resuming reads the finished games, drops a
last line cut off mid-write, and plays only the missing ones.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bc_env.rules import Game, RulesConfig, record
from bc_env.rules.errors import BalanceControlError
from policies.arena import bot_seed

from .errors import TournamentError, TournamentLogError

FORMAT = "balance-control-tournament"
VERSION = 1
#: Event types whose card and player the log keeps (EXP-01 Measures).
MEASURE_EVENTS = ("take-measure", "play-measure")


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays; the log's header is this, and a resume must match it."""

    bots: tuple[str, ...]
    configs: tuple[RulesConfig, ...]
    #: Games asked for per configuration (rounded up to whole blocks, see :func:`schedule`).
    games: int
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.bots:
            raise TournamentError("a tournament needs at least one bot")
        if not self.configs:
            raise TournamentError("a tournament needs at least one rules configuration")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            raise TournamentError(f"games must be an integer >= 1, got {self.games!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise TournamentError(f"seed must be an integer >= 0, got {self.seed!r}")

    @property
    def total_games(self) -> int:
        """Games scheduled: per configuration, ``games`` rounded up to a whole block."""
        return len(schedule(self))

    def header(self) -> dict[str, Any]:
        return {
            "type": "tournament",
            "format": FORMAT,
            "version": VERSION,
            "bots": list(self.bots),
            "configs": [c.to_dict() for c in self.configs],
            "games": self.games,
            "seed": self.seed,
            "total_games": self.total_games,
        }

    @classmethod
    def from_header(cls, header: Any, where: str) -> TournamentSpec:
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("type") != "tournament":
            raise TournamentLogError(
                f"{where}: not a tournament log: the first line must be a header with format {FORMAT!r}"
            )
        if header.get("version") != VERSION:
            raise TournamentLogError(
                f"{where}: unsupported tournament log version {header.get('version')!r}; this reads {VERSION}"
            )
        for key, kind in (("bots", list), ("configs", list), ("games", int), ("seed", int)):
            if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
                raise TournamentLogError(f"{where}: header.{key} is missing or not a {kind.__name__}")
        if not all(isinstance(b, str) for b in header["bots"]):
            raise TournamentLogError(f"{where}: header.bots must be a list of bot names")
        try:
            configs = tuple(RulesConfig.from_dict(c) for c in header["configs"])
            return cls(tuple(header["bots"]), configs, header["games"], header["seed"])
        except BalanceControlError as exc:
            raise TournamentLogError(f"{where}: header: {exc}") from None


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: everything needed to play it (and nothing that depends on when)."""

    index: int
    config: RulesConfig
    seed: int
    seats: tuple[str, ...]
    bot_seeds: tuple[int, ...]


def lineups(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """The bot lineups (indices) of a configuration's blocks, in turn: every ``players``-combination of the
    bots; with fewer bots than seats, the bots repeated in order to fill the seats, starting from each bot in
    turn (so every bot holds the extra seats equally often)."""
    if n_bots >= players:
        return list(itertools.combinations(range(n_bots), players))
    return [tuple((k + i) % n_bots for i in range(players)) for k in range(n_bots)]


def schedule(spec: TournamentSpec) -> list[ScheduledGame]:
    """Every game of the tournament, by index (configurations in order, then blocks, then rotations).

    A block plays each *distinct* rotation of its lineup once: P games, or fewer when the lineup repeats
    itself (one bot in every seat: 1 game; A, B, A, B: 2), since a rotation that seats the same bots the same
    way would replay a game already played. Either way every bot of the block holds every seat equally often.
    """
    games: list[ScheduledGame] = []
    block = 0
    for config in spec.configs:
        p = config.players
        groups = lineups(len(spec.bots), p)
        local_block = 0
        first = len(games)
        while len(games) - first < spec.games:
            group = list(groups[local_block % len(groups)])
            # The lineup's order for this block: a seeded shuffle (integers only, no string hashing).
            random.Random(spec.seed * 1_000_003 + block).shuffle(group)
            rotations: list[tuple[str, ...]] = []
            for shift in range(p):
                seats = tuple(spec.bots[group[(s + shift) % p]] for s in range(p))
                if seats not in rotations:
                    rotations.append(seats)
            for seats in rotations:
                index = len(games)
                seeds = tuple(bot_seed(spec.seed, index, s) for s in range(p))
                games.append(ScheduledGame(index, config, spec.seed + block, seats, seeds))
            block += 1
            local_block += 1
    return games


# ---------------------------------------------------------------------------- playing one game

#: Trained bots read their weights once per process (they draw nothing at random, so one object serves all).
_NEURAL_CACHE: dict[tuple[str, RulesConfig], Any] = {}


def _bot(name: str, seed: int, config: RulesConfig) -> Any:
    import policies

    if name in ("random", "heuristic", "expert", "mcts") or name.startswith("mcts:"):  # seeded per game
        return policies.load(name, seed=seed)
    key = (name, config)
    if key not in _NEURAL_CACHE:
        _NEURAL_CACHE[key] = policies.load(name, seed=seed, config=config)
    return _NEURAL_CACHE[key]


def play_scheduled(game_spec: ScheduledGame) -> dict[str, Any]:
    """Play one scheduled game and return its log record (a pure function of ``game_spec``)."""
    game = Game.new(game_spec.config, game_spec.seed)
    bots = [_bot(name, seed, game_spec.config) for name, seed in zip(game_spec.seats, game_spec.bot_seeds)]
    actions: list[int] = []
    while not game.is_terminal():
        seat = game.current_player
        assert seat is not None
        action = bots[seat].act(game)
        game.apply(action)
        actions.append(action)
    rules = Counter(str(e.get("rule")) for e in game.events)
    measures = [[e["type"], e.get("player"), e.get("card")] for e in game.events if e.get("type") in MEASURE_EVENTS]
    return {
        "type": "game",
        "index": game_spec.index,
        "config": game_spec.config.name,
        "seed": game_spec.seed,
        "seats": list(game_spec.seats),
        "bot_seeds": list(game_spec.bot_seeds),
        "winners": game.winners(),
        "influence": list(game.on_board),
        "returns": game.returns(),
        "start_player": next((e["player"] for e in game.events if e.get("type") == "start-player"), 0),
        "rounds": game.round,
        "decisions": len(actions),
        "rules": dict(sorted(rules.items())),
        "measures": measures,
        "replay": record(game, game_spec.seed, actions),
    }


# ---------------------------------------------------------------------------- the log


@dataclass
class TournamentLog:
    """A tournament log read back: its spec and the finished games by index."""

    path: Path
    spec: TournamentSpec
    games: dict[int, dict[str, Any]]
    #: The last line was cut off mid-write (an interrupted run); it is not among ``games``.
    cut_tail: bool = False

    def ordered(self) -> list[dict[str, Any]]:
        return [self.games[i] for i in sorted(self.games)]

    @property
    def complete(self) -> bool:
        return len(self.games) == self.spec.total_games


def _check_record(rec: Any, expected: dict[int, ScheduledGame], where: str) -> dict[str, Any]:
    if not isinstance(rec, dict) or rec.get("type") != "game":
        raise TournamentLogError(f"{where}: not a game record (an object with type 'game')")
    fields: tuple[tuple[str, type | tuple[type, ...]], ...] = (
        ("index", int),
        ("config", str),
        ("seed", int),
        ("seats", list),
        ("winners", list),
        ("influence", list),
        ("returns", list),
        ("start_player", int),
        ("rounds", int),
        ("decisions", int),
        ("rules", dict),
        ("measures", list),
        ("replay", dict),
    )
    for key, kind in fields:
        if key not in rec:
            raise TournamentLogError(f"{where}: game record has no {key!r}")
        if not isinstance(rec[key], kind) or isinstance(rec[key], bool):
            raise TournamentLogError(f"{where}: game.{key} has the wrong type ({type(rec[key]).__name__})")
    sched = expected.get(rec["index"])
    if sched is None:
        raise TournamentLogError(f"{where}: game index {rec['index']} is not in this tournament's schedule")
    want = {"config": sched.config.name, "seed": sched.seed, "seats": list(sched.seats)}
    for key, value in want.items():
        if rec[key] != value:
            raise TournamentLogError(
                f"{where}: game {rec['index']}: {key} {rec[key]!r} does not match the schedule ({value!r})"
            )
    p = sched.config.players
    if len(rec["influence"]) != p or len(rec["returns"]) != p:
        raise TournamentLogError(f"{where}: game {rec['index']}: influence and returns need {p} entries")
    if not 0 <= rec["start_player"] < p:
        raise TournamentLogError(f"{where}: game {rec['index']}: start_player must be a seat 0..{p - 1}")
    if not rec["winners"] or not all(isinstance(w, int) and 0 <= w < p for w in rec["winners"]):
        raise TournamentLogError(
            f"{where}: game {rec['index']}: winners must be seats 0..{p - 1}, got {rec['winners']}"
        )
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in rec["influence"] + rec["returns"]):
        raise TournamentLogError(f"{where}: game {rec['index']}: influence and returns must be numbers")
    best = max(rec["influence"])
    if sorted(rec["winners"]) != [s for s in range(p) if rec["influence"][s] == best]:
        raise TournamentLogError(
            f"{where}: game {rec['index']}: winners {rec['winners']} are not the seats with the most Influence "
            f"{rec['influence']}"
        )
    for m in rec["measures"]:
        if not (isinstance(m, list) and len(m) == 3 and m[0] in MEASURE_EVENTS and isinstance(m[2], str)):
            raise TournamentLogError(f"{where}: game {rec['index']}: malformed Measure event {m!r}")
    return rec


def read_log(path: str | Path) -> TournamentLog:
    """Read and validate a tournament log. A last line cut off mid-write is dropped (``cut_tail``); any other
    malformed line raises :class:`TournamentLogError` naming the file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TournamentLogError(f"cannot read tournament log {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TournamentLogError(f"{path}: not a tournament log (not UTF-8 text)") from None
    lines = text.split("\n")
    cut_tail = False
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:  # no newline at the end: the last write may have been interrupted
        try:
            json.loads(lines[-1])
        except json.JSONDecodeError:
            lines.pop()
            cut_tail = True
    if not lines:
        raise TournamentLogError(f"{path}: empty file, not a tournament log")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise TournamentLogError(f"{path}:1: not a tournament log: the first line is not JSON") from None
    spec = TournamentSpec.from_header(header, f"{path}:1")
    expected = {g.index: g for g in schedule(spec)}
    games: dict[int, dict[str, Any]] = {}
    for n, line in enumerate(lines[1:], start=2):
        where = f"{path}:{n}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TournamentLogError(f"{where}: not valid JSON ({exc.msg})") from None
        rec = _check_record(rec, expected, where)
        if rec["index"] in games:
            raise TournamentLogError(f"{where}: game {rec['index']} appears twice")
        games[rec["index"]] = rec
    return TournamentLog(path, spec, games, cut_tail)


# ---------------------------------------------------------------------------- running


def _local_results(pending: list[ScheduledGame], workers: int) -> Iterator[dict[str, Any]]:
    """Records of ``pending`` as they finish: in this process (``workers == 1``) or a process pool."""
    if workers <= 1:
        for g in pending:
            yield play_scheduled(g)
        return
    import concurrent.futures as cf
    import multiprocessing

    # fork: the workers start at once with the parent's imports (no torch is imported here).
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    queue = iter(pending)
    running: set[cf.Future[dict[str, Any]]] = set()
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


def _progress(total: int, initial: int, enabled: bool | None) -> Any:
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional
        return None
    return tqdm(total=total, initial=initial, desc="games", unit="game")


def run_tournament(
    spec: TournamentSpec | None,
    log_path: str | Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool | None = False,
    stop: Callable[[dict[str, Any]], bool] | None = None,
) -> TournamentLog:
    """Play a tournament into ``log_path`` and return the log.

    ``resume``: continue the log at ``log_path`` (``spec`` may be None to take it from the header; given, it
    must equal the header's). Without ``resume`` the log must not exist yet. ``workers``: local processes
    (default: all cores; 1 plays in this process). ``ray_address``: play on a Ray cluster instead
    (:mod:`benchmarking.ray_runner`). ``stop``: called with each record in index order (after every earlier
    game is in); returning True ends the tournament there (used by the sequential test) — the result depends
    only on the games before it, never on the order in which workers finished.
    """
    log_path = Path(log_path)
    done: dict[int, dict[str, Any]] = {}
    if log_path.exists():
        if not resume:
            raise TournamentLogError(f"{log_path} exists: pass resume (--resume) to continue it, or another path")
        old = read_log(log_path)
        if spec is not None and spec.header() != old.spec.header():
            raise TournamentLogError(
                f"{log_path} is another tournament (bots, configurations, games or seed differ); "
                "resume it without those options or choose another path"
            )
        spec = old.spec
        for name in spec.bots:
            check_bot(name, spec.configs)
        done = old.games
        if old.cut_tail:  # rewrite without the line cut off mid-write
            keep = log_path.read_text(encoding="utf-8").split("\n")[:-1]
            log_path.write_text("\n".join(keep) + "\n", encoding="utf-8")
    else:
        if spec is None:
            raise TournamentLogError(f"{log_path} does not exist: nothing to resume")
        for name in spec.bots:  # before the log exists, so that a typo leaves nothing behind
            check_bot(name, spec.configs)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(json.dumps(spec.header()) + "\n", encoding="utf-8")
    games = schedule(spec)
    by_index = {g.index: g for g in games}
    pending = [g for g in games if g.index not in done]

    # Feed ``stop`` in index order: everything before the first missing game, then each new contiguous game.
    next_index = 0
    stopped = False

    def advance() -> None:
        nonlocal next_index, stopped
        while not stopped and next_index in done:
            if stop is not None and stop(done[next_index]):
                stopped = True
            next_index += 1

    advance()
    if stopped or not pending:
        return TournamentLog(log_path, spec, done)
    bar = _progress(len(games), len(done), progress)
    results: Iterable[dict[str, Any]]
    if ray_address is not None:
        from .ray_runner import ray_results

        results = ray_results(pending, ray_address, workers)
    else:
        results = _local_results(pending, workers or os.cpu_count() or 1)
    try:
        with log_path.open("a", encoding="utf-8") as log:
            for rec in results:
                assert rec["index"] in by_index
                log.write(json.dumps(rec) + "\n")
                log.flush()
                done[rec["index"]] = rec
                if bar is not None:
                    bar.update(1)
                advance()
                if stopped:
                    break
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
        if bar is not None:
            bar.close()
    return TournamentLog(log_path, spec, done)


def check_bot(name: str, configs: Iterable[RulesConfig]) -> None:
    """Raise :class:`TournamentError` unless ``name`` is a bot that loads and, for a trained bot, was trained
    for every one of ``configs`` (``policies.load`` with ``config`` checks it)."""
    import policies

    for config in configs:
        try:
            policies.load(name, seed=0, config=config)
        except (BalanceControlError, ValueError, OSError) as exc:
            raise TournamentError(str(exc)) from None


__all__ = [
    "FORMAT",
    "VERSION",
    "ScheduledGame",
    "TournamentLog",
    "TournamentSpec",
    "lineups",
    "play_scheduled",
    "read_log",
    "run_tournament",
    "schedule",
]
