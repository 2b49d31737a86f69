"""A generated profile is validated in a temporary folder: under a policy that confines
paths (a dashboard job: the project's files and the run), that folder is read too, so the
profiles are written. The full run of the dashboard's browser test wrote none: every
profile was refused as a file outside the project's files, and ``run`` tested nothing."""

from __future__ import annotations

from pathlib import Path

from sparring._policy import ExecutionPolicy, scoped
from sparring.explore._assemble import validate_text

PROFILE = """\
test_name: order
user:
  language: English
  role: You order a coffee.
  goals:
  - a {{drink}}
  - drink:
      function: forward()
      type: string
      data: [latte, mocha]
chatbot:
  is_starter: false
  fallback: Sorry?
conversation:
  number: 1
  goal_style:
    steps: 4
  interaction_style:
  - single question
"""


def test_a_valid_profile_validates_under_a_policy_confining_paths(tmp_path: Path) -> None:
    assert validate_text(PROFILE, "order") == []
    with scoped(ExecutionPolicy(run_code=False).confined([tmp_path])):
        assert validate_text(PROFILE, "order") == []
        assert validate_text(PROFILE.replace("steps: 4", "steps: x"), "order") != []
