#!/usr/bin/env bash
# Sets up a virtual environment with the test extra and every optional extra the tests
# exercise (Beam, LiteRT, plots: a skipped test is not a passing test), then runs the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,beam,litert,paper]'
.venv/bin/ruff check albert_tf scripts tests benchmarks
# Every docstring example runs (the others are marked "Illustration (not run)"); ~20 s.
.venv/bin/python -m pytest -q -p no:xdist --doctest-modules albert_tf
# loadgroup: the tests of each expensive fixture share a worker (tests/xdist_groups.py).
.venv/bin/python -m pytest -q -n 2 --dist loadgroup --durations=15 tests "$@"
