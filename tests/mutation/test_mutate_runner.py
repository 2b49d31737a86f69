"""The ``mutate`` job on the runner: three lines from Python; stopped after k mutants,
resumed, it ends with the score and per-mutant verdicts of a job never stopped. A mutate
folder written before the runner (the original's ``simulate`` manifest at the root,
``mutation.json`` at the root) still opens, reports and resumes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_harness_fakes import DropReply, make_project
from typer.testing import CliRunner

from sparring.cli import app
from sparring.conversations import RunStore
from sparring.jobs import JobStatus, read_progress
from sparring.jobs.events import ItemDone, Planned
from sparring.mutation import OPERATORS, Location, MutationResult, adopt_old_run, read_mutation
from sparring.report import RunView, write_report
from sparring.runner import resume, start
from tests.jobs.helpers import StopAfter

MUTANTS = 6  # DropReply: one mutant per line of the fake bot's replies.txt


@pytest.fixture(autouse=True)
def operator() -> Iterator[None]:
    with OPERATORS.override("fake.drop_reply", DropReply()):
        yield


def _settings(root: Path) -> dict[str, object]:
    project, profiles, rules = make_project(root)
    return {"project": str(project), "kind": "aiml", "profiles": [str(profiles)],
            "rules": [str(rules)], "workers": 1}  # fmt: skip


def _verdicts(result: MutationResult) -> list[tuple[str, str, list[str]]]:
    return [(m.id, m.status, m.killed_by) for m in result.mutants]


def test_mutate_stops_after_k_mutants_and_resumes_to_the_uninterrupted_result(
    tmp_path: Path,
) -> None:
    settings = _settings(tmp_path)
    whole = start("mutate", settings, tmp_path / "whole")
    assert whole.status is JobStatus.FINISHED and whole.outcome.verdict == "pass"
    assert whole.result.score == 4 / 6 and len(whole.result.mutants) == MUTANTS
    assert whole.report is not None and whole.report.is_file()

    stopper = StopAfter(2)
    run_dir = tmp_path / "run"
    stopped = start("mutate", settings, run_dir, on_event=stopper, stop=stopper.stop)
    assert stopped.status is JobStatus.STOPPED and stopped.outcome.exit_code == 3
    assert stopped.outcome.verdict == "incomplete"
    manifest = RunStore.open(run_dir, clean=False).manifest
    assert manifest.job == "mutate" and manifest.status == "stopped"
    kept = read_mutation(run_dir)
    assert kept is not None and not kept.complete
    assert _verdicts(kept) == _verdicts(whole.result)[:2]  # the finished mutants are kept
    assert [e.total for e in stopper.events if isinstance(e, Planned)] == [MUTANTS]
    progress = read_progress(run_dir)
    assert progress is not None and progress.status is JobStatus.STOPPED
    assert progress.done == 2

    again = StopAfter(MUTANTS + 1)  # never stops: records what the resume runs
    resumed = resume(run_dir, on_event=again)
    assert resumed.status is JobStatus.FINISHED
    assert [e.total for e in again.events if isinstance(e, Planned)] == [MUTANTS - 2]
    assert [e.item_id for e in again.events if isinstance(e, ItemDone)] == [
        mutant_id for mutant_id, _, _ in _verdicts(whole.result)[2:]
    ]  # only the mutants not scored yet ran
    assert resumed.outcome == whole.outcome
    assert resumed.result.score == whole.result.score
    assert _verdicts(resumed.result) == _verdicts(whole.result)
    assert RunStore.open(run_dir, clean=False).manifest.status == "finished"
    assert RunView.open(run_dir).verdict.status == "passed"


def test_the_run_records_the_original_chatbot_its_check_and_the_mutants_read(
    tmp_path: Path,
) -> None:
    """The original is checked with the chatbot.yaml ``info`` (its fallback…) its run
    recorded, as each mutant's run is: both judged alike."""
    run = start("mutate", {**_settings(tmp_path), "sample": 1}, tmp_path / "out")
    assert run.run_dir is not None
    original = RunStore.open(run.run_dir, clean=False).manifest
    mutant = RunStore.open(run.run_dir / run.result.mutants[0].run, clean=False).manifest
    assert original.chatbot is not None and mutant.chatbot is not None
    assert original.chatbot["info"] == mutant.chatbot["info"]
    assert original.chatbot["info"]["fallback"] == "Sorry, I did not understand."
    assert original.endpoint is not None and original.chatbot_path is not None


