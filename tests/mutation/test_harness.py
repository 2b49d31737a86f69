"""The mutate harness end to end with a fake in-process bot: the original first (its
failures are false positives), killed / live / stillborn mutants, mutation.json, resume,
the sample, and the report section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_harness_fakes import OPERATORS, DropReply, FakeBuilder, Slow, make_project

from sparring.conversations import RunStore
from sparring.errors import UserInputError
from sparring.jobs.events import JobEvent, Planned
from sparring.mutation._harness import OriginalFailed
from sparring.mutation._job import MutateJob, MutateSettings
from sparring.mutation._result import read_mutation
from sparring.mutation._sample import apply_mutant, sample_mutants
from sparring.report import write_report
from sparring.runner import resume, start

EXPECTED = {
    "fake.break_build@replies.txt#build": ("stillborn", []),
    "fake.crash@replies.txt#crash:price": ("killed", ["no_response"]),
    "fake.crash@replies.txt#crash:server": ("killed", ["unreachable"]),
    "fake.drop_reply@replies.txt#reply:both": ("live", []),
    "fake.drop_reply@replies.txt#reply:drink": ("killed", ["confirms_the_order"]),
    "fake.drop_reply@replies.txt#reply:hours": ("live", []),
    # the offline user tracks goals by evidence: a price never given is goal_not_completed
    "fake.drop_reply@replies.txt#reply:pizza": (
        "killed",
        ["confirms_the_order", "goal_not_completed"],
    ),
    "fake.drop_reply@replies.txt#reply:price": ("killed", ["goal_not_completed"]),
    "fake.drop_reply@replies.txt#reply:size": ("killed", ["confirms_the_order"]),
}


def settings(root: Path, **extra: object) -> MutateSettings:
    project, profiles, rules = make_project(root)
    return MutateSettings.model_validate(
        {"project": project, "kind": "aiml", "profiles": [profiles], "rules": [rules], **extra}
    )


def test_every_mutant_is_judged_against_the_original(tmp_path: Path) -> None:
    result = start(
        MutateJob(builder=FakeBuilder(), operators=OPERATORS), settings(tmp_path), tmp_path / "out"
    ).result
    assert result.original is not None and result.original.conversations == 1
    # mentions_delivery fails on the original: a false positive, it kills no mutant
    assert result.original.false_positives == ["mentions_delivery"]
    assert {m.id: (m.status, m.killed_by) for m in result.mutants} == EXPECTED
    assert result.score == 6 / 8 and result.complete
    rows = {
        row.operator: (row.total, row.killed, row.live, row.stillborn) for row in result.operators
    }
    assert rows == {"fake.break_build": (1, 0, 0, 1), "fake.crash": (2, 2, 0, 0),
                    "fake.drop_reply": (6, 4, 2, 0)}  # fmt: skip
    assert result.killed_by_table()["confirms_the_order"] == [
        "fake.drop_reply@replies.txt#reply:drink",
        "fake.drop_reply@replies.txt#reply:pizza",
        "fake.drop_reply@replies.txt#reply:size",
    ]


def test_mutation_json_holds_the_settings_diffs_runs_and_durations(tmp_path: Path) -> None:
    start(
        MutateJob(builder=FakeBuilder(), operators=OPERATORS),
        settings(tmp_path, seed=3),
        tmp_path / "out",
    )
    data = json.loads((tmp_path / "out" / "results" / "mutation.json").read_text())
    assert data["schema_version"] == 1 and data["complete"] is True
    assert data["settings"]["seed"] == 3 and data["settings"]["kind"] == "aiml"
    assert Path(data["settings"]["project"]).is_absolute()
    assert data["sampled"] == sorted(EXPECTED)
    live = next(m for m in data["mutants"] if m["id"].endswith("reply:hours"))
    assert live["status"] == "live" and live["operator"] == "fake.drop_reply"
    assert "-hours :: " in live["diff"] and live["diff"].startswith("--- a/replies.txt")
    assert live["location"] == {"file": "replies.txt", "key": "reply:hours", "line": 6}
    assert set(live["durations"]) == {"build", "run", "check"}
    run = tmp_path / "out" / live["run"]
    assert (run / "manifest.json").is_file() and list((run / "verdicts").glob("*.json"))
    assert not (run / "build" / "project").exists()  # the copy is removed after the run
    stillborn = next(m for m in data["mutants"] if m["status"] == "stillborn")
    assert stillborn["reason"] == "replies.txt is broken" and stillborn["killed_by"] == []
    # the job's folder is the original's run: a report target
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_the_report_of_the_job_folder_has_the_mutation_section(tmp_path: Path) -> None:
    start(
        MutateJob(builder=FakeBuilder(), operators=OPERATORS), settings(tmp_path), tmp_path / "out"
    )
    html = write_report(tmp_path / "out").read_text()
    assert 'id="mutation"' in html
    assert "mutation score 75%: 6 killed, 2 live, 1 stillborn" in html
    assert "fake.drop_reply@replies.txt#reply:hours" in html and "-hours :: " in html


def test_resume_runs_only_the_unfinished_mutants(tmp_path: Path) -> None:
    out = tmp_path / "out"
    start(MutateJob(builder=FakeBuilder(), operators=OPERATORS), settings(tmp_path), out)
    state = read_mutation(out)
    assert state is not None
    # as if interrupted: two mutants never finished (one left a half-written run)
    state.mutants = [m for m in state.mutants if not m.id.endswith(("reply:size", "build"))]
    state.complete = False
    state.write(RunStore.open(out))
    manifests = (out / "mutants").glob("*/manifest.json")
    finished = {p.parent.name: p.stat().st_mtime_ns for p in manifests}
    builder = FakeBuilder()
    resumed = resume(out, job=MutateJob(builder=builder, operators=OPERATORS)).result
    # builds are named by their mutant folder; the original ("out") was not run again
    assert len(builder.built) == 2 and "out" not in builder.built
    assert any(name.startswith("fake.drop_reply@replies.txt#reply_size") for name in builder.built)
    assert {m.id: (m.status, m.killed_by) for m in resumed.mutants} == EXPECTED
    assert resumed.complete and resumed.score == 6 / 8
    for name, mtime in finished.items():
        if name not in builder.built:  # finished mutants' runs are untouched
            assert (out / "mutants" / name / "manifest.json").stat().st_mtime_ns == mtime


def test_resume_after_an_interrupted_original_runs_it_again(tmp_path: Path) -> None:
    out = tmp_path / "out"
    start(MutateJob(builder=FakeBuilder(), operators=[DropReply()]), settings(tmp_path), out)
    state = read_mutation(out)
    assert state is not None
    state.original, state.mutants = None, []
    state.write(RunStore.open(out))
    builder = FakeBuilder()
    resumed = resume(out, job=MutateJob(builder=builder, operators=[DropReply()])).result
    assert builder.built[0] == "out" and len(builder.built) == 7
    assert resumed.original is not None and resumed.score == 4 / 6


def test_the_sample_is_seeded_and_stable(tmp_path: Path) -> None:
    project = make_project(tmp_path)[0]
    first = [m.id for m in sample_mutants(project, "aiml", 4, seed=1, operators=OPERATORS)]
    again = [m.id for m in sample_mutants(project, "aiml", 4, seed=1, operators=OPERATORS)]
    other = [m.id for m in sample_mutants(project, "aiml", 4, seed=3, operators=OPERATORS)]
    assert first == again == sorted(first) and len(first) == 4 and first != other
    rebuilt = apply_mutant(project, first[0], OPERATORS)
    assert rebuilt.id == first[0] and rebuilt.files and rebuilt.diff
    with pytest.raises(UserInputError, match="no location"):
        apply_mutant(project, "fake.drop_reply@replies.txt#reply:nothing", OPERATORS)


def test_a_sampled_job_runs_that_many_mutants(tmp_path: Path) -> None:
    result = start(
        MutateJob(builder=FakeBuilder(), operators=OPERATORS),
        settings(tmp_path, sample=3, seed=5),
        tmp_path / "out",
    ).result
    assert len(result.mutants) == len(result.sampled) == 3
    assert all(EXPECTED[m.id] == (m.status, m.killed_by) for m in result.mutants)


def test_an_original_that_cannot_be_built_stops_the_job(tmp_path: Path) -> None:
    job = settings(tmp_path)
    (job.project / "replies.txt").write_text("!!broken\n")
    with pytest.raises(OriginalFailed, match="could not be built"):
        start(MutateJob(builder=FakeBuilder(), operators=[DropReply()]), job, tmp_path / "out")


def test_an_original_that_fails_every_conversation_stops_the_job(tmp_path: Path) -> None:
    """Issue 26, defect 7: it used to exit 0 with "score 0 %"."""
    job = settings(tmp_path)
    replies = job.project / "replies.txt"
    replies.write_text("crash :: . :: !!crash\n" + replies.read_text())
    with pytest.raises(OriginalFailed, match=r"the original bot failed: .* got no answer"):
        start(MutateJob(builder=FakeBuilder(), operators=[DropReply()]), job, tmp_path / "out")


def test_bad_input_stops_before_anything_is_written(tmp_path: Path) -> None:
    job = settings(tmp_path)
    (job.rules[0] / "bad.yaml").write_text("name: bad\noracle: (\n")
    with pytest.raises(UserInputError):
        start(MutateJob(builder=FakeBuilder(), operators=OPERATORS), job, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    (job.rules[0] / "bad.yaml").unlink()
    with pytest.raises(UserInputError, match="no mutation operator applies"):
        start(MutateJob(builder=FakeBuilder(), operators=[]), job, tmp_path / "out")


def test_a_kill_by_timeout_alone_must_happen_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SLOW_ONCE", str(tmp_path / "slept-once"))
    job = settings(tmp_path)
    chatbot = job.project / "chatbot.yaml"
    chatbot.write_text(chatbot.read_text().replace("timeout: 5", "timeout: 1"))
    result = start(
        MutateJob(builder=FakeBuilder(), operators=[Slow()]), job, tmp_path / "out"
    ).result
    by_id = {m.id: m for m in result.mutants}
    always = by_id["fake.slow@replies.txt#slow:always"]
    assert (always.status, always.killed_by) == ("killed", ["timeout"])
    assert "confirmed by a second run (timeout)" in always.notes
    once = by_id["fake.slow@replies.txt#slow:once"]
    assert (once.status, once.killed_by) == ("live", [])
    assert "killed by timeout once; a second run did not reproduce it" in once.notes
    assert (tmp_path / "out" / once.run / "confirm" / "manifest.json").is_file()


def test_what_fails_on_one_run_of_the_original_kills_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SLOW_ONCE", str(tmp_path / "slept-once"))
    job = settings(tmp_path, original_runs=2, sample=1)
    chatbot = job.project / "chatbot.yaml"
    chatbot.write_text(chatbot.read_text().replace("timeout: 5", "timeout: 1"))
    replies = job.project / "replies.txt"  # the original is slow once: its first run times out
    replies.write_text("slow :: \\bcost\\b :: !!slow-once\n" + replies.read_text())
    result = start(
        MutateJob(builder=FakeBuilder(), operators=[DropReply()]), job, tmp_path / "out"
    ).result
    assert result.original is not None and result.original.runs == 2
    assert result.original.false_positives == ["mentions_delivery", "timeout"]
    assert result.original.flaky == ["timeout"]
    assert (tmp_path / "out" / "original-runs" / "2" / "manifest.json").is_file()
    assert all("timeout" not in m.killed_by for m in result.mutants)


def test_rules_edited_while_the_job_runs_do_not_judge_its_mutants(tmp_path: Path) -> None:
    job = settings(tmp_path, sample=2, seed=3)
    rule = job.rules[0] / "confirms.yaml"
    edited: list[str] = []

    def edit(_: int) -> None:  # told the sample after the original ran
        rule.write_text(rule.read_text().replace("'confirmed'", "'no such words'"))
        edited.append("yes")

    def sampled(event: JobEvent) -> None:
        if isinstance(event, Planned):
            edit(event.total)

    mutate = MutateJob(builder=FakeBuilder(), operators=OPERATORS)
    result = start(mutate, job, tmp_path / "out", on_event=sampled).result
    assert edited and "no such words" in rule.read_text()
    snapshot = tmp_path / "out" / "inputs" / "rules" / "0-rules" / "confirms.yaml"
    assert "'confirmed'" in snapshot.read_text()
    # judged with the edited rule, every live mutant would be "killed" by confirms_the_order
    for mutant in result.mutants:
        assert (mutant.status, mutant.killed_by) == EXPECTED[mutant.id]
