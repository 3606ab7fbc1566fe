#!/usr/bin/env bash
# Create .venv (if missing) and install the project with the extras given as arguments.
# Usage: scripts/setup.sh [extra,...]     e.g. scripts/setup.sh dev
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
extras=${1:-}
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
# pip's output goes to .venv/install.log; the build's own lines (which engine it installed, and why) are shown.
# --no-compile: pip would compile all 15,000 files of torch, Ray & co. one after another (a minute of a fresh
# install); Python compiles the 3,400 that are imported when they first are (13 CPU-s; issue 31).
if ! .venv/bin/python -m pip install --no-compile -e "$spec" >.venv/install.log 2>&1; then
  tail -n 40 .venv/install.log
  echo "setup.sh: pip install failed (whole output: .venv/install.log)"
  exit 1
fi
grep "balance-control build" .venv/install.log || true
