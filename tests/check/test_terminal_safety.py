"""Bot text and user-file names are printed as text (issue 26, defect 15): Rich markup
is escaped and terminal control sequences are stripped (``sparring._terminal``)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from check_builders import record, write_rules
from rich.console import Console
from test_reports_and_cli import native_run

from sparring._terminal import escape, strip_control
from sparring.cli import main
from sparring.conversations import RunSummary, render_summary

HOSTILE = (
    "[/] [bold red]fake PASS[/] \x1b[2J\x1b[31mred\x1b[0m "
    "\x1b]0;title\x07\x1b]8;;http://x\x1b\\ \r\x00\x9b1A"
)


def test_escape_strips_control_sequences_and_escapes_markup() -> None:
    assert strip_control(HOSTILE) == "[/] [bold red]fake PASS[/] red  "
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(escape(HOSTILE + "\nsecond\tline"))
    assert console.file.getvalue() == "[/] [bold red]fake PASS[/] red  \nsecond  line\n"  # type: ignore[attr-defined]


def test_a_profile_named_with_markup_does_not_break_the_summary() -> None:
    summary = RunSummary(conversations=1, profiles={"[/]\x1b[2J": 1})
    console = Console(file=io.StringIO(), width=120, color_system=None)
    render_summary(summary, console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "[/]" in out and "\x1b" not in out


def test_check_prints_a_hostile_reply_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = 'name: no\nthen: False\nyields: f"bot said {chatbot_phrases[0]}"\n'
    rules = write_rules(tmp_path / "rules", no=rule)
    turns = [("user", "hi"), ("assistant", HOSTILE)]
    run = native_run(tmp_path / "run", [record("a", turns=turns)])
    monkeypatch.setattr(sys, "argv", ["sparring", "check", str(rules), "--run", str(run)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "\r" not in out
    assert "[bold red]fake PASS[/]" in out.replace("\n", "")
