#!/usr/bin/env bash
# Sets up a virtual environment with the test extra and every optional extra the tests
# exercise (Beam, LiteRT, ONNX Runtime + OpenVINO, plots, jieba, the classic baselines: a
# skipped test is not a passing test), then runs the docstring examples of albert_tf and the suite in tests/ on two
# pytest-xdist workers.
#
#   bash scripts/test.sh              everything: what CI runs
#   bash scripts/test.sh --fast       the inner loop: without the tests marked `slow`
#   bash scripts/test.sh [--fast] ARGS...   ARGS go to pytest (e.g. -k lock, -x)
set -euo pipefail
cd "$(dirname "$0")/.."
select=()
pytest_args=()
for arg in "$@"; do
  if [[ "$arg" == "--fast" ]]; then select=(-m "not slow"); else pytest_args+=("$arg"); fi
done
python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,beam,litert,onnx,paper,chinese,bench]'
# PyPI's default torch wheel (the CUDA build, on Pythons without a CPU wheel at hand) brings
# triton, whose import crashes a process that has loaded TensorFlow (segfault); the interop tests
# run torch on the CPU and need none of it.
if .venv/bin/python -m pip show -q triton 2>/dev/null; then
  .venv/bin/python -m pip uninstall -q -y triton
fi
.venv/bin/ruff check albert_tf scripts tests benchmarks
# Every docstring example runs (the others are marked "Illustration (not run)").
# loadgroup: the tests of each expensive fixture share a worker (tests/xdist_groups.py).
.venv/bin/python -m pytest -q -n 2 --dist loadgroup --durations=15 "${select[@]}" \
  --doctest-modules albert_tf tests "${pytest_args[@]}"
