"""``sparring.validation``: the one function ``sparring validate``, the dashboard's file
editor and tests call — located problems per file, the kind told by the top-level keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.errors import UserInputError
from sparring.validation import file_kind, validate_file, validate_files

PROFILE = """\
test_name: order
user:
  role: r
  goals:
    - "a {{size}} pizza"
    - size: {function: random(), type: string, data: [s, m]}
chatbot: {fallback: f}
conversation: {number: 1, goal_style: {steps: 2}}
"""
RULES = """\
name: sized
oracle: size == 's'
"""
PROBES = """\
suite: mine
probes:
  - id: p1
    category: injection
    turns: [hello]
    oracle: {refuses: {}}
"""
PYTHON_BOT = """\
connector: python
params:
  target: bot_module_that_would_run.py:Bot
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_file_is_checked_with_its_problems_located(tmp_path: Path) -> None:
    _write(tmp_path, "good.yml", PROFILE)
    bad = _write(tmp_path, "bad.yml", PROFILE.replace("steps: 2", "stepz: 2"))
    rules = _write(tmp_path, "rules.yml", RULES.replace("size ==", "sise =="))
    checks = {c.path.name: c for c in validate_files([tmp_path])}
    assert checks["good.yml"].ok and checks["good.yml"].kind == "profile"
    [problem] = checks["bad.yml"].errors
    assert (problem.file, problem.line, problem.key) == (
        str(bad),
        8,
        "conversation.goal_style.stepz",
    )
    # the rule file reads a variable no profile defines: found through the profiles given
    assert checks["rules.yml"].kind == "rules"
    assert any("sise" in str(p) for p in checks["rules.yml"].errors), checks["rules.yml"]
    assert str(rules) in str(checks["rules.yml"].errors[0])


def test_kinds_are_told_apart_by_their_keys(tmp_path: Path) -> None:
    assert file_kind(_write(tmp_path, "p.yml", PROFILE)) == "profile"
    assert file_kind(_write(tmp_path, "r.yml", RULES)) == "rules"
    assert file_kind(_write(tmp_path, "s.yml", PROBES)) == "probes"
    assert file_kind(_write(tmp_path, "c.yml", PYTHON_BOT)) == "chatbot"
    assert file_kind(_write(tmp_path, "u.yml", "colour: blue\n")) == "unknown"
    assert not validate_file(tmp_path / "u.yml").ok


def test_a_server_reads_a_chatbot_file_without_building_its_connector(tmp_path: Path) -> None:
    bot = _write(tmp_path, "chatbot.yaml", PYTHON_BOT)
    assert validate_file(bot, build_connector=False).ok  # the module is never imported
    built = validate_file(bot)
    assert not built.ok and "bot_module_that_would_run" in str(built.errors)


def test_no_yaml_file_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserInputError, match="no YAML files found"):
        validate_files([tmp_path / "empty"])
