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
with :func:`benchmarking.runner.bot_seed` ``(seed, i, s)`` (the match's scheme), so every game is a pure function
of its schedule entry: the order in which workers finish, their number, or a resume change nothing.

**Log** (``docs/benchmarking.md``). Line 1 is the header (format, version, bots, configurations, games, seed);
every further line is one finished game: its index, configuration name, seed, seats, bot seeds, winners,
Influence on the Board, returns, start player, rounds, decisions, how often each rule ID fired in its events,
its Measure events and a complete replay document (``bc_env.rules.replay`` format) under ``replay``. Lines
are appended as games finish (in any order); readers sort by index. Resuming reads the finished games, drops a
last line cut off mid-write, and plays only the missing ones.

The games are played by the one game runner (:mod:`benchmarking.runner`): this module is the schedule and the log.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bc_env.rules import Game, RulesConfig, load_replay
from bc_env.rules.errors import BalanceControlError, StateError
from bc_env.rules.jsonread import strict_loads

from . import runner
from .errors import TournamentError, TournamentLogError
from .runner import MEASURE_EVENTS, GameResult, ScheduledGame, bot_seed

FORMAT = "balance-control-tournament"
VERSION = 1


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


# ---------------------------------------------------------------------------- one game's record


def game_record(result: GameResult, config: RulesConfig) -> dict[str, Any]:
    """The log record of a game the runner played (its fields in the log's order)."""
    return {
        "type": "game",
        "index": result.index,
        "config": config.name,
        "seed": result.seed,
        "seats": list(result.seats),
        "bot_seeds": list(result.bot_seeds),
        "winners": result.winners,
        "influence": result.influence,
        "returns": result.returns,
        "start_player": result.start_player,
        "rounds": result.rounds,
        "decisions": result.decisions,
        "rules": result.rules,
        "measures": result.measures,
        "replay": result.replay,
    } | ({"forfeit": result.forfeit} if result.forfeit is not None else {})


# ---------------------------------------------------------------------------- the log


@dataclass
class TournamentLog:
    """A tournament log read back: its spec and the finished games by index."""

    path: Path
    spec: TournamentSpec
    games: dict[int, dict[str, Any]]
    #: The last line was cut off mid-write (an interrupted run); it is not among ``games``.
    cut_tail: bool = False
    #: The seat that took each game's last turn, by index (known for the games replayed or played).
    last_turn: dict[int, int] = field(default_factory=dict)

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
    if "bot_seeds" in rec:
        want["bot_seeds"] = list(sched.bot_seeds)
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
    forfeit = rec.get("forfeit")
    if forfeit is not None:  # runner.FORFEIT_RULING
        if not (
            isinstance(forfeit, dict)
            and isinstance(forfeit.get("seat"), int)
            and not isinstance(forfeit.get("seat"), bool)
            and 0 <= forfeit["seat"] < p
            and isinstance(forfeit.get("reason"), str)
        ):
            raise TournamentLogError(f"{where}: game {rec['index']}: malformed forfeit {forfeit!r}")
        if sorted(rec["winners"]) != [s for s in range(p) if s != forfeit["seat"]]:
            raise TournamentLogError(
                f"{where}: game {rec['index']}: winners {rec['winners']} are not every seat but the one that forfeited"
            )
        return rec
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


def verify_record(rec: dict[str, Any], config: RulesConfig, where: str) -> Game:
    """Replay the record's replay and check that it is this game and reproduces everything the record says
    (winners, Influence, returns, start player, rounds, decisions, rules fired, Measure events); a record that
    was edited, or carries another game's replay, raises :class:`TournamentLogError` naming the field."""
    i = rec["index"]
    doc = rec["replay"]
    try:
        game = load_replay(doc)
        replay_config = RulesConfig.from_dict(doc["config"])
    except BalanceControlError as exc:
        raise TournamentLogError(f"{where}: game {i}: its replay does not load: {exc}") from None
    if replay_config != config or doc["seed"] != rec["seed"]:
        raise TournamentLogError(
            f"{where}: game {i}: its replay is of another game (config {replay_config.name}, seed {doc['seed']}; "
            f"the schedule has {config.name}, seed {rec['seed']})"
        )
    forfeit = rec.get("forfeit")
    if forfeit is None and not game.is_terminal():
        raise TournamentLogError(f"{where}: game {i}: its replay stops before the end of the game")
    if forfeit is not None and game.current_player != forfeit["seat"]:
        raise TournamentLogError(
            f"{where}: game {i}: seat {forfeit['seat']} forfeited, but its replay stops at a decision of "
            f"{'nobody (the game is over)' if game.is_terminal() else f'seat {game.current_player}'}"
        )
    computed = runner.outcome(game, len(doc["actions"]), None if forfeit is None else forfeit["seat"])
    for key, value in computed.items():
        if rec[key] != value:
            raise TournamentLogError(
                f"{where}: game {i}: the record says {key} {rec[key]!r}, its replay gives {value!r} "
                "(the record was altered or belongs to another game)"
            )
    return game


def read_log(path: str | Path, verify: bool = True) -> TournamentLog:
    """Read and validate a tournament log. A last line cut off mid-write is dropped (``cut_tail``); any other
    malformed line raises :class:`TournamentLogError` naming the file and line. With ``verify`` (the default)
    every game's replay is replayed and must reproduce its record (:func:`verify_record`)."""
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
            json.loads(lines[-1])  # only whether it is whole: every line is read strictly below
        except json.JSONDecodeError:
            lines.pop()
            cut_tail = True
        except ValueError:  # whole, but with an integer too long to read: refused below
            pass
    if not lines:
        raise TournamentLogError(f"{path}: empty file, not a tournament log")
    try:
        header = strict_loads(lines[0], "header")
    except StateError as exc:
        raise TournamentLogError(f"{path}:1: not a tournament log: {exc}") from None
    spec = TournamentSpec.from_header(header, f"{path}:1")
    expected = {g.index: g for g in schedule(spec)}
    games: dict[int, dict[str, Any]] = {}
    last_turn: dict[int, int] = {}
    for n, line in enumerate(lines[1:], start=2):
        where = f"{path}:{n}"
        try:
            rec = strict_loads(line, where)
        except StateError as exc:
            raise TournamentLogError(str(exc)) from None
        rec = _check_record(rec, expected, where)
        if verify:
            last_turn[rec["index"]] = runner.last_turn_seat(verify_record(rec, expected[rec["index"]].config, where))
        if rec["index"] in games:
            raise TournamentLogError(f"{where}: game {rec['index']} appears twice")
        games[rec["index"]] = rec
    return TournamentLog(path, spec, games, cut_tail, last_turn)


# ---------------------------------------------------------------------------- running


def run_tournament(
    spec: TournamentSpec | None,
    log_path: str | Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool | None = False,
    stop: Callable[[dict[str, Any]], bool] | None = None,
    move_time: float = runner.DEFAULT_MOVE_TIME,
) -> TournamentLog:
    """Play a tournament into ``log_path`` and return the log.

    ``resume``: continue the log at ``log_path`` (``spec`` may be None to take it from the header; given, it
    must equal the header's). Without ``resume`` the log must not exist yet. ``workers``: local processes
    (default: all cores; 1 plays in this process). ``ray_address``: play on a Ray cluster instead
    (:mod:`benchmarking.ray_runner`). ``stop``: called with each record in index order (after every earlier
    game is in); returning True ends the tournament there (used by the sequential test) — the result depends
    only on the games before it, never on the order in which workers finished. ``move_time``: seconds an
    outside bot (``cmd:...``) may take per request.
    """
    log_path = Path(log_path)
    done: dict[int, dict[str, Any]] = {}
    last_turn: dict[int, int] = {}
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
        done, last_turn = old.games, old.last_turn
    else:
        if spec is None:
            raise TournamentLogError(f"{log_path} does not exist: nothing to resume")
        for name in spec.bots:  # before the log exists, so that a typo leaves nothing behind
            check_bot(name, spec.configs)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(json.dumps(spec.header()) + "\n", encoding="utf-8")
    games = schedule(spec)
    by_index = {g.index: g for g in games}
    pending = [replace(g, move_time=move_time) for g in games if g.index not in done]

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
        return TournamentLog(log_path, spec, done, last_turn=last_turn)
    bar = runner.progress_bar(len(games), len(done), progress)
    results = runner.run_games(pending, workers, ray_address)
    try:
        with runner.open_log_for_append(log_path) as log:  # drops a last line cut off mid-write
            for result in results:
                rec = game_record(result, by_index[result.index].config)
                log.write(json.dumps(rec) + "\n")
                log.flush()
                done[rec["index"]] = rec
                last_turn[rec["index"]] = result.last_turn
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
    return TournamentLog(log_path, spec, done, last_turn=last_turn)


def check_bot(name: str, configs: Iterable[RulesConfig]) -> None:
    """Raise :class:`TournamentError` unless ``name`` is a bot that loads and, for a trained bot, was trained
    for every one of ``configs`` (``policies.load`` with ``config`` checks it)."""
    try:
        runner.check_bots([name], list(configs))
    except (BalanceControlError, ValueError, OSError) as exc:
        raise TournamentError(str(exc)) from None


__all__ = [
    "FORMAT",
    "VERSION",
    "ScheduledGame",
    "TournamentLog",
    "TournamentSpec",
    "lineups",
    "game_record",
    "verify_record",
    "read_log",
    "run_tournament",
    "schedule",
]
