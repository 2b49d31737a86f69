"""The run store: atomic records, resume, streaming, located errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conversation_builders import manifest, record

from sparring.conversations import (
    ConversationRecord,
    RunStore,
    record_file_name,
    record_id_from_name,
)
from sparring.errors import ConfigError, UserInputError


def test_create_writes_manifest_and_open_reads_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    RunStore.create(run, manifest("r1"))
    assert json.loads((run / "manifest.json").read_text())["run_id"] == "r1"
    reopened = RunStore.open(run)
    assert reopened.manifest == manifest("r1")
    assert reopened.finished_ids() == set()
    assert list(reopened.iter_records()) == []


def test_write_then_read_keeps_every_field(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    original = record("pizza/3", errors=(504,))
    original.extra["anything"] = {"kept": [1, 2.5, None]}
    path = store.write(original)
    assert path.parent == store.conversations_dir
    assert store.read("pizza/3") == original
    assert ConversationRecord.model_validate_json(path.read_text()) == original


@pytest.mark.parametrize(
    "record_id",
    ["plain", "a/b/c", "../escape", ".hidden", "with space+plus%percent", "ünï/cödé", "x" * 300],
)
def test_ids_map_to_safe_names_and_back(tmp_path: Path, record_id: str) -> None:
    name = record_file_name(record_id)
    assert "/" not in name and not name.startswith(".") and len(name.encode()) < 255
    decoded = record_id_from_name(name)
    assert decoded == record_id or decoded is None  # None: the id is read from the file
    assert "%" not in name  # readable: no URL escapes
    store = RunStore.create(tmp_path / "run", manifest())
    store.write(record(record_id))
    assert store.finished_ids() == {record_id}
    assert store.read(record_id).id == record_id


def test_distinct_long_ids_do_not_collide(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    ids = {"x" * 300 + "a", "x" * 300 + "b"}
    for record_id in ids:
        store.write(record(record_id))
    assert store.finished_ids() == ids
    assert len(store) == 2


def test_empty_id_is_refused() -> None:
    with pytest.raises(ValueError, match="non-empty id"):
        record_file_name("")


def test_rewriting_a_record_replaces_it(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    store.write(record("a", duration=1.0))
    store.write(record("a", duration=2.0))
    assert [r.duration for r in store.iter_records()] == [2.0]


def test_crash_between_temp_write_and_replace_leaves_no_partial_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    store.write(record("done"))

    def killed(src: str, dst: str) -> None:
        raise KeyboardInterrupt("killed before the rename")

    # A SIGKILL also skips the writer's clean-up, so keep the temporary on disk.
    monkeypatch.setattr(os, "replace", killed)
    monkeypatch.setattr(os, "unlink", lambda path: None)
    with pytest.raises(KeyboardInterrupt):
        store.write(record("interrupted"))
    monkeypatch.undo()
    leftovers = [p for p in store.conversations_dir.iterdir() if p.name.startswith(".")]
    assert len(leftovers) == 1 and leftovers[0].suffix == ".tmp"
    assert store.finished_ids() == {"done"}
    assert [r.id for r in store.iter_records()] == ["done"]
    assert len(store) == 1

    reopened = RunStore.open(store.path)
    assert not leftovers[0].exists()
    assert reopened.finished_ids() == {"done"}


def test_write_failure_removes_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore.create(tmp_path / "run", manifest())

    def disk_full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space"):
        store.write(record("a"))
    monkeypatch.undo()
    assert list(store.conversations_dir.iterdir()) == []


_WRITER = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime
    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
    store = RunStore.create(sys.argv[1], RunManifest(
        run_id="k", created_at=datetime.now(UTC), sparring_version="0"))
    big = "x" * 200_000
    n = 0
    while True:
        store.write(ConversationRecord(id=f"c/{n}", profile="p",
                                       turns=[Turn(role="user", text=big)]))
        n += 1
        if n == 3:
            print("ready", flush=True)
    """
)


def test_sigkill_during_writes_never_exposes_a_partial_record(tmp_path: Path) -> None:
    run = tmp_path / "run"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(run)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    store = RunStore.open(run)
    records = list(store.iter_records())
    assert len(records) >= 3
    assert all(len(r.turns[0].text) == 200_000 for r in records)
    assert not [p for p in store.conversations_dir.iterdir() if p.name.startswith(".")]


def test_resume_skips_finished_conversations(tmp_path: Path) -> None:
    run = tmp_path / "run"
    store = RunStore.create(run, manifest())
    store.write(record("a"))
    resumed = RunStore.open(run)
    todo = [i for i in resumed.manifest.planned if i not in resumed.finished_ids()]
    assert todo == ["b/1"]
    resumed.write(record("b/1"))
    assert RunStore.open(run).finished_ids() == {"a", "b/1"}


