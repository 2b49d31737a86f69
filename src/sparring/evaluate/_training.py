"""Training and grouped cross-validation of the offline breakdown classifier.

Used by ``scripts/train_breakdown.py`` (which writes the shipped model) and by the tests
(which re-run the cross-validation). Data: DBDC-format dialogues (``_dbdc``); target: the
``T+X`` breakdown of each annotated system turn; features: ``_features`` through
``_offline.record_features``, exactly as the detector computes them.

Protocol: ``GroupKFold`` by dialogue (``FOLDS`` folds; no dialogue is ever in the
training and the test part of one fold). Inside each outer fold the decision threshold is
chosen by an inner grouped cross-validation on the training part only (``choose_threshold``:
the largest accuracy + F1 among the thresholds that beat "always breakdown" on both), so
the reported figures never see a test dialogue. The shipped threshold is chosen the same
way on the whole set. The learner is scikit-learn's ``LogisticRegression`` (lbfgs, L2,
``C``) on standardised features: deterministic, no seed needed (``SEED`` is recorded).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sklearn
from numpy.typing import NDArray
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from sparring.connectors import ChatbotInfo
from sparring.evaluate._classifier import BreakdownClassifier, TrainingInfo
from sparring.evaluate._dbdc import DbdcDialogue, dialogue_files
from sparring.evaluate._dbdc_metrics import DbdcMetrics, TurnOutcome, dbdc_metrics
from sparring.evaluate._embedded import (
    EMBEDDING_FEATURE_NAMES,
    EMBEDDING_FEATURE_SET_VERSION,
    Encoder,
)
from sparring.evaluate._features import FEATURE_NAMES, FEATURE_SET_VERSION
from sparring.evaluate._offline import record_features

FOLDS = 5
C = 1.0
SEED = 0
THRESHOLDS = np.round(np.linspace(0.05, 0.95, 181), 3)
"""Candidate decision thresholds on P(breakdown)."""


@dataclass(frozen=True)
class TrainingSet:
    """Annotated system turns: ``x`` shape ``(n, len(FEATURE_NAMES))``, ``y`` the ``T+X``
    breakdowns, ``groups`` the dialogue of each turn, ``gold`` the labelled turns
    (``TurnOutcome`` with a placeholder prediction) in the same order."""

    x: NDArray[np.float64]
    y: NDArray[np.bool_]
    groups: NDArray[np.int64]
    gold: list[TurnOutcome]


@dataclass(frozen=True)
class CrossValidation:
    """Out-of-fold ``probabilities`` and ``decisions`` and their figures, beside the
    figures of "always breakdown" (``baseline``)."""

    probabilities: NDArray[np.float64]
    decisions: NDArray[np.bool_]
    metrics: DbdcMetrics
    baseline: DbdcMetrics


def training_set(dialogues: list[DbdcDialogue], encode: Encoder | None = None) -> TrainingSet:
    """Features and targets of every annotated system turn; with ``encode``, the meaning
    relations after the lexical features (``record_features``)."""
    rows: list[NDArray[np.float64]] = []
    y: list[bool] = []
    groups: list[int] = []
    gold: list[TurnOutcome] = []
    info = ChatbotInfo()
    for g, dialogue in enumerate(dialogues):
        features = record_features(dialogue.record(), info, encode)
        for row, i in zip(features.matrix, features.turns, strict=True):
            turn = dialogue.turns[i]
            if turn.label is None or turn.distribution is None:
                continue
            rows.append(row)
            y.append(turn.label != "O")
            groups.append(g)
            gold.append(
                TurnOutcome(
                    dialogue=dialogue.id,
                    turn=i,
                    gold=turn.label,
                    distribution=turn.distribution,
                    breakdown=False,
                    predicted=(1.0, 0.0, 0.0),
                )
            )
    width = len(FEATURE_NAMES) + (len(EMBEDDING_FEATURE_NAMES) if encode else 0)
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), width)
    return TrainingSet(x, np.asarray(y, dtype=bool), np.asarray(groups, dtype=np.int64), gold)


def fit(x: NDArray[np.float64], y: NDArray[np.bool_], threshold: float) -> BreakdownClassifier:
    """A standardised logistic regression fitted on ``x``, ``y``; ``x`` holds the lexical
    features, or those and the meaning relations (``EMBEDDING_FEATURE_NAMES``)."""
    meaning = x.shape[1] > len(FEATURE_NAMES)
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales = np.where(scales == 0, 1.0, scales)
    model = LogisticRegression(C=C, max_iter=2000).fit((x - means) / scales, y)
    return BreakdownClassifier(
        feature_set_version=FEATURE_SET_VERSION,
        embedding_feature_set_version=EMBEDDING_FEATURE_SET_VERSION if meaning else None,
        feature_names=list(FEATURE_NAMES + (EMBEDDING_FEATURE_NAMES if meaning else ())),
        means=[float(v) for v in means],
        scales=[float(v) for v in scales],
        coefficients=[float(v) for v in model.coef_[0]],
        intercept=float(model.intercept_[0]),
        threshold=threshold,
    )


def _scores(y: NDArray[np.bool_], decided: NDArray[np.bool_]) -> tuple[float, float]:
    tp = float(np.sum(decided & y))
    accuracy = float(np.mean(decided == y))
    precision = tp / max(float(decided.sum()), 1.0)
    recall = tp / max(float(y.sum()), 1.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return accuracy, f1


def choose_threshold(probabilities: NDArray[np.float64], y: NDArray[np.bool_]) -> float:
    """The threshold of ``THRESHOLDS`` with the largest accuracy + F1 among those beating
    "always breakdown" on both (any threshold when none does)."""
    base_accuracy, base_f1 = _scores(y, np.ones_like(y))
    best: tuple[bool, float, float] = (False, -1.0, 0.5)
    for threshold in THRESHOLDS:
        accuracy, f1 = _scores(y, probabilities >= threshold)
        candidate = (accuracy > base_accuracy and f1 > base_f1, accuracy + f1, float(threshold))
        if candidate[:2] > best[:2]:
            best = candidate
    return best[2]


def out_of_fold(data: TrainingSet, rows: NDArray[np.int64]) -> NDArray[np.float64]:
    """Grouped out-of-fold P(breakdown) of ``rows`` (models fitted on the other folds)."""
    probabilities = np.zeros(len(rows))
    splits = GroupKFold(n_splits=FOLDS).split(rows, groups=data.groups[rows])
    for train, test in splits:
        model = fit(data.x[rows[train]], data.y[rows[train]], 0.5)
        probabilities[test] = model.probabilities(data.x[rows[test]])
    return probabilities


def cross_validate(data: TrainingSet) -> CrossValidation:
    """Nested grouped cross-validation (see the module docstring)."""
    probabilities = np.zeros(len(data.y))
    decisions = np.zeros(len(data.y), dtype=bool)
    everything = np.arange(len(data.y))
    for train, test in GroupKFold(n_splits=FOLDS).split(everything, groups=data.groups):
        threshold = choose_threshold(out_of_fold(data, train), data.y[train])
        model = fit(data.x[train], data.y[train], threshold)
        probabilities[test] = model.probabilities(data.x[test])
        decisions[test] = probabilities[test] >= threshold
    predicted = [
        o.model_copy(update={"breakdown": bool(d), "predicted": (1 - float(p), 0.0, float(p))})
        for o, p, d in zip(data.gold, probabilities, decisions, strict=True)
    ]
    always = [
        o.model_copy(update={"breakdown": True, "predicted": (0.0, 0.0, 1.0)}) for o in data.gold
    ]
    return CrossValidation(
        probabilities, decisions, dbdc_metrics("offline", predicted), dbdc_metrics("always", always)
    )


def fingerprint(root: Path) -> str:
    """SHA-256 over the DBDC files under ``root``: each file's relative path and bytes."""
    digest = hashlib.sha256()
    for file in dialogue_files(root):
        digest.update(file.relative_to(root).as_posix().encode() if root.is_dir() else b"")
        digest.update(file.read_bytes())
    return digest.hexdigest()


