"""The ``evaluate`` job from Python: detection, ratings and statistics stored in the run,
resuming without judging anything twice, the offline path through the detector protocol,
``ModelRequired`` and bad files before any work, imported SENSEI runs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sparring.connectors import ChatbotInfo
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    RunManifest,
    RunStore,
    Slot,
    Turn,
)
from sparring.errors import ConfigError, ModelRequired, UnknownName, UserInputError
from sparring.evaluate import (
    BREAKDOWN_DETECTORS,
    CHATBOT_CRASH,
    ConversationBreakdowns,
    TurnBreakdown,
)
from sparring.evaluate._job import (
    BreakdownEvaluation,
    EvaluateJob,
    EvaluateSettings,
)
from sparring.evaluate._stats import EvaluationStatistics
from sparring.importers import ImportSenseiSettings
from sparring.llm import ScriptedModel
from sparring.runner import start, start_async
from sparring.types import Strategy

INFO = {"name": "Pizzeria", "description": "Takes pizza orders.", "type": "task-oriented"}


def chat(id: str, *texts: str, errors: Sequence[ConversationError] = ()) -> ConversationRecord:
    turns = [Turn(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(texts)]
    return ConversationRecord(id=id, profile=f"profile-{id}", turns=turns, errors=list(errors))


def make_run(path: Path, records: Sequence[ConversationRecord], info: Any = INFO) -> RunStore:
    manifest = RunManifest(
        run_id=path.name,
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        sparring_version="0.1.0",
        chatbot={"connector": "scripted", "info": info},
    )
    store = RunStore.create(path, manifest)
    for record in records:
        store.write(record)
    return store


def responder(messages: list[dict[str, str]]) -> dict[str, Any]:
    """Ratings for a rating prompt; a breakdown for a reply about the weather, else none."""
    prompt = messages[-1]["content"]
    if "# Conversation to rate" in prompt:
        keys = ["task_success", "efficiency", "appropriateness", "naturalness", "overall"]
        return {key: {"reasoning": "ok", "rating": 3} for key in keys}
    judged = prompt.split("# Latest chatbot utterance to judge")[-1]
    if "weather" in judged:
        return {
            "reasoning": "Talks about the weather instead of the order.",
            "score": 0.1,
            "decision": "breakdown",
            "breakdown_types": ["ignore request"],
        }
    return {"reasoning": "Fine.", "score": 0.9, "decision": "no_breakdown", "breakdown_types": []}


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    """The scripted model every ``--model`` spec loads in these tests."""
    scripted = ScriptedModel(responder, cost_per_call=0.001)
    monkeypatch.setattr("sparring.llm.load_model", lambda *args: scripted)
    return scripted


@pytest.fixture
def run(tmp_path: Path) -> Path:
    records = [
        chat("a", "A margherita please", "Lovely weather!", "Hello?", "Your pizza is ordered."),
        chat(
            "b",
            "Hi",
            "Hello, what pizza?",
            "Tonno",
            errors=[ConversationError(code=504, message="timeout", turn=2)],
        ),
        chat("c", "Hi"),
    ]
    return make_run(tmp_path / "run", records).path


def test_the_job_stores_breakdowns_ratings_and_statistics(run: Path, model: ScriptedModel) -> None:
    result = start(EvaluateJob(), EvaluateSettings(run=run, model="scripted")).result
    assert [p.name for p in result.stored] == [
        "breakdowns-chatchecker.json",
        "ratings.json",
        "statistics.json",
    ]
    assert all(p.is_file() and p.parent == run / "evaluations" for p in result.stored)
    assert len(model.requests) == 3 + 3  # three real chatbot replies, three conversations
    breakdowns = result.breakdowns["chatchecker"]
    assert breakdowns.model == "scripted" and breakdowns.usage.calls == 3
    assert breakdowns.usage.cost == pytest.approx(0.003)
    a, b, c = breakdowns.conversations
    assert [(t.turn, t.breakdown, t.error_types) for t in a.turns] == [
        (1, True, ["ignore request"]),
        (3, False, []),
    ]
    assert [t.error_types for t in b.turns] == [[], [CHATBOT_CRASH]]
    assert c.turns == []
    assert result.ratings is not None and result.ratings.usage.calls == 3
    assert result.ratings.conversations[0].ratings["overall"].rating == 3
    stats = result.statistics.run
    assert result.statistics.detector == "chatchecker"
    assert stats.breakdowns is not None
    assert (stats.breakdowns.dialogues_with_breakdowns, stats.breakdowns.breakdowns) == (2, 2)
    assert stats.breakdowns.types == {"chatbot crash": 1, "ignore request": 1}
    assert stats.crashes == 1 and stats.mean_ratings["overall"] == 3
    assert stats.evaluation_cost == pytest.approx(0.006)
    store = RunStore.open(run)
    stored = store.read_result(Slot.EVALUATIONS, "statistics", EvaluationStatistics)
    assert stored.run == stats


def test_resuming_judges_nothing_twice(run: Path, model: ScriptedModel) -> None:
    settings = EvaluateSettings(run=run, model="scripted")
    assert start(EvaluateJob(), settings).result.judged == 6
    calls = len(model.requests)
    again = start(EvaluateJob(), settings).result
    assert again.judged == 0 and len(model.requests) == calls
    assert (
        again.statistics.run.breakdowns
        == start(EvaluateJob(), settings).result.statistics.run.breakdowns
    )
    RunStore.open(run).write(chat("d", "Hi", "Hello!"))
    more = start(EvaluateJob(), settings).result
    assert more.judged == 2 and len(model.requests) == calls + 2
    assert [c.conversation for c in more.breakdowns["chatchecker"].conversations] == list("abcd")


def test_unscored_turns_are_judged_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = make_run(tmp_path / "run", [chat("a", "Hi", "Hello")]).path
    broken = ScriptedModel(["not json", "still not json"])
    monkeypatch.setattr("sparring.llm.load_model", lambda *args: broken)
    settings = EvaluateSettings(run=run, model="scripted", ratings=False)
    [turn] = start(EvaluateJob(), settings).result.breakdowns["chatchecker"].conversations[0].turns
    assert turn.breakdown is None and turn.raw == "still not json"
    fixed = ScriptedModel(responder)
    monkeypatch.setattr("sparring.llm.load_model", lambda *args: fixed)
    result = start(EvaluateJob(), settings).result
    assert result.judged == 1
    assert result.breakdowns["chatchecker"].conversations[0].turns[0].breakdown is False


class FakeOffline:
    """An offline detector by the protocol: every reply longer than 3 words is a breakdown
    (``lack of brevity``)."""

    name = "offline"
    strategy = Strategy.OFFLINE
    calls: ClassVar[list[tuple[str, list[str]]]] = []

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        self.calls.append((record.id, taxonomy))
        turns = [
            TurnBreakdown(
                turn=i,
                breakdown=len(t.text.split()) > 3,
                error_types=["lack of brevity"] if len(t.text.split()) > 3 else [],
                detector=self.name,
                strategy=self.strategy,
            )
            for i, t in enumerate(record.turns)
            if t.role == "assistant"
        ]
        return ConversationBreakdowns(
            conversation=record.id, profile=record.profile, detector=self.name, turns=turns
        )


@pytest.fixture
def offline() -> Iterator[type[FakeOffline]]:
    """``offline`` in ``BREAKDOWN_DETECTORS`` is the fake while the test runs."""
    FakeOffline.calls = []
    with BREAKDOWN_DETECTORS.override("offline", lambda **_: FakeOffline()):
        yield FakeOffline


def test_without_a_model_the_offline_detector_runs(run: Path, offline: type[FakeOffline]) -> None:
    result = start(EvaluateJob(), EvaluateSettings(run=run)).result
    assert [p.name for p in result.stored] == ["breakdowns-offline.json", "statistics.json"]
    assert result.ratings is None and result.statistics.detector == "offline"
    assert [c for c, _ in offline.calls] == ["a", "b", "c"]
    assert len(offline.calls[0][1]) == 26  # a task-oriented bot: every type
    evaluation = result.breakdowns["offline"]
    assert evaluation.model is None and evaluation.usage.calls == 0
    assert result.statistics.run.breakdowns is not None
    assert result.statistics.run.breakdowns.types == {"lack of brevity": 1}
    assert start(EvaluateJob(), EvaluateSettings(run=run)).result.judged == 0


def test_a_conversational_bot_gets_17_types(tmp_path: Path, offline: type[FakeOffline]) -> None:
    run = make_run(tmp_path / "run", [chat("a", "Hi", "Hello")], info={"type": "conversational"})
    start(EvaluateJob(), EvaluateSettings(run=run.path))
    assert len(offline.calls[0][1]) == 17


async def test_stored_breakdowns_of_other_detectors_feed_later_statistics(
    run: Path, model: ScriptedModel, offline: type[FakeOffline]
) -> None:
    await start_async(EvaluateJob(), EvaluateSettings(run=run, detectors=["offline"]))
    both = (
        await start_async(
            EvaluateJob(),
            EvaluateSettings(run=run, model="scripted", detectors=["ghassel"], ratings=False),
        )
    ).result
    assert set(both.breakdowns) == {"offline", "ghassel"}
    assert both.statistics.detector == "ghassel"
    ratings_only = (
        await start_async(
            EvaluateJob(), EvaluateSettings(run=run, model="scripted", detectors=[], ratings=True)
        )
    ).result
    assert ratings_only.statistics.detector == "offline"
    assert ratings_only.ratings is not None


def test_ratings_or_llm_detectors_without_a_model_stop_before_any_work(run: Path) -> None:
    with pytest.raises(ModelRequired, match="--model") as caught:
        start(EvaluateJob(), EvaluateSettings(run=run, detectors=[], ratings=True))
    assert caught.value.step == "dialogue ratings"
    with pytest.raises(ModelRequired, match="ghassel"):
        start(EvaluateJob(), EvaluateSettings(run=run, detectors=["ghassel"]))
    assert not (run / "evaluations").exists()


def test_bad_input_is_reported_before_any_work(
    tmp_path: Path, run: Path, model: ScriptedModel
) -> None:
    taxonomy = tmp_path / "taxonomy.yaml"
    taxonomy.write_text("types:\n  - name: x\n    level: task\n    description: y\n    weight: 2\n")
    with pytest.raises(ConfigError) as caught:
        start(EvaluateJob(), EvaluateSettings(run=run, model="scripted", taxonomy=taxonomy))
    assert str(caught.value) == f"{taxonomy}:5 [types[0].weight]: unknown key"
    with pytest.raises(UserInputError, match="not a run directory"):
        start(EvaluateJob(), EvaluateSettings(run=tmp_path / "nowhere", model="scripted"))
    empty = make_run(tmp_path / "empty", []).path
    with pytest.raises(UserInputError, match="no conversations"):
        start(EvaluateJob(), EvaluateSettings(run=empty, model="scripted"))
    assert model.requests == [] and not (run / "evaluations").exists()


def test_settings_round_trip_through_a_manifest(tmp_path: Path) -> None:
    settings = EvaluateSettings(run=tmp_path, model="m", detectors=["ghassel", "offline"])
    data = settings.model_dump(mode="json")
    assert EvaluateSettings.from_manifest(data, tmp_path / "manifest.json") == settings
    with pytest.raises(ConfigError, match=r"settings\.detectors"):
        EvaluateSettings.from_manifest({**data, "detectors": [["magic"]]}, tmp_path / "m.json")
    # a name is looked up in BREAKDOWN_DETECTORS when the job starts (plug-ins register late)
    magic = EvaluateSettings.from_manifest({**data, "detectors": ["magic"]}, tmp_path / "m.json")
    with pytest.raises(UnknownName, match=r"\[detectors\]: unknown breakdown detector 'magic'"):
        start(EvaluateJob(), magic.model_copy(update={"run": make_run(tmp_path / "r", []).path}))


def test_an_imported_sensei_run_is_evaluated(
    shared_data: Path, tmp_path: Path, model: ScriptedModel
) -> None:
    source = shared_data / "sensei-pizza" / "conversations" / "mutant_ChangeMemoryScope_1"
    imported = start("import-sensei", ImportSenseiSettings(source=source), tmp_path / "run").result
    result = start(
        EvaluateJob(), EvaluateSettings(run=imported.store.path, model="scripted")
    ).result
    evaluation: BreakdownEvaluation = result.breakdowns["chatchecker"]
    assert len(evaluation.conversations) == imported.imported == 13
    assert result.statistics.run.conversations == 13
    assert result.statistics.run.crashes > 0  # SENSEI recorded 500s on these conversations
    crash_types = [
        t.error_types for c in evaluation.conversations for t in c.turns if t.usage is None
    ]
    assert crash_types and all(types == [CHATBOT_CRASH] for types in crash_types)


def test_a_model_built_in_code_is_used_instead_of_the_spec(run: Path) -> None:
    model = ScriptedModel(responder)
    settings = EvaluateSettings(run=run, model="my-judge", ratings=False)
    result = start(EvaluateJob(model), settings).result
    assert len(model.requests) == 3 and result.breakdowns["chatchecker"].model == "scripted"
