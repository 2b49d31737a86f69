"""The offline classifier beats the majority baseline by grouped cross-validation on the
DBDC3 English development data (retrained here: ~5 s), and the shipped model's stored
figures are the ones this code reproduces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.evaluate._calibration import (
    DBDC_LABELS,
    SILVER_LABELS,
    TARGET_ACCURACY,
    against_silver,
    decide_labels,
    held_out_corpora,
    offline_quality,
    silver_probabilities,
    silver_turns,
)
from sparring.evaluate._classifier import shipped_classifier
from sparring.evaluate._dbdc import load_dbdc
from sparring.evaluate._training import cross_validate, figures, fingerprint, training_set
from sparring.precision import Measurement


def test_grouped_cv_beats_always_breakdown(shared_data: Path) -> None:
    root = shared_data / "dbdc3" / "en-dev"
    if not root.is_dir():
        pytest.skip("DBDC3 en-dev is absent")
    dialogues = load_dbdc(root)
    data = training_set(dialogues)
    assert len(dialogues) == 415 and len(data.y) == 4150
    cv = cross_validate(data)
    base = cv.baseline
    assert base.tx.accuracy == pytest.approx(0.673, abs=5e-4)
    assert base.tx.f1 == pytest.approx(0.805, abs=5e-4)
    assert cv.metrics.tx.accuracy > base.tx.accuracy and cv.metrics.tx.f1 > base.tx.f1
    assert cv.metrics.x.f1 > base.x.f1 and cv.metrics.jsd < base.jsd
    # every test fold's dialogues were unseen in training: folds split by dialogue
    assert len(np.unique(data.groups)) == 415
    model = shipped_classifier()
    assert model.training is not None
    assert model.training.fingerprint == fingerprint(root)
    stored, reproduced = model.training.cv, figures(cv.metrics)
    assert stored == pytest.approx(reproduced, abs=2e-3)


def test_held_out_corpora_and_silver_figures_reproduce(shared_data: Path) -> None:
    """The figures shipped with the model (and shown beside its output) are measured: each
    DBDC3 corpus held out in turn, and ChatChecker's annotated task-bot dialogues."""
    root = shared_data / "dbdc3" / "en-dev"
    silver_root = shared_data / "chatchecker/chatbots/study_goal_assistant/runs"
    if not root.is_dir() or not silver_root.is_dir():
        pytest.skip("DBDC3 en-dev or ChatChecker's runs are absent")
    dialogues = load_dbdc(root)
    data = training_set(dialogues)
    held_out = held_out_corpora(data, [dialogues[int(g)].corpus for g in data.groups])
    model = shipped_classifier()
    assert model.quality is not None
    stored_held_out, stored_silver = model.quality.measurements
    figures_ = ("auc", "accuracy", "precision", "recall", "f1", "flagged")
    reproduced = {k: getattr(held_out, k) for k in figures_}
    assert reproduced == pytest.approx({k: getattr(stored_held_out, k) for k in figures_}, abs=2e-3)
    assert held_out.baseline == pytest.approx(stored_held_out.baseline, abs=1e-4)
    assert held_out.auc is not None and held_out.auc < 0.7  # barely better than chance
    assert (held_out.accuracy or 0) < TARGET_ACCURACY  # so it must not label turns
    silver = silver_turns(silver_root)
    assert len(silver) == 1938 and sum(t.breakdown for t in silver) == 175
    measured = against_silver(model, silver_probabilities(model, silver), silver)
    assert measured.auc == pytest.approx(stored_silver.auc, abs=2e-3)
    assert measured.flagged is not None and measured.flagged > 0.9  # why it must not label
    assert model.training is not None
    assert model.labels is decide_labels(held_out, model.training.cv) is False


def test_labels_only_when_both_cross_validations_meet_the_targets() -> None:
    def chat(accuracy: float, f1: float) -> Measurement:
        return Measurement(data="d", labels=DBDC_LABELS, turns=10, accuracy=accuracy, f1=f1)

    task_chance = Measurement(data="t", labels=SILVER_LABELS, turns=10, auc=0.51)
    seen = {"accuracy": 0.74, "f1": 0.83}
    assert decide_labels(chat(0.75, 0.85), seen) is True
    assert decide_labels(chat(0.75, 0.85), {"accuracy": 0.71, "f1": 0.83}) is False
    assert decide_labels(chat(0.75, 0.85), {"accuracy": 0.74, "f1": 0.80}) is False
    assert decide_labels(chat(0.75, 0.85), {}) is False  # not cross-validated by dialogue
    assert decide_labels(chat(0.71, 0.85), seen) is False  # unseen chatbots fall short
    assert decide_labels(chat(0.75, 0.80), seen) is False
    quality = offline_quality([chat(0.7, 0.8), task_chance], labels=False)
    assert quality.labels is False and "does not label" in quality.summary
    assert "task bots vs silver labels: AUC 0.51" in quality.summary
