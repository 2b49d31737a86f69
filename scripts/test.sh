#!/usr/bin/env bash
# The project's whole check (README, .ci/run): install the development tools, then lint,
# format, strict types and the tests.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/integration -x`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python}
$PYTHON -m pip install --disable-pip-version-check -q -e ".[dev,web]"
$PYTHON -m ruff check .
$PYTHON -m ruff format --check .
$PYTHON -m mypy
$PYTHON -m pytest -q "$@"
