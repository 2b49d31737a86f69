"""Output paths are checked before any work (issue 26, defect 13): a folder given for a
file, a file given for a folder, or a file in the way of a parent folder exits 2 naming
the option and the path — never a traceback, never half the work done."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from check_builders import record, write_rules
from test_reports_and_cli import native_run

from sparring.cli import main


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["sparring", *args])
    try:
        main()
    except SystemExit as exited:
        return int(exited.code or 0)
    return 0


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("x")
    rules = write_rules(tmp_path / "rules", ok="name: ok\nthen: True\n")
    run = native_run(tmp_path / "run", [record("a")])
    return {"folder": folder, "file": a_file, "rules": rules, "run": run}


CASES = {
    "check --junit DIR": ("check", "{rules}", "--run", "{run}", "--junit", "{folder}"),
    "check --csv DIR": ("check", "{rules}", "--run", "{run}", "--csv", "{folder}"),
    "check --json FILE/x": ("check", "{rules}", "--run", "{run}", "--json", "{file}/x.json"),
    "report --out DIR": ("report", "{run}", "--out", "{folder}"),
    "diff --junit DIR": ("diff", "{run}", "{run}", "--junit", "{folder}"),
    "mutate --out FILE": (
        "mutate",
        "--project",
        "{folder}",
        "--kind",
        "aiml",
        "--profiles",
        "{rules}",
        "--rules",
        "{rules}",
        "--out",
        "{file}",
    ),
    "simulate --out FILE": ("simulate", "{rules}", "--chatbot", "{file}", "--out", "{file}"),
    "import-sensei --out FILE/x": ("import-sensei", "{folder}", "--out", "{file}/x"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_unusable_output_path_exits_2_before_any_work(
    setup: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: str,
) -> None:
    args = [arg.format(**{k: str(v) for k, v in setup.items()}) for arg in CASES[case]]
    assert _main(monkeypatch, *args) == 2
    err = capsys.readouterr().err.replace("\n", "")
    option = case.split()[1]
    assert f"[{option}]" in err, err
    assert "Traceback" not in err
    assert not (setup["run"] / "verdicts").exists()  # nothing was checked or stored


def test_a_report_file_in_a_new_folder_is_written(
    setup: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    junit = setup["folder"] / "new" / "deeper" / "junit.xml"
    args = ["check", str(setup["rules"]), "--run", str(setup["run"]), "--junit", str(junit)]
    assert _main(monkeypatch, *args) == 0
    assert junit.read_text(encoding="utf-8").startswith("<?xml")
