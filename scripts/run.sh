#!/usr/bin/env bash
# The main job: set up .venv (the project with its tournament extra), then show what the project is for, in under
# 3 minutes on 2 cores once set up: a demo game between the shipped bots, a short tournament with its leaderboard,
# the HTML balance report, and the engine benchmark. Every step says what it did and where its output is; all
# output goes to runs/main-job/ (git-ignored), replaced on each run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tournament  # the extra for ratings (openskill) and the report's figures (matplotlib)

OUT=runs/main-job
BC=.venv/bin/balance-control
rm -rf "$OUT"
mkdir -p "$OUT"
START=$SECONDS
STEP_START=$SECONDS

step() {
  STEP_START=$SECONDS
  printf '\n=== %s\n\n' "$*"
}
done_step() {
  printf '\n--> %s (%d s)\n' "$*" $((SECONDS - STEP_START))
}

step "1/4 A demo game: four shipped bots play core-4p (seed 1); the final position"
"$BC" watch --config core-4p --seed 1 --bots heuristic,expert,ppo-core-4p,random --final-only \
  --save-replay "$OUT/demo-game.json"
done_step "the game, move by move: $OUT/demo-game.json (balance-control replay $OUT/demo-game.json)"

# The bots of the tournament. A training step goes here, before the tournament, once the self-play trainer
# exists: train a bot from zero for a minute, export it, and add its policy path to BOTS so that it joins
# the tournament (issue 28, item 4); renumber the steps then.
BOTS=random,heuristic,expert,ppo-core-2p

step "2/4 A tournament of the shipped bots ($BOTS) on core-2p: 48 games, seats permuted"
"$BC" tournament --bots "$BOTS" --config core-2p --games 48 --seed 0 --log "$OUT/tournament.jsonl" --no-progress
done_step "the leaderboard above (OpenSkill ratings, pairwise scores); the games: $OUT/tournament.jsonl
    (balance-control rate $OUT/tournament.jsonl prints the leaderboard again)"

step "3/4 The balance report of that tournament: win rates by seat, game length, ratings, rules never fired"
"$BC" report "$OUT/tournament.jsonl" --out "$OUT/report"
done_step "open $OUT/report/report.html in a browser"

step "4/4 The engine benchmark: random legal games, 3 s of CPU time per preset"
"$BC" bench --seconds 3
done_step "decisions per second above; recorded results: docs/benchmarks.md"

printf '\n=== done in %d s; everything is in %s/\n' $((SECONDS - START)) "$OUT"
