"""What the offline breakdown classifier is worth on data it was not trained on.

Two measurements, written into the shipped model file by ``scripts/train_breakdown.py``
and shown beside the offline detector's output (``JudgeQuality``):

- **Chat-oriented bots, held out by corpus** (``held_out_corpora``): DBDC3's English
  development data has four corpora (one chatbot each: CIC, IRIS, TKTK, YI). Each corpus
  in turn is the test set; the model is fitted on the other three, its threshold chosen
  on them alone (``choose_threshold`` on grouped out-of-fold probabilities). Pooled over
  the four test corpora: the AUC of P(breakdown) as a ranking, and accuracy, precision,
  recall and F1 (T+X) of its labels beside "always breakdown". This is the question a
  user's bot asks — a chatbot the model never saw — and it is harder than the grouped
  cross-validation by dialogue (where the test dialogues share chatbots with training).
- **Task-oriented bots, against a model's silver labels** (``against_silver``): the
  ChatChecker study-goal dialogues with ChatChecker's GPT-4o annotation of each chatbot
  turn (Mayr et al. 2025; a model's labels, not people's). The model never sees them:
  AUC, the share of turns it would flag at its threshold and its agreement per turn,
  beside "never breakdown".

``decide_labels`` then says whether the detector may label the turns of chatbots declared
``conversational`` (chit-chat): only when it reaches the issue's targets (accuracy ≥
``TARGET_ACCURACY`` and F1 ≥ ``TARGET_F1``, T+X) both cross-validated by dialogue
(``_training``) *and* on held-out corpora. Task-bot turns are ranked, never labelled by
it: the silver figures are recorded beside, so a user sees what its ranking is worth
there. Otherwise it ranks turns and does not label them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sparring.connectors import ChatbotInfo
from sparring.conversations import (
    CHATCHECKER,
    ConversationRecord,
    chatchecker_dialogue_files,
    import_chatchecker,
)
from sparring.evaluate._classifier import BreakdownClassifier
from sparring.evaluate._dbdc import DbdcDialogue
from sparring.evaluate._dbdc_metrics import auc, binary_metrics
from sparring.evaluate._embedded import Encoder
from sparring.evaluate._offline import record_features
from sparring.evaluate._training import (
    TrainingSet,
    choose_threshold,
    fit,
    out_of_fold,
    training_set,
)
from sparring.precision import JudgeQuality, Measurement
from sparring.types import Strategy

TARGET_ACCURACY = 0.72
TARGET_F1 = 0.81
"""Held-out DBDC figures (T+X) the detector must reach to label turns (issue 21)."""
DBDC_LABELS = "majority of 30 annotators, T+X"
SILVER_LABELS = "ChatChecker's GPT-4o annotations (silver: a model's, not people's)"


@dataclass(frozen=True)
class SilverTurn:
    """One task-bot chatbot turn with a silver label: its ``record``, ``turn`` index and
    ``breakdown`` label."""

    record: ConversationRecord
    turn: int
    breakdown: bool


def _figures(y: NDArray[np.bool_], decided: NDArray[np.bool_]) -> dict[str, float]:
    """``binary_metrics`` of the labels, rounded, and the share of turns flagged."""
    m = binary_metrics([bool(v) for v in y], [bool(v) for v in decided])
    flagged = float(np.mean(decided)) if len(y) else 0.0
    values = {"accuracy": m.accuracy, "precision": m.precision, "recall": m.recall, "f1": m.f1}
    return {k: round(v, 4) for k, v in {**values, "flagged": flagged}.items()}


def held_out_corpora(data: TrainingSet, corpora: Sequence[str]) -> Measurement:
    """Leave-one-corpus-out figures of the classifier (see the module docstring);
    ``corpora`` gives each row's corpus. Raises ``ValueError`` with fewer than two."""
    names = np.asarray(corpora)
    if len(set(corpora)) < 2:
        raise ValueError("holding out by corpus needs at least two corpora")
    p = np.zeros(len(data.y))
    decided = np.zeros(len(data.y), dtype=bool)
    for corpus in sorted(set(corpora)):
        test, train = np.flatnonzero(names == corpus), np.flatnonzero(names != corpus)
        threshold = choose_threshold(out_of_fold(data, train), data.y[train])
        p[test] = fit(data.x[train], data.y[train], threshold).probabilities(data.x[test])
        decided[test] = p[test] >= threshold
    mine = _figures(data.y, decided)
    always = _figures(data.y, np.ones_like(data.y))
    return Measurement(
        data=(
            f"DBDC3 en-dev, each of its {len(set(corpora))} corpora (one chatbot each) held "
            "out in turn, trained on the others"
        ),
        labels=DBDC_LABELS,
        turns=len(data.y),
        auc=auc(data.y, p),
        baseline_name="always breakdown",
        baseline={k: always[k] for k in ("accuracy", "precision", "recall", "f1")},
        **mine,
    )


