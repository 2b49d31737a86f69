"""The offline classifier beats the majority baseline by grouped cross-validation on the
DBDC3 English development data (retrained here: ~5 s), and the shipped model's stored
figures are the ones this code reproduces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.evaluate._classifier import shipped_classifier
from sparring.evaluate._dbdc import load_dbdc
from sparring.evaluate._training import cross_validate, figures, fingerprint, training_set


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