def figures(metrics: DbdcMetrics) -> dict[str, float]:
    """The figures stored in the model file, rounded to 4 places."""
    values = {
        "accuracy": metrics.tx.accuracy,
        "precision": metrics.tx.precision,
        "recall": metrics.tx.recall,
        "f1": metrics.tx.f1,
        "accuracy_x": metrics.x.accuracy,
        "precision_x": metrics.x.precision,
        "recall_x": metrics.x.recall,
        "f1_x": metrics.x.f1,
        "jsd": metrics.jsd,
        "mse": metrics.mse,
        "dialogue_f1": metrics.dialogue_f1,
        "dialogue_accuracy": metrics.dialogue_accuracy,
    }
    return {k: round(v, 4) for k, v in values.items()}


def train(
    dialogues: list[DbdcDialogue], root: Path, data_name: str, encode: Encoder | None = None
) -> tuple[BreakdownClassifier, CrossValidation]:
    """Cross-validate, then fit on every dialogue with the threshold chosen by grouped
    cross-validation over all of them; the model carries the figures. With ``encode``
    (sentence embeddings) the meaning relations are features too."""
    data = training_set(dialogues, encode)
    cv = cross_validate(data)
    threshold = choose_threshold(out_of_fold(data, np.arange(len(data.y))), data.y)
    model = fit(data.x, data.y, threshold)
    model.training = TrainingInfo(
        data=data_name,
        fingerprint=fingerprint(root),
        dialogues=len(dialogues),
        turns=len(data.y),
        learner=f"sklearn LogisticRegression(C={C}, lbfgs, L2) on standardised features"
        + (" (lexical and meaning relations, all-MiniLM-L6-v2)" if encode else " (lexical)"),
        seed=SEED,
        sklearn=sklearn.__version__,
        protocol=(
            f"GroupKFold({FOLDS}) by dialogue; threshold chosen by an inner GroupKFold({FOLDS}) "
            "on each training part (max accuracy + F1 beating 'always breakdown')"
        ),
        cv=figures(cv.metrics),
        baseline=figures(cv.baseline),
    )
    return model, cv
