"""``balance-control sprt``: is bot A stronger than bot B by at least ``--elo1``? A sequential probability ratio
test on A's score against B (as fishtest runs it), playing games until it can answer (or reading a tournament
log with ``--from-log``); prints the verdict and why it stopped.
"""

from __future__ import annotations

import argparse

from .common import fail, load_config, presets_help
from .tournament import add_execution_arguments, play

NAME = "sprt"
HELP = "sequential test (SPRT on the score): is bot A stronger than bot B by at least --elo1?"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--a", required=True, help="bot A (the candidate)")
    parser.add_argument("--b", required=True, help="bot B (the reference)")
    parser.add_argument("--config", default="core-2p", help=presets_help())
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: A is stronger by elo0 (default 0)")
    parser.add_argument("--elo1", type=float, default=30.0, help="H1: A is stronger by elo1 (default 30)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--max-games", type=int, default=2000, help="stop as inconclusive after this many games")
    parser.add_argument(
        "--model",
        choices=("pentanomial", "trinomial"),
        default="pentanomial",
        help="pentanomial: pairs of games on one deal (default, fishtest's); trinomial: single games",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", help="the tournament log to write (default: sprt-A-B-CONFIG-seedN.jsonl)")
    parser.add_argument("--resume", action="store_true", help="continue the test's log")
    parser.add_argument("--from-log", metavar="LOG", help="test on the games of an existing tournament log instead")
    add_execution_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from bc_env.rules.errors import BalanceControlError
    from benchmarking.sprt import SPRT, run_on_records
    from benchmarking.tournament import TournamentSpec

    from .rate import read_logs

    if args.a == args.b:
        raise fail("--a and --b must be different bots")
    try:
        test = SPRT(args.elo0, args.elo1, args.alpha, args.beta, args.max_games, args.model)
    except BalanceControlError as exc:
        raise fail(str(exc)) from None
    head = (
        f"SPRT {args.a} vs {args.b}: H0 elo = {args.elo0:g}, H1 elo = {args.elo1:g}, "
        f"alpha {args.alpha:g}, beta {args.beta:g}, bounds {test.lower:.2f} .. {test.upper:.2f}, {args.model}"
    )
    if args.from_log:
        (log,) = read_logs([args.from_log])
        print(f"{head}; games of {args.from_log}")
        run_on_records(test, log.ordered(), args.a, args.b)
        if test.verdict is None:
            print("the log ran out before the test stopped")
    else:
        config = load_config(args.config)
        if args.max_games < 1:
            raise fail(f"--max-games must be >= 1, got {args.max_games}")
        spec = TournamentSpec((args.a, args.b), (config,), args.max_games, args.seed)
        if args.log is None:
            args.log = f"sprt-{args.a}-{args.b}-{config.name}-seed{args.seed}.jsonl".replace("/", "_")
        print(f"{head}; {config.name}, seed {args.seed}, log {args.log}")
        play(args, spec, stop=lambda rec: test.add_record(rec, args.a, args.b))
    print(test.reason(args.a, args.b))
    print(f"games used: {test.games}")
    return 0
