"""``balance-control match``: many seeded games between bots, with win rates (a front end of the one game
runner, ``benchmarking/runner.py``).

Output: a Markdown table (default), ``--json`` (one JSON object: the match and a record per entrant) or
``--csv`` (a header and one row per entrant). Wins count a victory shared by k players as 1/k and print as
fractions (``214 1/3``). ``--save-replay PATH`` writes every game's replay: into the directory PATH as
``game-00000.json``, ``game-00001.json``, ... or, when PATH ends in ``.jsonl``, as one replay document per line
of that file (game order). ``balance-control replay`` reads the single files.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path
from typing import Any

from bc_env.rules import RulesConfig

from .common import bot_names, fail, load_config, presets_help
from .tournament import add_move_time_argument, add_progress_argument, check_move_time

NAME = "match"
HELP = "play many seeded games between bots and print win rates"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="core-2p", help=presets_help())
    parser.add_argument("--bots", default="heuristic,random", help="one bot per seat, e.g. heuristic,random")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixed-seats", action="store_true", help="do not rotate the seats between games")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="paired deals: each deal (seed) played once in every seat rotation; prints per-seat outcome rates, "
        "the conversion from the last-turn seat and the loss rate from the other seats (Wilson 95%%)",
    )
    add_move_time_argument(parser)
    parser.add_argument(
        "--workers", type=int, default=1, help="games played at once in local processes (default 1; same results)"
    )
    add_progress_argument(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the result as one JSON object")
    out.add_argument("--csv", action="store_true", help="print the result as CSV, one row per entrant")
    parser.add_argument(
        "--save-replay",
        metavar="PATH",
        default=None,
        help="write every game's replay: a directory (game-00000.json, ...) or a .jsonl file (one per line)",
    )


class ReplayWriter:
    """Writes each finished game of a match as a replay: files in a directory, or lines of a ``.jsonl`` file."""

    def __init__(self, path: str | Path, config: RulesConfig) -> None:
        self.path = Path(path)
        self.config = config
        self.lines = self.path.suffix == ".jsonl"
        if self.lines:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("", encoding="utf-8")
        else:
            if self.path.exists() and not self.path.is_dir():
                raise fail(f"--save-replay {path}: not a directory (name a directory, or a file ending in .jsonl)")
            self.path.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def write(self, doc: dict[str, Any]) -> None:
        """Write one game's replay document (``GameResult.replay``)."""
        if self.lines:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(doc, separators=(",", ":")) + "\n")
        else:
            target = self.path / f"game-{self.count:05d}.json"
            target.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        self.count += 1


def csv_text(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().rstrip("\n")


def run(args: argparse.Namespace) -> int:
    from benchmarking.runner import check_bots, play_match

    config = load_config(args.config)
    names = bot_names(args.bots, config.players, "--bots")
    if args.games < 1:
        raise fail(f"--games must be >= 1, got {args.games}")
    if args.workers < 1:
        raise fail(f"--workers must be >= 1, got {args.workers}")
    check_move_time(args)
    if args.paired and args.fixed_seats:
        raise fail("--paired rotates the seats over every deal: leave out --fixed-seats")
    check_bots(sorted(set(names)), [config])  # a bot that does not fit the rules stops the match before game 0
    writer = ReplayWriter(args.save_replay, config) if args.save_replay else None
    on_game = (lambda r: writer.write(r.replay)) if writer is not None else None
    result = play_match(
        config,
        names,
        args.games,
        args.seed,
        rotate_seats=not args.fixed_seats,
        progress=args.progress,
        on_game=on_game,
        workers=args.workers,
        paired=args.paired,
        move_time=args.move_time,
    )
    paired = None
    if args.paired:
        from benchmarking.paired import summarize_match

        paired = summarize_match(result)
    if args.json:
        doc = result.to_dict()
        if paired is not None:
            doc["paired"] = paired.to_dict()
        print(json.dumps(doc, indent=1))
    elif args.csv:
        print(csv_text(result.rows()))
    else:
        print(result.table())
        if paired is not None:
            print()
            print(paired.table())
    return 0
