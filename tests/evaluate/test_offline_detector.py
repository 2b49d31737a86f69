"""The offline breakdown detector with the shipped classifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.connectors import ChatbotInfo
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    ErrorCode,
    Turn,
    load_conversations,
)
from sparring.errors import UnknownName
from sparring.evaluate._calibration import TARGET_ACCURACY, TARGET_F1, decide_labels
from sparring.evaluate._classifier import (
    MEANING_MODEL_FILE,
    BreakdownClassifier,
    ClassifierMismatch,
    load_classifier,
    shipped_classifier,
)
from sparring.evaluate._detectors import BREAKDOWN_DETECTORS, make_detector
from sparring.evaluate._embedded import EMBEDDING_FEATURE_NAMES, EMBEDDING_FEATURE_SET_VERSION
from sparring.evaluate._features import FEATURE_NAMES, FEATURE_SET_VERSION
from sparring.evaluate._offline import (
    CLASSIFIER_WEIGHT,
    LEXICAL_ERROR_TYPES,
    RANKED,
    OfflineBreakdownDetector,
)
from sparring.evaluate._results import CHATBOT_CRASH, BreakdownDetector, quality_of
from sparring.precision import JudgeQuality, Measurement
from sparring.types import Strategy

INFO = ChatbotInfo()
CHAT = ChatbotInfo(type="conversational")


def record(*texts: str, errors: list[ConversationError] | None = None) -> ConversationRecord:
    """Turns alternate user, assistant, user… from the first text."""
    roles = ("user", "assistant")
    turns = [Turn(role=roles[i % 2], text=t) for i, t in enumerate(texts)]
    return ConversationRecord(id="c", profile="p", turns=turns, errors=errors or [])


def test_the_shipped_model_loads_and_fits_the_feature_set() -> None:
    model = shipped_classifier()
    assert model.feature_set_version == FEATURE_SET_VERSION
    assert tuple(model.feature_names) == FEATURE_NAMES
    assert 0 < model.threshold < 1 and model.training is not None
    assert model.training.turns == 4150 and len(model.training.fingerprint) == 64
    assert model.training.cv["accuracy"] > model.training.baseline["accuracy"]
    assert model.training.cv["f1"] > model.training.baseline["f1"]
    # measured on data it was not trained on, it falls short: it ranks and does not label
    assert model.quality is not None and model.quality.measurements
    held_out = model.quality.measurements[0]
    assert "held out" in held_out.data and held_out.auc is not None
    assert model.labels is decide_labels(held_out, model.training.cv)
    assert model.labels is False and "does not label" in model.quality.summary


def test_the_shipped_meaning_model_labels_chit_chat_on_unseen_chatbots(tmp_path: Path) -> None:
    """The model used with the ``embeddings`` extra: lexical features and the meaning
    relations, measured on chatbots it never saw at the issue's targets, so it labels
    chit-chat; read without the extra too (the file needs no encoder to load)."""
    model = shipped_classifier(MEANING_MODEL_FILE)
    assert model.uses_embeddings and model.embedding_feature_set_version == (
        EMBEDDING_FEATURE_SET_VERSION
    )
    assert tuple(model.feature_names) == FEATURE_NAMES + EMBEDDING_FEATURE_NAMES
    assert model.training is not None and model.quality is not None
    held_out = model.quality.measurements[0]
    assert (held_out.accuracy or 0) >= TARGET_ACCURACY and (held_out.f1 or 0) >= TARGET_F1
    assert model.training.cv["accuracy"] >= TARGET_ACCURACY
    assert model.training.cv["f1"] >= TARGET_F1
    assert model.labels is decide_labels(held_out, model.training.cv) is True
    data = model.model_dump(mode="json")
    path = tmp_path / "model.json"
    path.write_text(json.dumps({**data, "embedding_feature_set_version": 99}))
    with pytest.raises(ClassifierMismatch, match="meaning features 99"):
        load_classifier(path)


def test_a_model_of_another_feature_set_is_refused(tmp_path: Path) -> None:
    data = shipped_classifier().model_dump(mode="json")
    path = tmp_path / "model.json"
    path.write_text(json.dumps({**data, "feature_set_version": FEATURE_SET_VERSION + 1}))
    with pytest.raises(ClassifierMismatch, match="retrain"):
        load_classifier(path)
    path.write_text(json.dumps({**data, "feature_names": data["feature_names"][::-1]}))
    with pytest.raises(ClassifierMismatch, match="names"):
        load_classifier(path)
    path.write_text("{")
    with pytest.raises(ClassifierMismatch, match="cannot read"):
        load_classifier(path)


def test_detector_is_registered_and_satisfies_the_protocol() -> None:
    detector: BreakdownDetector = make_detector("offline")
    assert detector.name == "offline" and detector.strategy is Strategy.OFFLINE
    assert {"offline", "always"} <= set(BREAKDOWN_DETECTORS.names(plugins=False))
    with pytest.raises(UnknownName):
        make_detector("offlin")


async def test_every_assistant_turn_is_ranked_with_a_score_and_left_unscored() -> None:
    conv = record("Hi", "Hello! How can I help?", "When do you open?", "At nine.", "Thanks")
    detector = OfflineBreakdownDetector()
    result = await detector.detect(conv, INFO, [])
    assert [t.turn for t in result.turns] == [1, 3]
    for t in result.turns:
        assert t.breakdown is None and t.score is not None and 0 <= t.score <= 1
        assert t.detector == "offline" and t.strategy is Strategy.OFFLINE
        assert t.reasoning.startswith(RANKED) and "P(breakdown)" in t.reasoning
        assert t.error_types == []
    assert result.conversation == "c" and result.detector == "offline"
    assert detector.labels is False  # the classifier ranks; the typed detectors label
    quality = quality_of(detector)
    assert quality is not None and quality.labels and "typed detectors" in quality.summary
    shipped = shipped_classifier().quality
    assert shipped is not None and shipped.measurements[0] in quality.measurements
    labelled = await OfflineBreakdownDetector(threshold=0.5).detect(conv, INFO, [])
    assert all(t.breakdown is not None for t in labelled.turns)
    # labelled at a threshold the score is 1 − the classifier's P; the ranking weighs it
    # (no hint here), so both order the turns alike
    scores, ranks = [t.score or 0 for t in labelled.turns], [t.score or 0 for t in result.turns]
    assert (scores[0] < scores[1]) == (ranks[0] < ranks[1]) and scores != ranks


async def test_zero_chatbot_turns() -> None:
    for conv in (record(), record("Hello?", errors=[])):
        result = await OfflineBreakdownDetector().detect(conv, INFO, [])
        assert result.turns == []


async def test_crashed_turns_are_labelled_without_judging() -> None:
    errors = [
        ConversationError(code=ErrorCode.NO_RESPONSE, message="empty reply", turn=3),
        ConversationError(code=ErrorCode.TIMEOUT, message="timed out", turn=4),
        ConversationError(code=ErrorCode.GOAL_NOT_COMPLETED, message="goal", turn=1),
    ]
    conv = record("Hi", "Hello!", "Price?", "", "Hello??", errors=errors)
    result = await OfflineBreakdownDetector().detect(conv, INFO, [CHATBOT_CRASH])
    by_turn = {t.turn: t for t in result.turns}
    assert sorted(by_turn) == [1, 3, 5]  # 3: the empty reply; 5: the reply that never came
    for turn in (3, 5):
        crash = by_turn[turn]
        assert crash.breakdown is True and crash.score == 0.0
        assert crash.error_types == [CHATBOT_CRASH]
    assert "empty reply" in by_turn[3].reasoning and "(504): timed out" in by_turn[5].reasoning
    assert CHATBOT_CRASH not in by_turn[1].error_types


async def test_a_200_turn_conversation() -> None:
    texts = [
        f"Question {i}: what is {i} plus one?" if i % 2 == 0 else f"It is {i}." for i in range(200)
    ]
    result = await OfflineBreakdownDetector().detect(record(*texts), INFO, [])
    assert len(result.turns) == 100 and all(t.score is not None for t in result.turns)


async def test_typed_error_types_only_when_in_the_taxonomy() -> None:
    said = "Please choose a ticket type: one way, round trip or multi-city trip."
    conv = record("Hi", said, "Round trip", said, "I said round trip!", said)
    named = await OfflineBreakdownDetector().detect(conv, INFO, list(LEXICAL_ERROR_TYPES))
    assert [t.error_types for t in named.turns] == [[], ["redundancy"], ["redundancy"]]
    assert [t.breakdown for t in named.turns] == [None, True, True]
    assert "re-ask: asks again" in named.turns[1].reasoning
    unnamed = await OfflineBreakdownDetector().detect(conv, INFO, ["ignore question"])
    assert [t.breakdown for t in unnamed.turns] == [None, True, True]  # still breakdowns
    assert all(t.error_types == [] for t in unnamed.turns)
    # a typed finding labels whatever the classifier's threshold
    never = await OfflineBreakdownDetector(threshold=1.0).detect(conv, INFO, [])
    assert [t.breakdown for t in never.turns] == [False, True, True]


async def test_ignored_question_and_lack_of_brevity_are_hints() -> None:
    long = " ".join(["blah"] * 80)
    conv = record("What time is the last train to Boston?", "I like cats a lot.", "ok", long)
    ranked = await OfflineBreakdownDetector().detect(conv, INFO, list(LEXICAL_ERROR_TYPES))
    assert [t.breakdown for t in ranked.turns] == [None, None]  # hints never label
    assert "ignored question (hint" in ranked.turns[0].reasoning
    assert "long reply (hint" in ranked.turns[1].reasoning
    # labelled at a threshold (experiments), the hints give the breakdown its types
    result = await OfflineBreakdownDetector(threshold=0.0).detect(
        conv, INFO, list(LEXICAL_ERROR_TYPES)
    )
    assert result.turns[0].error_types == ["ignore question"]
    assert result.turns[1].error_types == ["lack of brevity"]


async def test_fallback_of_the_record_or_the_chatbot() -> None:
    fallback = "Sorry, I did not catch that. Could you say it differently?"
    conv = record("Blorp", fallback, "Zzz", fallback)
    plain = await OfflineBreakdownDetector().detect(conv, INFO, [])
    known = await OfflineBreakdownDetector().detect(conv, ChatbotInfo(fallback=fallback), [])
    assert [t.score for t in plain.turns] != [t.score for t in known.turns]


def test_a_custom_classifier_is_used() -> None:
    zero = BreakdownClassifier(
        feature_set_version=FEATURE_SET_VERSION,
        feature_names=list(FEATURE_NAMES),
        means=[0.0] * len(FEATURE_NAMES),
        scales=[1.0] * len(FEATURE_NAMES),
        coefficients=[0.0] * len(FEATURE_NAMES),
        intercept=0.0,
        threshold=0.6,
    )
    result = OfflineBreakdownDetector(zero).judge(record("Hi", "Hello"), INFO, [])
    ranked = 1.0 - CLASSIFIER_WEIGHT * 0.5  # the ranking: its P(breakdown), weighted
    assert result.turns[0].score == ranked and result.turns[0].breakdown is None
    labelling = zero.model_copy(update={"labels": True})
    result = OfflineBreakdownDetector(labelling).judge(record("Hi", "Hello"), CHAT, [])
    assert result.turns[0].score == 0.5 and result.turns[0].breakdown is False


def test_a_labelling_classifier_labels_chit_chat_only_and_says_its_precision() -> None:
    held_out = Measurement(
        data="DBDC3, each chatbot held out", labels="people", turns=10, precision=0.76,
        recall=0.97, accuracy=0.725,
    )  # fmt: skip
    flat = BreakdownClassifier(  # P(breakdown) 0.73 for every turn
        feature_set_version=FEATURE_SET_VERSION,
        feature_names=list(FEATURE_NAMES),
        means=[0.0] * len(FEATURE_NAMES),
        scales=[1.0] * len(FEATURE_NAMES),
        coefficients=[0.0] * len(FEATURE_NAMES),
        intercept=1.0,
        threshold=0.6,
        labels=True,
        quality=JudgeQuality(judge="offline", labels=True, measurements=[held_out]),
    )
    detector = OfflineBreakdownDetector(flat)
    chat = detector.judge(record("Hi", "Hello"), ChatbotInfo(type="conversational"), [])
    assert chat.turns[0].breakdown is True and chat.turns[0].score == pytest.approx(0.2689, 1e-3)
    assert "precision 0.76, recall 0.97, accuracy 0.72 on chatbots it never saw" in (
        chat.turns[0].reasoning
    )
    # a task bot's turns, or a chatbot of undeclared type, are ranked, never labelled by
    # the chit-chat classifier (read from the dialogue, some task bots look chit-chat)
    for info in (ChatbotInfo(type="task-oriented"), INFO):
        task = detector.judge(record("Hi", "Hello"), info, [])
        assert task.turns[0].breakdown is None and "unscored" in task.turns[0].reasoning
    quality = detector.quality
    assert quality is not None and "typed detectors" in quality.summary


async def test_sensei_wild_conversations(shared_data: Path) -> None:
    folder = shared_data / "sensei-wild" / "output"
    if not folder.is_dir():
        pytest.skip("sensei-wild conversations are absent")
    records = list(load_conversations(folder))
    assert len(records) > 50
    detector = OfflineBreakdownDetector()
    judged = languages = 0
    for conv in records:
        result = await detector.detect(conv, INFO, [*LEXICAL_ERROR_TYPES, CHATBOT_CRASH])
        chatbot_turns = {i for i, t in enumerate(conv.turns) if t.role == "assistant"}
        assert chatbot_turns <= {t.turn for t in result.turns}
        for t in result.turns:
            assert t.score is not None
            if t.breakdown:  # labelled only by a typed detector (a crash is one), with why
                assert t.score == 0.0 and ": " in t.reasoning
            else:  # ranked, not labelled
                assert t.breakdown is None
            # Ada answered an English-speaking Erasmus student in Spanish
            if "ada_erasmus" in conv.id and "language:" in t.reasoning:
                languages += 1
        judged += len(result.turns)
    assert judged > 150 and languages >= 2


async def test_senseis_failure_placeholder_is_a_crash_without_judgement() -> None:
    from sparring.connectors import ChatbotInfo
    from sparring.conversations import ConversationRecord, Turn
    from sparring.evaluate import CHATBOT_CRASH, OfflineBreakdownDetector

    record = ConversationRecord(
        id="ada/0",
        profile="ada",
        turns=[
            Turn(role="user", text="Do you lend laptops to students?"),
            Turn(role="assistant", text="Error: The server did not respond."),
        ],
    )
    judged = await OfflineBreakdownDetector().detect(record, ChatbotInfo(), [CHATBOT_CRASH])
    [turn] = judged.turns
    assert turn.breakdown is True and turn.error_types == [CHATBOT_CRASH] and turn.score == 0.0
