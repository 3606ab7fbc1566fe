"""``balance-control report``: a balance report (figures and one self-contained HTML file) from tournament
logs: win rate by seat and FirstPlayerHandicap, by player count, by rules option, per Measure card, game length,
shared victories and the Influence cap, rules fired and never fired."""

from __future__ import annotations

import argparse

from .common import fail

NAME = "report"
HELP = "a balance report (PNG figures and a self-contained HTML file) from tournament logs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", help="tournament logs (JSON lines)")
    parser.add_argument("--out", default="balance-report", help="output folder (default: balance-report)")
    parser.add_argument(
        "--rules",
        default=None,
        help="the rule-coverage report listing every rule ID (default: docs/rule-coverage.md of this checkout)",
    )


def run(args: argparse.Namespace) -> int:
    from bc_env.rules.errors import BalanceControlError
    from benchmarking.report import DEFAULT_RULES_DOC, build_report, write_report

    from .rate import labelled_records, read_logs

    logs = read_logs(args.logs)
    records = labelled_records(logs)
    if not records:
        raise fail("the logs hold no finished game")
    try:
        report = build_report(records, args.logs, args.rules or DEFAULT_RULES_DOC)
    except (BalanceControlError, ImportError) as exc:
        raise fail(f"cannot build the report: {exc}") from None
    path = write_report(report, args.out)
    print(f"{path} ({len(records)} games; figures: {', '.join(sorted(report.figures))})")
    return 0
