#!/usr/bin/env bash
# The 16-core / GPU figures of issues 26 and 27 in one run, on a machine with 16 cores and an NVIDIA GPU whose
# python3 has torch, numpy, tqdm, tensorboard and matplotlib (the device machine: docs/benchmarks.md, "16 cores and
# a GPU"). The wheels the machine lacks are installed from ./.whl when it exists (scripts/device_setup.sh). Results go
# to $OUT (default out/device).
#   bash scripts/device_bench.sh
# 1. the compiled engine, built there; 2. the batched env on every core (issue 26: >= 1,000,000 steps/s in total);
# 3. the selfplay trainer on the GPU with a worker process per core (issue 26: >= 50,000 learner steps/s), with the
#    config's minibatch of 1,024 (session 16 measured it with 4,096, which runs faster and learns nothing:
#    docs/training.md, "From zero on the GPU machine");
# 4. the paired deals of `endgame` and `mcts` against the expert at 200 deals (issue 27's table, docs/policies.md), in
#    the time left of BUDGET seconds (default 560): endgame took about 47 s on the H200 machine's 16 cores; mcts had
#    not finished after 255 s (session 16).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_setup.sh
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - START) )); }

echo "--- batched env, $(nproc) processes ($(left) s left)"
timeout 90 python3 -m bc_env.bench.vector --config core-4p --seconds 4 --num-envs 256 --processes "$(nproc)" \
  --obs-layout compact-v1 --obs-layout core 2>&1 | tee "$OUT/vector.txt"

echo "--- selfplay trainer on the GPU ($(left) s left)"
workers=$(( $(nproc) - 1 ))
rm -rf /tmp/device-runs  # a warm machine keeps the last call's run
timeout 200 python3 -m balance_control train --config configs/train/zero-core-2p.toml --no-progress \
  --set runs_dir=\"/tmp/device-runs\" --set max_seconds=110 --set device=\"cuda\" \
  --set selfplay.workers=$workers --set selfplay.games_per_worker=256 \
  --set eval_every=1000000000 --set checkpoint_every=1000000000 --set pool.snapshot_every=1000000 --set eval_games=2 \
  2>&1 | tail -5 | tee "$OUT/train.txt"
cp /tmp/device-runs/zero-core-2p/summary.json "$OUT/train-summary.json" 2>/dev/null
tail -n 3 /tmp/device-runs/zero-core-2p/progress.jsonl > "$OUT/train-progress-tail.jsonl" 2>/dev/null

for bot in endgame mcts; do
  t=$(( $(left) - 5 ))
  echo "--- $bot: 200 paired deals against the expert ($t s left)"
  [ "$t" -gt 30 ] || break
  timeout "$t" python3 -m balance_control match --paired --config core-2p --bots "$bot,expert" --games 400 \
    --seed 27000 --workers "$(nproc)" > "$OUT/$bot-2p.txt" 2>&1
  echo "exit $?"; tail -n 25 "$OUT/$bot-2p.txt"
done
echo "done in $(( $(date +%s) - START )) s"
