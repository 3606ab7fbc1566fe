#!/usr/bin/env bash
# Set everything up and run the checks: ruff (lint + format), mypy (the engine) and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev,train,serve,onnx,embed-test,bench,rllib,tournament  # bench: the env benchmark's peers
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
