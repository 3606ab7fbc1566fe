#!/usr/bin/env bash
# The main job: set up .venv (the project with its tournament extra), then show what the project is for, in under
# 3 minutes on 2 cores once set up: a demo game between the shipped bots, a bot trained from zero in half a minute,
# a short tournament (the shipped bots and that one) with its leaderboard, the HTML balance report, and the engine
# benchmark. Every step says what it did and where its output is; all
# output goes to runs/main-job/ (git-ignored), replaced on each run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tournament,train  # ratings (openskill), the report's figures (matplotlib), training (torch)

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

step "1/5 A demo game: four shipped bots play core-4p (seed 1); the final position"
"$BC" watch --config core-4p --seed 1 --bots heuristic,expert,ppo-core-4p,random --final-only \
  --save-replay "$OUT/demo-game.json"
done_step "the game, move by move: $OUT/demo-game.json (balance-control replay $OUT/demo-game.json)"

step "2/5 A bot trained from zero: 30 s of batched self-play PPO (--backend selfplay) on core-2p"
"$BC" train --config configs/train/selfplay-tiny.toml --no-progress --set runs_dir="$OUT" --set name=zero-30s \
  --set max_seconds=30 --set total_steps=10000000 --set eval_every=10000000 --set checkpoint_every=10000000 \
  --set pool.snapshot_every=5000 --set eval_games=10 --set selfplay.games_per_worker=32
done_step "the run: $OUT/zero-30s/ (summary.json, learning_curve.png, tb/); its bot: $OUT/zero-30s/policy.npz"

# The bots of the tournament: the shipped ones and the one just trained (issue 28, item 4).
BOTS=random,heuristic,expert,ppo-core-2p,$OUT/zero-30s/policy

step "3/5 A tournament of the shipped bots and the new one ($BOTS) on core-2p: 48 games, seats permuted"
"$BC" tournament --bots "$BOTS" --config core-2p --games 48 --seed 0 --log "$OUT/tournament.jsonl" --no-progress
done_step "the leaderboard above (OpenSkill ratings, pairwise scores); the games: $OUT/tournament.jsonl
    (balance-control rate $OUT/tournament.jsonl prints the leaderboard again)"

step "4/5 The balance report of that tournament: win rates by seat, game length, ratings, rules never fired"
"$BC" report "$OUT/tournament.jsonl" --out "$OUT/report"
done_step "open $OUT/report/report.html in a browser"

step "5/5 The engine benchmark: random legal games, 3 s of CPU time per preset"
"$BC" bench --seconds 3
done_step "decisions per second above; recorded results: docs/benchmarks.md"

printf '\n=== done in %d s; everything is in %s/\n' $((SECONDS - START)) "$OUT"