def against_silver(
    model: BreakdownClassifier, probabilities: NDArray[np.float64], turns: Sequence[SilverTurn]
) -> Measurement:
    """The figures of ``model`` (its ``probabilities`` of ``turns``, in order) against the
    silver labels: AUC, and its labels at its own threshold beside "never breakdown"."""
    y = np.asarray([t.breakdown for t in turns], dtype=bool)
    mine = _figures(y, probabilities >= model.threshold)
    never = _figures(y, np.zeros_like(y))
    return Measurement(
        data=(
            f"ChatChecker's study-goal assistant (task-oriented): "
            f"{len({t.record.source for t in turns})} dialogues, not used in training"
        ),
        labels=SILVER_LABELS,
        turns=len(turns),
        auc=auc(y, probabilities),
        baseline_name="never breakdown",
        baseline={"accuracy": never["accuracy"], "flagged": 0.0},
        **mine,
    )


def decide_labels(held_out: Measurement, by_dialogue: dict[str, float]) -> bool:
    """Whether the figures allow labelling chit-chat turns (see the module docstring):
    ``held_out`` the held-out corpora's, ``by_dialogue`` the grouped cross-validation's
    (``TrainingInfo.cv``: ``accuracy``, ``f1``)."""
    unseen = (held_out.accuracy or 0.0) >= TARGET_ACCURACY and (held_out.f1 or 0.0) >= TARGET_F1
    seen = by_dialogue.get("accuracy", 0.0) >= TARGET_ACCURACY
    return unseen and seen and by_dialogue.get("f1", 0.0) >= TARGET_F1


def offline_quality(measurements: list[Measurement], labels: bool) -> JudgeQuality:
    """The offline detector's claim, with a one-line summary of ``measurements``."""
    parts = []
    for m in measurements:
        kind = "chat bots held out" if m.labels == DBDC_LABELS else "task bots vs silver labels"
        figures = f"AUC {m.auc:.2f}" if m.auc is not None else ""
        if m.accuracy is not None and m.labels == DBDC_LABELS:
            base = m.baseline
            figures += (
                f", accuracy {m.accuracy:.2f} / F1 {m.f1:.2f} at its best threshold "
                f"(always breakdown: {base.get('accuracy', 0):.2f} / {base.get('f1', 0):.2f})"
            )
        parts.append(f"{kind}: {figures}")
    verdict = (
        "labels the turns of chatbots declared conversational (other turns it ranks, unscored)"
        if labels
        else "ranks turns and does not label them (its turns are unscored; only chatbot "
        "crashes are labelled)"
    )
    return JudgeQuality(
        judge="offline",
        strategy=Strategy.OFFLINE,
        labels=labels,
        summary=f"offline detector {verdict}; measured " + "; ".join(parts),
        measurements=measurements,
    )


def silver_turns(root: Path) -> list[SilverTurn]:
    """The chatbot turns with a ChatChecker breakdown annotation (``decision`` breakdown
    or no_breakdown) in the dialogue files under ``root``. Raises ``ConfigError`` (file,
    line, key) for a file that is not a ChatChecker dialogue."""
    found: list[SilverTurn] = []
    for file in chatchecker_dialogue_files(root):
        record = import_chatchecker(file)
        annotations = record.extra.get(CHATCHECKER, {}).get("breakdowns", [])
        for annotation in annotations:
            decision = annotation.get("decision")
            turn = annotation.get("turn")
            if (
                decision in ("breakdown", "no_breakdown")
                and isinstance(turn, int)
                and 0 <= turn < len(record.turns)
                and record.turns[turn].role == "assistant"
            ):
                found.append(SilverTurn(record, turn, decision == "breakdown"))
    return found


def silver_probabilities(
    model: BreakdownClassifier, turns: Sequence[SilverTurn], encode: Encoder | None = None
) -> NDArray[np.float64]:
    """P(breakdown) of each silver turn by ``model`` (features as the detector computes
    them, the meaning relations by ``encode`` for a model that reads them; the
    task-oriented chatbot's fallback is unknown)."""
    by_record: dict[int, dict[int, float]] = {}  # keyed by the record object: ids repeat
    for t in turns:
        if id(t.record) not in by_record:
            features = record_features(t.record, ChatbotInfo(type="task-oriented"), encode)
            p = model.probabilities(features.matrix)
            by_record[id(t.record)] = {
                turn: float(v) for turn, v in zip(features.turns, p, strict=True)
            }
    return np.asarray([by_record[id(t.record)][t.turn] for t in turns], dtype=np.float64)


def calibrate(
    model: BreakdownClassifier,
    dialogues: Sequence[DbdcDialogue],
    silver: Sequence[SilverTurn],
    encode: Encoder | None = None,
) -> None:
    """Measure ``model`` (see the module docstring) and record on it whether it may label
    chit-chat turns (``labels``) and its ``quality``; ``silver`` may be empty (not
    measured); ``encode`` embeds texts for a model on the meaning relations."""
    data = training_set(list(dialogues), encode)
    corpora = [dialogues[int(g)].corpus for g in data.groups]
    measurements = [held_out_corpora(data, corpora)]
    if silver:
        p = silver_probabilities(model, silver, encode)
        measurements.append(against_silver(model, p, silver))
    model.labels = decide_labels(measurements[0], model.training.cv if model.training else {})
    model.quality = offline_quality(measurements, model.labels)
