"""``balance-control rate``: the OpenSkill leaderboard and the pairwise score matrix of tournament logs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .common import fail

NAME = "rate"
HELP = "leaderboard (OpenSkill Plackett-Luce, with intervals) and pairwise scores of tournament logs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", help="tournament logs (JSON lines)")
    parser.add_argument(
        "--pooled", action="store_true", help="one leaderboard over all configurations instead of one per configuration"
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="also the paired-deal evaluation per log and configuration (per-seat outcome rates, pentanomial pairs)",
    )


def read_logs(paths: Sequence[str]) -> list[Any]:
    from benchmarking import TournamentLogError
    from benchmarking.tournament import read_log

    dup = next((p for i, p in enumerate(paths) if p in paths[:i]), None)
    if dup is not None:
        raise fail(f"{dup} is given twice")
    try:
        return [read_log(p) for p in paths]
    except TournamentLogError as exc:
        raise fail(str(exc)) from None


def labelled_records(logs: Sequence[Any]) -> list[dict[str, Any]]:
    """The games of ``logs`` by index, log after log. A configuration name that occurs in several logs gets the
    log's file name added (``core-4p [mirror.jsonl]``) so that different tournaments are not pooled."""
    owners: dict[str, set[str]] = {}
    for log in logs:
        for rec in log.games.values():
            owners.setdefault(rec["config"], set()).add(str(log.path))
    out = []
    for log in logs:
        for rec in log.ordered():
            if len(owners[rec["config"]]) > 1:
                rec = dict(rec, config=f"{rec['config']} [{log.path.name}]")
            out.append(rec)
    return out


def print_ratings(records: list[dict[str, Any]], bots: Sequence[str] = (), pooled: bool = False) -> None:
    from benchmarking import TournamentError
    from benchmarking.ratings import leaderboard, pairwise, rate

    groups: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault("all configurations" if pooled else rec["config"], []).append(rec)
    for name, recs in groups.items():
        names = [b for b in bots if any(b in r["seats"] for r in recs)]
        try:
            ratings = rate(recs, names)
        except TournamentError as exc:
            raise fail(str(exc)) from None
        print(f"\n## {name}: {len(recs)} games\n")
        print(leaderboard(ratings))
        print("\nPairwise score (row against column; 1 above, 1/2 level, 0 below), 95% Wilson interval:\n")
        print(pairwise(recs, [r.name for r in ratings]).table())


def run(args: argparse.Namespace) -> int:
    logs = read_logs(args.logs)
    records = labelled_records(logs)
    bots: list[str] = []
    for log in logs:
        bots += [b for b in log.spec.bots if b not in bots]
        if not log.complete:
            print(f"note: {log.path} is incomplete ({len(log.games)} of {log.spec.total_games} games)")
    print_ratings(records, bots, pooled=args.pooled)
    if args.paired:
        from .tournament import print_paired

        for log in logs:
            print_paired(log)
    return 0
