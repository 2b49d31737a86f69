"""A run's stored files read back malformed (issue 36, leftover a): the breakdowns, the
exploration model, each job's result, a statistics file — a JSON list where an object is
expected, an object of the wrong shape, a number where a list is expected — are each said
in the report as unreadable with the file and the key, never a traceback and never a
section that "failed"; the run's own files (manifest, records, check reports) still make
``sparring report`` a located error (exit 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sparring.cli import main
from sparring.errors import ConfigError
from sparring.report import write_report

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "report"))
from report_builders import check_run, conversation, make_run

STORED = [
    "evaluations/breakdowns-offline.json",
    "evaluations/breakdowns-chatchecker.json",
    "evaluations/statistics.json",
    "evaluations/ratings.json",
    "explore/model.json",
    "results/coverage.json",
    "results/probes.json",
    "results/metamorphic.json",
    "results/mutation.json",
    "results/adversarial.json",
    "results/definition_coverage.json",
]
"""The files later jobs store in a run, which the report reads back."""

SHAPES = {
    "a list": [1, 2],
    "a wrong object": {"schema_version": 1, "conversations": 5, "functionalities": "x"},
    "a string": "text",
    "null": None,
}


def _run(tmp_path: Path) -> Path:
    store = make_run(tmp_path / "run", [conversation("a/0", ["Hello!", "Your hat."])])
    check_run(store, tmp_path)
    return store.path


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("stored", STORED)
def test_a_malformed_stored_file_is_said_in_the_report(
    tmp_path: Path, stored: str, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    run = _run(tmp_path)
    target = run / stored
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(SHAPES[shape]), encoding="utf-8")
    page = write_report(run).read_text(encoding="utf-8")
    assert "This section failed" not in page
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert "cannot be read" in page or target.name not in page  # said, or not read at all
    if "cannot be read" in page:
        assert stored in page.replace("\\", "/")  # the file is named


def test_the_report_command_says_an_unreadable_breakdowns_file_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run(tmp_path)
    (run / "evaluations").mkdir()
    (run / "evaluations" / "breakdowns-offline.json").write_text("[1, 2]", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["sparring", "report", str(run)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 0
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "breakdowns-offline.json" in page and "cannot be read" in page
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("stored", ["manifest.json", "verdicts/{name}", "conversations/{name}"])
def test_a_malformed_file_of_the_run_itself_is_a_located_error(tmp_path: Path, stored: str) -> None:
    run = _run(tmp_path)
    folder = stored.split("/")[0]
    name = next((run / folder).glob("*.json")).name if "{name}" in stored else ""
    target = run / stored.format(name=name)
    target.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        write_report(run)
    assert str(target) in str(caught.value)
