"""The simulate job from Python: three lines to a run, typed settings in the manifest,
resume reading them back typed, and the run store's version checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.conversations import RunStore
from sparring.errors import ConfigError, UserInputError
from sparring.jobs.events import JobEvent, Planned
from sparring.runner import resume, start
from sparring.simulate import SimulateJob, SimulateSettings

DATA = Path(__file__).parent / "data"


def test_a_job_started_from_python(tmp_path: Path) -> None:
    settings = SimulateSettings(profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml")
    result = start(SimulateJob(), settings, tmp_path / "run").result
    assert result.summary.conversations == 3 and result.ran == 3
    records = list(result.store.iter_records())
    assert [r.id for r in records] == ["order/0", "order/1", "order/2"]
    assert all(r.simulator == "agenda" for r in records)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["job"] == "simulate" and manifest["schema_version"] == 2
    assert manifest["settings"]["simulator"] == "agenda"
    assert manifest["endpoint"] == "scripted"
    assert (tmp_path / "run" / "summary.json").is_file()


def test_resume_reads_the_typed_settings_back(tmp_path: Path) -> None:
    settings = SimulateSettings(
        profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml", max_turns=2, seed=7
    )
    first = start(SimulateJob(), settings, tmp_path / "run").result
    victim = first.store.record_path("order/1")
    victim.unlink()
    kept = {p.name: p.stat().st_mtime_ns for p in first.store.conversations_dir.iterdir()}
    seen: list[int] = []

    def planned(event: JobEvent) -> None:
        if isinstance(event, Planned):
            seen.append(event.total)

    resumed = resume(tmp_path / "run", on_event=planned).result
    assert seen == [1] and resumed.ran == 1
    stored = SimulateSettings.from_manifest(
        resumed.store.manifest.settings, tmp_path / "run" / "manifest.json"
    )
    assert stored.max_turns == 2 and stored.seed == 7 and stored.simulator == "agenda"
    assert stored.profiles == [(DATA / "profiles" / "order.yaml").resolve()]
    again = resumed.store.read("order/1")
    assert sum(t.role == "user" for t in again.turns) <= 2  # the run's own max_turns
    for name, mtime in kept.items():
        assert (first.store.conversations_dir / name).stat().st_mtime_ns == mtime


def test_resume_with_a_broken_setting_names_manifest_and_key(tmp_path: Path) -> None:
    start(
        SimulateJob(),
        SimulateSettings(profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml"),
        tmp_path / "run",
    )
    path = tmp_path / "run" / "manifest.json"
    data = json.loads(path.read_text())
    data["settings"]["max_turns"] = "many"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        resume(tmp_path / "run")
    problem = caught.value.problems[0]
    assert problem.file == str(path) and problem.key == "settings.max_turns"


def test_llm_simulator_without_a_model_stops_before_any_work(tmp_path: Path) -> None:
    settings = SimulateSettings(
        profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml", simulator="llm"
    )
    with pytest.raises(UserInputError, match="--model"):
        start(SimulateJob(), settings, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_version_1_manifest_still_resumes(tmp_path: Path) -> None:
    result = start(
        SimulateJob(),
        SimulateSettings(profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml"),
        tmp_path / "run",
    ).result
    path = result.store.path / "manifest.json"
    data = json.loads(path.read_text())
    settings = data.pop("settings")
    data.pop("job"), data.pop("endpoint")
    data.update(
        schema_version=1,
        simulator="agenda",
        model=None,
        seed=0,
        concurrency=2,
        options={"max_turns": 1, "repeat_limit": 3},
        profiles=settings["profiles"],
    )
    path.write_text(json.dumps(data))
    result.store.record_path("order/2").unlink()
    resumed = resume(result.store.path).result
    assert resumed.ran == 1
    assert sum(t.role == "user" for t in resumed.store.read("order/2").turns) == 1


@pytest.mark.parametrize(("version", "words"), [(99, "newer"), (0, "older")])
def test_a_record_of_an_unknown_schema_version_is_a_clear_error(
    tmp_path: Path, version: int, words: str
) -> None:
    result = start(
        SimulateJob(),
        SimulateSettings(profiles=[DATA / "profiles"], chatbot=DATA / "chatbot.yaml"),
        tmp_path / "run",
    ).result
    path = result.store.record_path("order/0")
    data = json.loads(path.read_text())
    data["schema_version"] = version
    path.write_text(json.dumps(data))
    store = RunStore.open(result.store.path)
    with pytest.raises(ConfigError) as caught:
        list(store.iter_records())
    problem = caught.value.problems[0]
    assert problem.file == str(path) and problem.key == "schema_version"
    assert words in problem.message and "ConversationRecord" in problem.message
