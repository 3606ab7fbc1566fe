r"""Play the games of a ``balance-control match`` one by one into a JSON-lines file (long, resumable measurements).

Game ``i`` is exactly game ``i`` of ``balance-control match --config CONFIG --bots BOTS --seed SEED`` (engine seed
``SEED + i``, seats rotated, bot seeds ``benchmarking.runner.bot_seed``): both are played by the one game runner,
``benchmarking/runner.py`` (``play_match_file``). One line per game: the seat of the first bot, the winners, the
result of the first bot (outright / shared / lost), the final Influence and the first bot's decision times, wall
clock and CPU time of the process (``time.process_time``: one core's work, whatever the machine's load). Games
already in the file are skipped, so a stopped run continues where it stopped.

    python tools/match_games.py --config core-2p --bots mcts,heuristic --seed 90000 --games 400 --out m.jsonl
    python tools/match_games.py --config core-2p --bots mcts,heuristic --seed 90000 --games 400 --out m.jsonl \
        --workers 16
    python tools/match_games.py --summary m.jsonl

With ``--workers N`` the games run in N processes (one game per task): the rows are the same, written in the
order the games finish.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bc_env.rules import BalanceControlError  # noqa: E402
from benchmarking.runner import MatchFileError, match_file_summary, play_match_file  # noqa: E402

play = play_match_file
summary = match_file_summary

__all__ = ["MatchFileError", "play", "summary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="core-2p")
    ap.add_argument("--bots", help="one bot per entrant, comma-separated; the first is the one measured")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--out", type=Path, help="the JSON-lines file (appended to; its games are skipped)")
    ap.add_argument("--workers", type=int, default=1, help="games played at once, one process each (default 1)")
    ap.add_argument("--summary", type=Path, nargs="*", help="print the summary of these files and exit")
    args = ap.parse_args()
    try:
        if args.summary:
            for path in args.summary:
                print(summary(path))
            return
        if not args.bots or not args.out:
            ap.error("--bots and --out are needed (or --summary FILE)")
        if args.games < 1:
            ap.error(f"--games must be at least 1, got {args.games}")
        if args.workers < 1:
            ap.error(f"--workers must be at least 1, got {args.workers}")
        play(args.config, args.bots.split(","), args.seed, args.games, args.out, args.workers)
        print(summary(args.out))
    except BalanceControlError as exc:
        ap.error(str(exc))


if __name__ == "__main__":
    main()
