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
.venv/bin/python -m pip install --quiet -e "$spec"
