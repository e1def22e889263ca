#!/usr/bin/env bash
# Sets up a virtual environment and runs the whole pipeline on the embedded sample.
set -euo pipefail
cd "$(dirname "$0")/.."
python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
.venv/bin/albert-tf quickstart --workdir "${1:-runs/quickstart}"
