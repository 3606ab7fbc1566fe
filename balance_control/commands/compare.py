"""``balance-control compare A B [C ...]``: rule variants (presets or rules files) played on the same deals with
the same bots in every seat rotation, and their differences in seat advantage, shared victories, outright
wins, game length and economy, with 95% intervals and an exact sign test over deals (``benchmarking/compare.py``).
Prints a table; ``--json FILE`` writes the numbers, ``--html DIR`` the balance report of the games with the
comparison after its findings."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .common import bot_names, fail, load_config

NAME = "compare"
HELP = "compare rule variants on the same deals with the same bots (paired), with intervals and a sign test"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", nargs="+", metavar="CONFIG", help="two or more presets or rules files")
    parser.add_argument("--bots", required=True, help="one bot for every seat, or one per seat, e.g. heuristic")
    parser.add_argument("--deals", type=int, default=20, help="deals (seeds) per configuration (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="games played at once in local processes")
    parser.add_argument("--json", metavar="FILE", default=None, help="write the comparison as JSON ('-': stdout)")
    parser.add_argument("--html", metavar="DIR", default=None, help="write the balance report with the comparison")


def run(args: argparse.Namespace) -> int:
    from bc_env.rules.errors import BalanceControlError
    from benchmarking.compare import compare
    from benchmarking.report import build_report, write_report

    if len(args.configs) < 2:
        raise fail("compare needs at least two configurations")
    if args.deals < 1:
        raise fail(f"--deals must be >= 1, got {args.deals}")
    players = {load_config(c).players for c in args.configs}
    if len(players) != 1:
        raise fail(f"the configurations have different player counts ({sorted(players)}): compare like with like")
    bots = bot_names(args.bots, players.pop(), "--bots")
    try:
        result = compare(args.configs, bots, args.deals, args.seed, args.workers)
    except (BalanceControlError, ValueError) as exc:
        raise fail(str(exc)) from None
    if args.json == "-":
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(result.text())
        if args.json:
            Path(args.json).write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    if args.html:
        report = build_report(result.records, [f"compare {' '.join(args.configs)}"], extra=[result.html()])
        path = write_report(report, args.html)
        print(f"{path} ({len(result.records)} games)")
    return 0
