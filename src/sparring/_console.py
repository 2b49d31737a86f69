"""The ``sparring`` console script's entry point (``[project.scripts]``) and ``python -m
sparring``'s: loads the command line and runs it.

Ctrl-C while the command line is still loading (a second or two on a loaded machine) exits
130, like Ctrl-C once a command runs (``jobs.outcome.EXIT_INTERRUPTED``), with one line on
standard error instead of the traceback of whichever import it interrupted. This module
imports nothing of sparring at its top, so the window it cannot cover is Python's own start
(the interpreter, ``site`` and the environment's ``.pth`` files: there Python prints the
interrupted import's traceback and exits 1, or dies of the signal; measured by
``benchmarks/bench_interrupt_window.py``, written in docs/runs.md).
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED_WHILE_LOADING = "sparring: interrupted while loading; nothing was run"


def main() -> None:
    """Run the ``sparring`` command (``sparring.cli.main``). Raises ``SystemExit(130)``
    after one line on standard error when interrupted before the command line is loaded."""
    try:
        from sparring.cli import main as run_command
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED_WHILE_LOADING + "\n")
        raise SystemExit(128 + signal.SIGINT) from None  # EXIT_INTERRUPTED, not loaded yet
    run_command()
