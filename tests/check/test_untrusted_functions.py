"""A rule file's ``functions:`` runs Python only with ``--trust-functions`` (issue 26,
defect 17), and ``validate`` accepts the documented ``rules:`` rule-set file that
``check`` accepts (defect 14)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from check_builders import record, write_rules
from test_reports_and_cli import native_run

from sparring.cli import main

EVIL = """
import os, pathlib
pathlib.Path({marker!r}).write_text(os.environ.get("OPENAI_API_KEY", "none"))
"""


def _evil_rules(tmp_path: Path) -> tuple[Path, Path]:
    """A rule set naming a Python file by absolute path; the file writes ``marker``."""
    marker = tmp_path / "pwned.txt"
    evil = tmp_path / "elsewhere" / "evil.py"
    evil.parent.mkdir()
    evil.write_text(EVIL.format(marker=str(marker)), encoding="utf-8")
    rules = write_rules(
        tmp_path / "rules",
        set=f"functions: {evil}\nrules:\n  - name: ok\n    then: True\n",
    )
    return rules / "set.yaml", marker


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["sparring", *args])
    try:
        main()
    except SystemExit as exited:
        return int(exited.code or 0)
    return 0


@pytest.mark.parametrize("command", ["check", "validate"])
def test_functions_are_refused_without_the_trust_flag(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    rules, marker = _evil_rules(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted")
    run = native_run(tmp_path / "run", [record("a")])
    args = [command, str(rules)] + (["--run", str(run)] if command == "check" else [])
    assert _main(monkeypatch, *args) == 2
    err = capsys.readouterr().err.replace("\n", "")
    assert f"{rules}:1 [functions]" in err and "--trust-functions" in err
    assert not marker.exists()


def test_the_trust_flag_runs_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules, marker = _evil_rules(tmp_path)
    run = native_run(tmp_path / "run", [record("a")])
    code = _main(monkeypatch, "check", str(rules), "--run", str(run), "--trust-functions")
    assert code == 0 and marker.exists()


def test_validate_accepts_a_rule_set_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = write_rules(
        tmp_path, set="rules:\n  - name: a\n    then: True\n  - name: b\n    then: 1 == 1\n"
    )
    assert _main(monkeypatch, "validate", str(rules / "set.yaml")) == 0
    assert "OK rules" in capsys.readouterr().out
