#!/usr/bin/env bash
# Train the shipped bots ppo-core-2p and ppo-core-4p side by side, each within a wall-clock budget, and
# collect what a bot release needs (policy .npz + manifest, learning curve, evaluations, TensorBoard logs).
#
#   bash scripts/train_bots.sh SECONDS [OUTDIR] [--set key=value ...]
#
# SECONDS is each run's max_seconds (behaviour cloning included); the runs start from
# configs/train/ppo-core-{2p,4p}.toml (n_envs = 2 each, for a 2-core machine; on a 16-core machine add
# e.g. `--set n_envs=7`). Extra --set overrides apply to both runs. Results go to OUTDIR
# (default runs/release): <name>.npz, <name>.json, <name>-cloned.npz/.json (the policy after behaviour
# cloning, before PPO) and <name>-run.tar.gz (the run directory without checkpoints and pool snapshots). If a run is stopped before it exports, its newest pool snapshot
# is collected instead and the log says so. Copy the two bots into policies/bots/ to ship them.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: bash scripts/train_bots.sh SECONDS [OUTDIR] [--set key=value ...]}
shift
out=runs/release
if [[ $# -gt 0 && $1 != --set ]]; then
    out=$1
    shift
fi
python=${PYTHON:-python3}
[[ -x .venv/bin/python && -z ${PYTHON:-} ]] && python=.venv/bin/python
mkdir -p "$out"
runs=$(mktemp -d "${TMPDIR:-/tmp}/bc-train-bots.XXXXXX")

# one BLAS/OpenMP thread per process: the environment processes already use every core
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1

pids=()
for name in ppo-core-2p ppo-core-4p; do
    "$python" -m training --config "configs/train/$name.toml" --no-progress \
        --set "max_seconds=$seconds" --set "runs_dir=\"$runs\"" "$@" >"$out/$name.log" 2>&1 &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=$?
done

for name in ppo-core-2p ppo-core-4p; do
    dir=$runs/$name
    if [[ -f $dir/bc/cloned.npz ]]; then  # the behaviour-cloned policy before PPO, for comparison
        cp "$dir/bc/cloned.npz" "$out/$name-cloned.npz"
        cp "$dir/bc/cloned.json" "$out/$name-cloned.json"
    fi
    if [[ -f $dir/policy.npz ]]; then
        cp "$dir/policy.npz" "$out/$name.npz"
        cp "$dir/policy.json" "$out/$name.json"
    else
        snap=$(ls -1 "$dir"/pool/snapshot-*.npz 2>/dev/null | tail -n 1 || true)
        if [[ -n $snap ]]; then
            echo "$name: no final export; collecting the newest snapshot $(basename "$snap")" | tee -a "$out/$name.log"
            cp "$snap" "$out/$name.npz"
            cp "${snap%.npz}.json" "$out/$name.json"
        else
            echo "$name: nothing to collect" | tee -a "$out/$name.log"
        fi
    fi
    [[ -d $dir ]] && tar -czf "$out/$name-run.tar.gz" -C "$runs" --exclude checkpoint --exclude checkpoint.old \
        --exclude pool --exclude eval --exclude policy.npz "$name"
    tail -n 3 "$out/$name.log"
done
rm -rf "$runs"
exit "$status"
