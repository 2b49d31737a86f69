"""A job's progress bar in a terminal: the console's redacting stream and Rich's
``FileProxy`` (``sys.stdout`` while a bar runs) wrote to each other forever, so every
``sparring simulate`` run from a terminal hung at its first conversation (the README's
first command among them). The tests run the bar in a child process, on a stdout that
says it is a terminal, and fail when it does not finish."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

CHILD = """
import io, sys

class Terminal(io.StringIO):
    def isatty(self):
        return True

screen = Terminal()
sys.stdout = screen
from sparring.cli._app import console
from sparring.cli._progress import CountingProgress

with CountingProgress("conversations", "failed") as bar:
    bar.start(2)
    print("a line printed while the bar runs")
    console.print("the console while the bar runs: Bearer abcdefghijklmnop1234")
    bar.advance(False)
    bar.advance(True)
sys.__stdout__.write(screen.getvalue())
"""


def test_a_progress_bar_in_a_terminal_finishes_and_keeps_what_was_printed() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "a line printed while the bar runs" in done.stdout
    assert "the console while the bar runs" in done.stdout
    assert "2/2" in done.stdout and "1 failed" in done.stdout  # the bar itself was drawn
    assert "abcdefghijklmnop1234" not in done.stdout and "Bearer ***" in done.stdout


def test_a_job_of_stages_shows_one_bar_at_a_time_named_after_its_stage() -> None:
    from sparring.cli._progress import CountingProgress

    with CountingProgress("{stage}", "failed") as bar:
        bar.stage("explore")
        bar.start(31)
        for _ in range(26):  # the exploration ended before its budget
            bar.advance(False)
        bar.stage("simulate")
        bar.start(32)
        bar.advance(True)
        [task] = bar.bar.tasks  # the explore bar, stuck at 26/31, is gone
        assert (task.description, task.total, task.completed) == ("simulate", 32, 1)
        assert task.fields["count"] == 1
