"""Every pattern a user writes runs on the time-limited matcher (issue 36, defect 3): a
custom type's ``format:`` ran on Python's ``re``, and ``validate`` hung for ever on a
47-character value of ``^(\\w|\\s|\\w\\w|\\w\\s)*\\d$``. Run in a child process with a time
limit, so a regression fails instead of hanging."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sparring._regex import PatternTimeout
from sparring.profiles import load_custom_types

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 120
"""Generous for a loaded machine; the refusal takes about a second."""
SLOW = "^(\\w|\\s|\\w\\w|\\w\\s)*\\d$"
VALUE = "a" * 46 + "!"
PROFILE = f"""\
test_name: slow
user:
  language: English
  role: You ask a chatbot for help.
  context: [you are polite]
  goals:
    - "my code is {{{{code}}}}"
    - code:
        function: forward()
        type: slow
        data: ["{VALUE}"]
chatbot:
  is_starter: false
  fallback: "I do not understand."
  output: []
conversation:
  number: 1
  goal_style: {{steps: 2}}
  interaction_style: [single question]
"""


def _write(folder: Path) -> Path:
    (folder / "profiles" / "types").mkdir(parents=True)
    (folder / "profiles" / "slow.yaml").write_text(PROFILE)
    (folder / "profiles" / "types" / "slow.yml").write_text(f"name: slow\nformat: '{SLOW}'\n")
    return folder / "profiles" / "slow.yaml"


def test_a_slow_custom_type_is_cut_off_and_named(tmp_path: Path) -> None:
    types, _ = load_custom_types(_write(tmp_path))
    with pytest.raises(PatternTimeout, match="ran longer than"):
        types["slow"].matches(VALUE)
    assert types["slow"].matches("ab 1")


def test_validate_does_not_hang_on_a_slow_custom_type(tmp_path: Path) -> None:
    _write(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "sparring", "validate", "profiles"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=SECONDS,
        stdin=subprocess.DEVNULL,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "slow" in output and "ran longer than" in output, output
    assert "Traceback" not in output, output
