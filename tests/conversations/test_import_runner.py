"""The import jobs on the runner: three lines from Python; a stopped import is incomplete
(the manifest's status says so, check never passes it) and resumes to the whole import."""

from __future__ import annotations

import shutil
from pathlib import Path

from sparring.conversations import RunStore, incomplete_run
from sparring.jobs import JobStatus
from sparring.runner import resume, start
from tests.jobs.helpers import StopAfter, conversations


def _folder(sensei_file: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "sensei"
    folder.mkdir()
    for name in ("a", "b", "c"):
        shutil.copy(sensei_file, folder / f"{name}.yaml")
    return folder


def test_a_stopped_import_resumes_to_the_whole_import(sensei_file: Path, tmp_path: Path) -> None:
    settings = {"source": str(_folder(sensei_file, tmp_path))}
    whole = start("import-sensei", settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.result.imported == 3

    stopper = StopAfter(items=1)
    stopped = start("import-sensei", settings, tmp_path / "run", on_event=stopper,
                    stop=stopper.stop)  # fmt: skip
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    assert len(RunStore.open(tmp_path / "run")) == 1
    gap = incomplete_run(tmp_path / "run")
    assert gap is not None and "stopped" in gap.reason  # no verdict on a stopped run

    resumed = resume(tmp_path / "run")
    assert resumed.status is JobStatus.FINISHED and resumed.result.imported == 3
    assert conversations(tmp_path / "run") == conversations(tmp_path / "whole")
    assert incomplete_run(tmp_path / "run") is None
    assert RunStore.open(tmp_path / "run").manifest.planned == RunStore.open(
        tmp_path / "whole").manifest.planned  # fmt: skip