def test_a_run_killed_before_its_first_result_resumes_from_the_sample(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    whole = start("mutate", settings, tmp_path / "whole")
    run_dir = tmp_path / "run"
    stopper = StopAfter(1)
    start("mutate", settings, run_dir, on_event=stopper, stop=stopper.stop)
    (run_dir / "results" / "mutation.json").unlink()  # as if killed before it was written
    resumed = resume(run_dir)
    assert resumed.status is JobStatus.FINISHED
    assert _verdicts(resumed.result) == _verdicts(whole.result)


def test_a_mutant_that_cannot_be_built_is_a_failed_item_with_its_reason(tmp_path: Path) -> None:
    events = StopAfter(MUTANTS + 1)
    with OPERATORS.override("fake.drop_reply", _Unbuildable()):
        run = start("mutate", {**_settings(tmp_path), "sample": 2}, tmp_path / "out",
                    on_event=events)  # fmt: skip
    done = [e for e in events.events if isinstance(e, ItemDone)]
    reasons = [m.reason for m in run.result.mutants]
    assert [(e.ok, e.error) for e in done] == [(False, r) for r in reasons] and all(reasons)
    assert run.result.count("stillborn") == 2
    assert run.status is JobStatus.FINISHED
    assert run.outcome.verdict == "no_verdict"  # no mutant counted: never a pass


class _Unbuildable(DropReply):
    """Writes a chatbot.yaml that does not load into the copy: the mutant cannot be built
    (stillborn)."""

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        files, what = super().apply(project, location)
        return {**files, "chatbot.yaml": "connector: nowhere\n"}, what


def _make_old(new: Path, old: Path, unfinished: int) -> None:
    """The layout before the runner: a ``simulate`` manifest at the root (the original's
    run), ``mutation.json`` at the root, ``unfinished`` mutants not finished yet."""
    shutil.copytree(new, old)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    simulate = {"profiles": manifest["profiles"], "chatbot": manifest["chatbot_path"]}
    manifest.update(job="simulate", settings=simulate)
    for key in ("status", "outcome"):
        manifest.pop(key)
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    data = json.loads((old / "results" / "mutation.json").read_text(encoding="utf-8"))
    data["settings"].pop("min_score")  # not a setting before the runner
    if unfinished:
        data["mutants"], data["complete"] = data["mutants"][:-unfinished], False
    (old / "mutation.json").write_text(json.dumps(data), encoding="utf-8")
    (old / "results" / "mutation.json").unlink()
    shutil.rmtree(old / "report")


def test_a_mutate_folder_written_before_the_runner_reports_and_resumes(tmp_path: Path) -> None:
    whole = start("mutate", _settings(tmp_path), tmp_path / "whole")
    assert whole.run_dir is not None
    old = tmp_path / "old"
    _make_old(whole.run_dir, old, unfinished=2)

    view = RunView.open(old)
    assert view.manifest.job == "simulate"
    html = write_report(old).read_text(encoding="utf-8")
    assert 'id="mutation"' in html and "fake.drop_reply@replies.txt#reply:both" in html

    result = CliRunner().invoke(app, ["mutate", "--resume", str(old)])
    assert result.exit_code == 0, result.output
    assert "mutation score: 67% (4 killed, 2 live, 0 stillborn, 0 errors)" in result.output
    resumed = read_mutation(old)
    assert resumed is not None and _verdicts(resumed) == _verdicts(whole.result)
    manifest = RunStore.open(old, clean=False).manifest
    assert manifest.job == "mutate" and manifest.status == "finished"
    assert manifest.outcome == whole.outcome
    assert (old / "results" / "mutation.json").is_file()
    assert "mutation score 67%" in (old / "report" / "index.html").read_text(encoding="utf-8")


def test_an_old_folder_whose_original_never_finished_starts_over(tmp_path: Path) -> None:
    whole = start("mutate", _settings(tmp_path), tmp_path / "whole")
    assert whole.run_dir is not None
    old = tmp_path / "old"
    _make_old(whole.run_dir, old, unfinished=0)
    data = json.loads((old / "mutation.json").read_text(encoding="utf-8"))
    data.update(original=None, mutants=[], complete=False, score=None, operators=[])
    (old / "mutation.json").write_text(json.dumps(data), encoding="utf-8")
    for name in ("manifest.json", "conversations", "summary.json", "verdicts"):
        path = old / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()  # the old code removed them
    assert adopt_old_run(old) is not None

    result = CliRunner().invoke(app, ["mutate", "--resume", str(old)])
    assert result.exit_code == 0, result.output
    resumed = read_mutation(old)
    assert resumed is not None and _verdicts(resumed) == _verdicts(whole.result)
