#!/usr/bin/env bash
# Set everything up and run the checks: ruff (lint + format), mypy (the engine) and the whole test suite on the
# compiled engine, then the engine's tests again on the pure-Python engine (both builds must behave the same).
# BC_PURE_PYTHON=1 bash scripts/test.sh: build and test the pure-Python engine only.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev,train,serve,onnx,embed-test,bench,rllib,tournament  # bench: the benchmarks' peers
if [ -z "${BC_PURE_PYTHON:-}" ] || [ "${BC_PURE_PYTHON}" = 0 ]; then
  # The install falls back to pure Python where it cannot compile (setup.py); CI must test the compiled engine.
  .venv/bin/python -c "import sys, bc_env.rules as r; sys.exit(0 if r.COMPILED else 'test.sh: the compiled engine \
was not built (see the pip output; BC_PURE_PYTHON=1 tests the pure-Python engine alone)')"
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
if [ $# -eq 0 ] && [ -z "${BC_PURE_PYTHON:-}" ]; then
  echo "--- the engine's tests on the pure-Python engine (BC_PURE_PYTHON=1)"
  BC_PURE_PYTHON=1 .venv/bin/python -m pytest tests/test_rules_*.py tests/test_exp01_*.py tests/test_golden.py \
    tests/test_perft.py tests/test_invariants.py tests/test_state_strict.py tests/test_identity.py \
    tests/test_expansion_interface.py tests/test_encoding_views.py tests/test_determinism.py tests/test_replay.py tests/test_config.py \
    tests/test_encoding.py tests/test_compiled_build.py tests/test_exp02_*.py tests/test_exp03_*.py tests/test_cross_expansion.py
fi
