"""``balance-control tournament``: seeded games between any bots on one or more presets, in parallel, logged.

Every game goes to a JSON-lines log as it finishes (``--log``); ``--resume`` continues an interrupted
tournament from its log without replaying finished games or changing any result. At the end the command
prints, per configuration, the OpenSkill leaderboard and the pairwise score matrix (``balance-control rate``
prints them again from the log; ``balance-control report`` turns it into a balance report).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from .common import fail, load_config, presets_help

NAME = "tournament"
HELP = "a tournament between bots (seats permuted, parallel, resumable JSON-lines log) with ratings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        help="comma-separated bots: built-in names, shipped bots or paths of exported policies "
        "(not needed with --resume)",
    )
    parser.add_argument("--config", action="append", help=f"{presets_help()}; repeat for several (default core-2p)")
    parser.add_argument(
        "--games", type=int, default=100, help="games per configuration (rounded up to a multiple of its seats)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", required=True, help="the JSON-lines log to write (or to continue with --resume)")
    parser.add_argument("--resume", action="store_true", help="continue the tournament in --log")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="also print the paired-deal evaluation: per bot and seat the outright / shared / loss rates, in 2 "
        "players the conversion from the last-turn seat, the pentanomial pairs",
    )
    add_execution_arguments(parser)


def add_move_time_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--move-time",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds an outside bot (cmd:PROGRAM) may take per request; one that is late, crashes or answers "
        "illegally forfeits that game (default 10)",
    )


def check_move_time(args: argparse.Namespace) -> None:
    import math

    if not (math.isfinite(args.move_time) and 0 < args.move_time <= 600):
        raise fail(f"--move-time must be a number of seconds in (0, 600], got {args.move_time:g}")


def add_execution_arguments(parser: argparse.ArgumentParser) -> None:
    add_move_time_argument(parser)
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: all cores)")
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="play on a Ray cluster: auto, ray://HOST:10001, or local (a private instance with --workers CPUs)",
    )
    add_progress_argument(parser)


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="tqdm progress bar on stderr (default: when stderr is a terminal and tqdm is installed)",
    )


def build_spec(args: argparse.Namespace, bots_text: str | None) -> Any:
    """The TournamentSpec asked for on the command line, or None when resuming with no options given."""
    from benchmarking import TournamentError
    from benchmarking.tournament import TournamentSpec

    if bots_text is None:
        if args.resume:
            return None
        raise fail("--bots is required (except with --resume)")
    bots = tuple(b.strip() for b in bots_text.split(",") if b.strip())
    if len(set(bots)) != len(bots):
        raise fail(f"--bots names a bot twice: {bots_text!r}")
    configs = tuple(load_config(c) for c in (args.config or ["core-2p"]))
    try:
        return TournamentSpec(bots, configs, args.games, args.seed)
    except TournamentError as exc:
        raise fail(str(exc)) from None


def play(args: argparse.Namespace, spec: Any, stop: Any = None) -> Any:
    """Run (or resume) the tournament; CLI errors for anything the benchmarking package rejects."""
    from bc_env.rules.errors import BalanceControlError
    from benchmarking.tournament import run_tournament

    if args.workers is not None and args.workers < 1:
        raise fail(f"--workers must be >= 1, got {args.workers}")
    check_move_time(args)
    try:
        log = run_tournament(
            spec,
            args.log,
            resume=args.resume,
            workers=args.workers,
            ray_address=args.ray,
            progress=args.progress,
            stop=stop,
            move_time=args.move_time,
        )
    except BalanceControlError as exc:
        raise fail(str(exc)) from None
    for rec in log.ordered():  # runner.FORFEIT_RULING
        if rec.get("forfeit") is not None:
            f = rec["forfeit"]
            print(f"forfeit: game {rec['index']}, seat {f['seat']} ({rec['seats'][f['seat']]}): {f['reason']}")
    return log


def _finished(path: str) -> int:
    """Games already in a log (0 when there is none yet; a bad log is reported by the run itself)."""
    from bc_env.rules.errors import BalanceControlError
    from benchmarking.tournament import read_log

    try:
        return len(read_log(path).games)
    except BalanceControlError:
        return 0


def run(args: argparse.Namespace) -> int:
    from .rate import print_ratings

    if args.games < 1:
        raise fail(f"--games must be >= 1, got {args.games}")
    spec = build_spec(args, args.bots)
    before = _finished(args.log) if args.resume else 0
    start = time.perf_counter()
    try:
        log = play(args, spec)
    except KeyboardInterrupt:
        raise fail(f"interrupted; continue with: balance-control tournament --log {args.log} --resume") from None
    seconds = time.perf_counter() - start
    played = len(log.games)
    new = played - before
    speed = f" ({new / seconds:.2f} games/s)" if new and seconds > 0 else ""
    print(f"{log.path}: {played} of {log.spec.total_games} games; this run played {new} in {seconds:.1f} s{speed}")
    print_ratings(log.ordered(), log.spec.bots)
    if args.paired:
        print_paired(log)
    return 0


def print_paired(log: Any) -> None:
    """The paired-deal evaluation of a tournament log, per configuration."""
    from benchmarking.paired import log_games, summarize

    for name, games in log_games(log).items():
        print(f"\n## {name} [{log.path.name}]: paired deals\n")
        print(summarize(games, log.spec.bots).table())
