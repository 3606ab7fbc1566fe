#!/usr/bin/env bash
# Set everything up and run the main job: a seeded demo game in the terminal, then the engine benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/balance-control watch --config core-4p --seed 1 --final-only
.venv/bin/balance-control bench --seconds 10
