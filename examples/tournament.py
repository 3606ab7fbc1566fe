"""A small tournament: three bots on core-3p, seats permuted, every game logged; then the OpenSkill leaderboard.

    python examples/tournament.py [GAMES]          # needs the tournament extra: pip install -e '.[tournament]'

``balance-control tournament`` is the same from the command line (parallel, resumable; docs/benchmarking.md).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bc_env.rules import RulesConfig
from benchmarking.ratings import leaderboard, rate
from benchmarking.tournament import TournamentSpec, run_tournament


def main(games: int = 6) -> None:
    spec = TournamentSpec(bots=("random", "heuristic", "expert"), configs=(RulesConfig.preset("core-3p"),), games=games)
    with tempfile.TemporaryDirectory() as tmp:
        log = run_tournament(spec, Path(tmp) / "tournament.jsonl", workers=1)
        records = [log.games[i] for i in sorted(log.games)]
    print(f"{len(records)} games of core-3p")
    print(leaderboard(rate(records, spec.bots)))


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
