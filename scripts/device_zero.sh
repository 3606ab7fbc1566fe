#!/usr/bin/env bash
# Issue 26 on a machine with 16 cores and an NVIDIA GPU (the device machine, docs/benchmarks.md "16 cores and a
# GPU"): how far `zero-core-2p` gets from zero when its trainer runs at GPU speed, and the batched env on every core.
#   bash scripts/device_zero.sh   (results in $OUT, default out/device)
# Settings, by environment variable:
#   TRAIN=seconds of training (300)       BATCH=N the minibatch (the config's 1,024)
#   SKIP_VECTOR=1 leaves out step 2       VECTOR_ENVS="64 256" games per batched env, one row each (256)
#   VECTOR_LAYOUTS="compact-v1 compact-v2" the batched env's layouts (compact-v1)
#   RESUME=DIR continues the run in DIR (a copy of a run directory, e.g. carried to the machine) instead of starting
#     from zero: DIR is copied back to where the run was made (its checkpoint names its snapshots by absolute path)
#     and trained on with --resume
#   TRAIN_SET="--set pool.p_heuristic=0.4 ..." further overrides of the config
#   EXPERT_GAMES=200 games against the expert
#   SNAPSHOTS=0 leaves out the snapshots' games
# 1. the compiled engine, built there (scripts/device_setup.sh);
# 2. the batched env, one process per core (the 1,000,000 steps/s goal);
# 3. `configs/train/zero-core-2p.toml` from random weights (or RESUME's run) on the GPU, a worker process per core but
#    one, 256 games each, for TRAIN seconds, a snapshot every 2 M learner steps;
# 4. 400 fresh games (seed 900000, seats rotated, on every core) of the exported bot against random and the
#    heuristic, EXPERT_GAMES against the expert, and 400 of each new snapshot against random: the learning curve.
set -uo pipefail
cd "$(dirname "$0")/.."
TRAIN=${TRAIN:-300}
source scripts/device_setup.sh
stamp() { echo "[$(( $(date +%s) - START )) s] $*"; }
if [ -z "${SKIP_VECTOR:-}" ]; then
  lscpu 2>/dev/null | grep -E "^(Model name|Thread|Core|Socket|L2|L3)" | tee -a "$OUT/machine.txt"
  for envs in ${VECTOR_ENVS:-256}; do
    for layout in ${VECTOR_LAYOUTS:-compact-v1}; do
      timeout 60 python3 -m bc_env.bench.vector --config core-4p --seconds 3 --rounds 1 --num-envs "$envs" \
        --processes "$(nproc)" --obs-layout "$layout" 2>&1 | tee -a "$OUT/vector.txt"
    done
  done
  stamp "batched env measured"
fi

runs=/tmp/device-runs; rm -rf "$runs"  # a warm machine keeps the last call's run
resume=()
if [ -n "${RESUME:-}" ]; then
  runs=$(python3 -c "import json, pathlib, sys; s = json.load(open(sys.argv[1]))['run']['snapshots'];
print(pathlib.Path(s[0]['path']).parents[2] if s else sys.argv[2])" "$RESUME/checkpoint/state.json" "$runs")
  mkdir -p "$runs"; rm -rf "${runs:?}/$(basename "$RESUME")"
  cp -r "$RESUME" "$runs/" && resume=(--resume)
fi
touch /tmp/device-zero-t0  # the snapshots made after this are this call's
stamp "training for $TRAIN s" | tee "$OUT/train.txt"
# shellcheck disable=SC2086  # TRAIN_SET is a list of arguments
timeout $(( TRAIN + 90 )) python3 -m balance_control train --config configs/train/zero-core-2p.toml --no-progress \
  "${resume[@]}" --set runs_dir=\"$runs\" --set max_seconds="$TRAIN" --set device=\"cuda\" \
  --set selfplay.workers=$(( $(nproc) - 1 )) --set selfplay.games_per_worker=256 ${BATCH:+--set ppo.batch_size=$BATCH} \
  --set eval_every=1000000000 --set checkpoint_every=1000000000 --set pool.snapshot_every=2000000 --set eval_games=2 \
  ${TRAIN_SET:-} 2>&1 | tail -8 | tee -a "$OUT/train.txt"
run=$runs/zero-core-2p
cp "$run/summary.json" "$run/policy.json" "$run/policy.npz" "$OUT/" 2>/dev/null
stamp "trained" | tee -a "$OUT/train.txt"

match() {  # BOT OPPONENT GAMES
  python3 -m balance_control match --config core-2p --bots "$1,$2" --games "$3" --seed 900000 \
    --workers "$(nproc)" --no-progress 2>&1 | tail -4
}
{
  stamp "the exported bot"
  match "$run/policy" random 400
  match "$run/policy" heuristic 400
  match "$run/policy" expert "${EXPERT_GAMES:-200}"
  if [ "${SNAPSHOTS:-1}" != 0 ]; then
    for snap in "$run"/pool/snapshot-*.npz; do
      [ "$snap" -nt /tmp/device-zero-t0 ] || continue
      stamp "$(basename "$snap" .npz)"
      match "${snap%.npz}" random 400
    done
  fi
  stamp "done"
} 2>&1 | tee "$OUT/evals.txt"
