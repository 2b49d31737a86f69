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


@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
def test_a_progress_file_that_is_no_small_regular_file_reads_as_none(
    tmp_path: Path, kind: str
) -> None:
    """``progress.json`` as a FIFO (``read_bytes`` blocked for ever), a link to
    ``/dev/zero`` (read until memory ran out) or a file past the limit: no progress, at
    once. The thread's join bound is a guard against a hang, not a timing claim."""
    import os
    import threading

    from sparring.jobs import PROGRESS, read_progress
    from sparring.jobs._progress import MAX_PROGRESS_BYTES

    path = tmp_path / PROGRESS
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        valid = b'{"job": "simulate", "started_at": "2026-11-28T20:00:00Z",'
        valid += b' "updated_at": "2026-11-28T20:00:01Z"}'
        assert read_progress(tmp_path) is None  # nothing yet
        path.write_bytes(valid)
        assert read_progress(tmp_path) is not None  # a valid one reads
        path.write_bytes(valid + b" " * MAX_PROGRESS_BYTES)  # valid JSON, past the limit
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(read_progress(tmp_path)), daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert found == [None]
