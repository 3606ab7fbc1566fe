#!/usr/bin/env bash
# Issue 26 on a machine with 16 cores and an NVIDIA GPU (the device machine, docs/benchmarks.md "16 cores and a
# GPU"): how far `zero-core-2p` gets from zero when its trainer runs at GPU speed, and the batched env on every core.
#   bash scripts/device_zero.sh   (TRAIN=300 seconds of training by default; BATCH=N sets the minibatch, the config's
#                                  1,024 by default; SKIP_VECTOR=1 leaves out step 2; results in $OUT, default
#                                  out/device)
# 1. the compiled engine, built there (scripts/device_setup.sh);
# 2. the batched env, one process per core, `compact-v1` (the 1,000,000 steps/s goal);
# 3. `configs/train/zero-core-2p.toml` from random weights on the GPU, a worker process per core but one, 256 games
#    each, for TRAIN seconds, a snapshot every 2 M learner steps;
# 4. 400 fresh games (seed 900000, seats rotated, on every core) of the exported bot against random and the
#    heuristic, 200 against the expert, and 400 of each kept snapshot against random: the learning curve over steps.
set -uo pipefail
cd "$(dirname "$0")/.."
TRAIN=${TRAIN:-300}
source scripts/device_setup.sh
stamp() { echo "[$(( $(date +%s) - START )) s] $*"; }
if [ -z "${SKIP_VECTOR:-}" ]; then
  timeout 60 python3 -m bc_env.bench.vector --config core-4p --seconds 3 --rounds 1 --num-envs 256 \
    --processes "$(nproc)" --obs-layout compact-v1 2>&1 | tee -a "$OUT/machine.txt"
  stamp "batched env measured"
fi

runs=/tmp/device-runs; rm -rf "$runs"  # a warm machine keeps the last call's run
stamp "training for $TRAIN s" | tee "$OUT/train.txt"
timeout $(( TRAIN + 90 )) python3 -m balance_control train --config configs/train/zero-core-2p.toml --no-progress \
  --set runs_dir=\"$runs\" --set max_seconds="$TRAIN" --set device=\"cuda\" \
  --set selfplay.workers=$(( $(nproc) - 1 )) --set selfplay.games_per_worker=256 ${BATCH:+--set ppo.batch_size=$BATCH} \
  --set eval_every=1000000000 --set checkpoint_every=1000000000 --set pool.snapshot_every=2000000 --set eval_games=2 \
  2>&1 | tail -8 | tee -a "$OUT/train.txt"
run=$runs/zero-core-2p
cp "$run/summary.json" "$run/progress.jsonl" "$run/policy.json" "$run/policy.npz" "$OUT/" 2>/dev/null
stamp "trained" | tee -a "$OUT/train.txt"

match() {  # BOT OPPONENT GAMES
  python3 -m balance_control match --config core-2p --bots "$1,$2" --games "$3" --seed 900000 \
    --workers "$(nproc)" --no-progress 2>&1 | tail -4
}
{
  stamp "the exported bot"
  match "$run/policy" random 400
  match "$run/policy" heuristic 400
  match "$run/policy" expert 200
  for snap in "$run"/pool/snapshot-*.npz; do
    stamp "$(basename "$snap" .npz)"
    match "${snap%.npz}" random 400
  done
  stamp "done"
} 2>&1 | tee "$OUT/evals.txt"