def test_iter_records_streams_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    for n in (10, 2, 1):
        store.write(record(f"c{n}"))
    reads: list[Path] = []
    real = RunStore.read_file

    def counting(path: Path) -> ConversationRecord:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(RunStore, "read_file", staticmethod(counting))
    stream = store.iter_records()
    assert reads == []
    assert next(stream).id == "c1"
    assert len(reads) == 1
    assert [r.id for r in stream] == ["c2", "c10"]
    reads.clear()  # one page of a long run: only its files are read
    assert [r.id for r in store.iter_records(1, 2)] == ["c2"] and len(reads) == 1
    assert [r.id for r in store.iter_records(2)] == ["c10"]


def test_create_refuses_an_existing_run(tmp_path: Path) -> None:
    RunStore.create(tmp_path / "run", manifest())
    with pytest.raises(UserInputError, match="already holds a run") as info:
        RunStore.create(tmp_path / "run", manifest())
    assert "resume" not in str(info.value)  # explore and probe cannot resume (issue 26)
    hint = "or resume it with `sparring simulate --resume run`"
    with pytest.raises(UserInputError, match="pick another --out; or resume it with"):
        RunStore.create(tmp_path / "run", manifest(), resume_hint=hint)


def test_create_refuses_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserInputError, match="is a file"):
        RunStore.create(tmp_path / "file", manifest())


def test_open_refuses_a_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="not a run directory"):
        RunStore.open(tmp_path)


def test_open_names_the_bad_manifest_line(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{\n  "run_id": "x",\n  oops\n}')
    with pytest.raises(ConfigError) as info:
        RunStore.open(tmp_path)
    problem = info.value.problems[0]
    assert problem.file.endswith("manifest.json") and problem.line == 3


def test_open_names_the_missing_manifest_keys(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"run_id": "x"}')
    with pytest.raises(ConfigError) as info:
        RunStore.open(tmp_path)
    assert {p.key for p in info.value.problems} >= {"created_at", "sparring_version"}


def test_invalid_record_file_is_named(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", manifest())
    (store.conversations_dir / "bad.json").write_text('{"id": "bad", "turns": [{"role": 3}]}')
    with pytest.raises(ConfigError) as info:
        list(store.iter_records())
    assert info.value.problems[0].file.endswith("bad.json")
    assert any(p.key.startswith("profile") for p in info.value.problems)


def test_write_summary(tmp_path: Path) -> None:
    from sparring.conversations import summarize

    store = RunStore.create(tmp_path / "run", manifest())
    store.write(record("a"))
    path = store.write_summary(summarize(store.iter_records()))
    assert path == store.path / "summary.json"
    assert json.loads(path.read_text())["conversations"] == 1


def test_every_stage_writes_through_its_slot(tmp_path: Path) -> None:
    from pydantic import BaseModel

    from sparring.conversations import Slot
    from sparring.errors import ConfigError

    class Result(BaseModel):
        schema_version: int = 3
        value: int

    store = RunStore.create(tmp_path / "run", manifest())
    path = store.write_result(Slot.EVALUATIONS, "breakdowns/v1", Result(value=4))
    assert path == tmp_path / "run" / "evaluations" / "breakdowns-v1.json"
    assert store.read_result(Slot.EVALUATIONS, "breakdowns/v1", Result).value == 4
    assert store.result_names(Slot.EVALUATIONS) == ["breakdowns-v1"]
    assert store.result_names(Slot.VERDICTS) == []
    assert store.explore_model_path == tmp_path / "run" / "explore" / "model.json"
    assert store.explore_profiles_dir == tmp_path / "run" / "explore" / "profiles"
    assert store.slot(Slot.REPORT).is_dir()
    path.write_text('{"schema_version": 4, "value": 1}')
    with pytest.raises(ConfigError, match="newer than this sparring reads"):
        store.read_result(Slot.EVALUATIONS, "breakdowns/v1", Result)
    with pytest.raises(FileNotFoundError):
        store.read_result(Slot.VERDICTS, "absent", Result)


def test_names_are_readable_and_old_percent_encoded_runs_still_read(tmp_path: Path) -> None:
    from sparring.conversations._store import legacy_record_file_name

    assert record_file_name("alice_capitals/0#2") == "alice_capitals__0#2.json"
    store = RunStore.create(tmp_path / "run", manifest())
    store.conversations_dir.mkdir(parents=True, exist_ok=True)
    old = store.conversations_dir / legacy_record_file_name("pizza/3")
    assert old.name == "pizza%2F3.json"
    old.write_text(record("pizza/3").model_dump_json())
    assert store.finished_ids() == {"pizza/3"}
    assert store.read("pizza/3").id == "pizza/3"
