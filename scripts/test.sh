#!/usr/bin/env bash
# Set everything up and run the checks: ruff (lint + format), then the whole test suite on the compiled engine, in
# parallel over the cores (pytest-xdist), and beside it in one more process mypy (the engine) and what differs
# between the builds on the pure-Python engine: the tests that patch engine internals (marker pure_engine, skipped on
# the compiled build) and the recorded golden playthroughs and perft counts (the compiled pass already compares both
# builds state by state, tests/test_compiled_build.py).
# BC_PURE_PYTHON=1 bash scripts/test.sh: build and test the pure-Python engine only (the whole suite).
# The suite's budget (tests/conftest.py, docs/testing.md): a full run fails when its tests take more CPU seconds
# than BC_TEST_CPU_BUDGET, or one test more than BC_TEST_CPU_PER_TEST; BC_TEST_WORKERS sets the processes (auto:
# one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev,train,serve,onnx,embed-test,bench,rllib,tournament  # bench: the benchmarks' peers
compiled() { .venv/bin/python -W ignore -c "import sys, bc_env.rules as r; sys.exit(0 if r.COMPILED else 1)"; }
if [ -z "${BC_PURE_PYTHON:-}" ] || [ "${BC_PURE_PYTHON}" = 0 ]; then
  # The install falls back to pure Python where it cannot compile (setup.py; setup.sh showed its reason, from
  # .venv/install.log): build once more with its output in .venv/build.log, and fail if it still did not compile
  # (CI must test the compiled engine; BC_PURE_PYTHON=1 tests the pure-Python engine alone).
  if ! compiled; then
    echo "test.sh: the compiled engine was not built; building it again (log: .venv/build.log)"
    .venv/bin/python -m pip install --no-deps -v -e . >.venv/build.log 2>&1 || true
    grep "balance-control build" .venv/build.log || true
    compiled || { echo "test.sh: the compiled engine was not built (.venv/build.log)"; exit 1; }
  fi
fi
# Python may write its bytecode caches (a machine that sets PYTHONDONTWRITEBYTECODE would otherwise compile every
# module from source again in each test process and each command the tests start).
unset PYTHONDONTWRITEBYTECODE
.venv/bin/ruff check .
.venv/bin/ruff format --check .
workers=(-n "${BC_TEST_WORKERS:-auto}" --dist worksteal)
# One thread per process for torch and the BLAS libraries: every test process (and each command a test starts) would
# otherwise run as many threads as the machine has cores beside the other workers, which only adds switching (the
# compiled pass: 303 s and 469 CPU-s against 317 s and 508). The tests whose floats depend on torch's thread count
# set it themselves (tests/conftest.py, recorded_torch_threads).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ $# -gt 0 ]; then
  .venv/bin/mypy
  .venv/bin/python -m pytest "${workers[@]}" "$@"
  exit 0
fi
export BC_TEST_CPU_BUDGET=${BC_TEST_CPU_BUDGET:-850} BC_TEST_CPU_PER_TEST=${BC_TEST_CPU_PER_TEST:-60}
# The state schema's drift tests compare the schema with every frame type the engine registered; a test-only
# expansion (tests/toy_expansion.py) registers one more when pytest collects it, in every xdist worker: they run in
# a process of their own.
alone=(tests/test_state_schema.py "tests/test_docs.py::test_python_examples_run[docs/state-schema.md]")
# What runs in one process beside the parallel pass, in the time its workers leave a core idle (Ray's start-up, the
# tests that wait on servers and subprocesses, the last tests; about a fifth of the pass): mypy (the engine), the
# state-schema tests, and what differs between the builds on the pure-Python engine (BC_PURE_PYTHON=1). Its output
# is shown after the pass's.
beside() {
  .venv/bin/mypy
  BC_TEST_CPU_BUDGET=20 .venv/bin/python -m pytest -p no:cacheprovider "${alone[@]}"
  if [ -z "${BC_PURE_PYTHON:-}" ]; then
    echo "--- what differs between the builds, on the pure-Python engine (BC_PURE_PYTHON=1)"
    # Only the files that mark such tests are collected (collecting the whole suite took 10 of this pass's 13 s).
    mapfile -t marked < <(grep -l "pytest.mark.pure_engine\|pytest.mark.both_builds" tests/test_*.py)
    BC_PURE_PYTHON=1 BC_TEST_CPU_BUDGET=30 .venv/bin/python -m pytest -p no:cacheprovider -n 0 \
      -m "pure_engine or both_builds" "${marked[@]}"
  fi
}
mkdir -p .venv/logs
beside >.venv/logs/beside.log 2>&1 &
beside_pid=$!
pass=0
.venv/bin/python -m pytest "${workers[@]}" --ignore=tests/test_state_schema.py --deselect "${alone[1]}" || pass=$?
other=0
wait "$beside_pid" || other=$?
echo "--- beside the parallel pass: mypy, the state-schema tests, the pure-Python engine (.venv/logs/beside.log)"
cat .venv/logs/beside.log
if [ "$pass" -ne 0 ] || [ "$other" -ne 0 ]; then
  echo "test.sh: failed (the parallel pass: exit $pass; mypy, state schema and the pure-Python engine: exit $other)"
  exit 1
fi
