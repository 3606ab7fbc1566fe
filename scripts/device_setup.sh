# Sourced by the device machine's scripts (scripts/device_bench.sh, scripts/device_zero.sh), from the repository root:
# OUT (default out/device), PYTHONPATH, START; the wheels the machine lacks from ./.whl when it exists (mypy for the
# compiled build, gymnasium, pettingzoo; `pip download` them for its Python first); the machine's cores, Python, GPU
# and torch in $OUT/machine.txt; then the compiled engine, built there.
OUT=${OUT:-out/device}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
START=$(date +%s)
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="/tmp/site:$PYTHONPATH"
fi
{
  nproc; python3 -V; nvidia-smi -L 2>/dev/null
  python3 -c "import torch; print('torch', torch.__version__, torch.cuda.is_available())"
  python3 setup.py -q build_ext --inplace 2>&1 | grep -v "^\s*$" | tail -3
  echo "build: $(( $(date +%s) - START )) s wall, the wheels' install included"
  python3 -c "import bc_env.rules as r; print('compiled engine:', r.COMPILED)"
} 2>&1 | tee "$OUT/machine.txt"
