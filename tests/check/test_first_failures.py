"""The console says why (issue 31): before its verdict, ``check`` (and ``run``,
``simulate``) lists the first failures with conversation, turn and reason, escaped."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from check_builders import record, write_rules
from test_reports_and_cli import native_run
from test_terminal_safety import HOSTILE

from sparring.cli import main
from sparring.cli._failures import print_first_failures, record_failures
from sparring.conversations import ConversationError

CONFIRMATION = [
    ("user", "I want to book a room"),
    ("assistant", "Which room type would you like: single, double or suite?"),
    ("user", "suite"),
    ("assistant", "Your booking is confirmed: a double room for Ann. Anything else?"),
]


def _check(tmp_path: Path, rules: Path, run: Path, capsys: pytest.CaptureFixture[str]) -> str:
    sys.argv = ["sparring", "check", str(rules), "--run", str(run), "--no-store"]
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    out: str = capsys.readouterr().out
    return out


def test_check_lists_the_first_failures_before_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", sys.argv)
    rule = "name: readback\noracle: not confirmation_mismatches()\n"
    rules = write_rules(tmp_path / "rules", readback=rule)
    wrong = record("booking-1", turns=CONFIRMATION, variables={"room": "suite"}, errors=[1001])
    out = _check(tmp_path, rules, native_run(tmp_path / "run", [wrong]), capsys)
    listed = out[out.index("first failures") :]
    assert "first failures (2 of 2)" in listed
    first, second = listed.splitlines()[1:3]
    assert "readback" in first and "booking-1" in first and "turn 3" in first
    assert "'suite'" in first and "'double'" in first
    assert "goal_not_completed" in second and "code 1001" in second
    assert listed.index("first failures") < listed.index("FAIL:")


def test_at_most_five_are_listed_and_bot_text_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", sys.argv)
    rule = 'name: no\nthen: False\nyields: f"bot said {chatbot_phrases[0]}"\n'
    rules = write_rules(tmp_path / "rules", no=rule)
    records = [record(f"c{i}", turns=[("user", "hi"), ("assistant", HOSTILE)]) for i in range(7)]
    out = _check(tmp_path, rules, native_run(tmp_path / "run", records), capsys)
    listed = out[out.index("first failures") : out.index("FAIL:")]
    assert "first failures (5 of 7)" in listed
    assert len([line for line in listed.splitlines() if "✗" in line]) == 5
    assert "\x1b" not in listed and "[bold red]fake PASS[/]" in listed


def test_simulate_lists_the_conversations_generic_failures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failed = record("order/0")
    failed.errors = [ConversationError(code=1001, message="goal 'size' not completed", turn=5)]
    print_first_failures(record_failures([record("fine/0"), failed]))
    out = capsys.readouterr().out
    assert "first failures (1 of 1)" in out
    assert "goal_not_completed" in out and "order/0" in out and "turn 5: goal 'size'" in out
    print_first_failures(record_failures([record("fine/0")]))
    assert capsys.readouterr().out == ""
