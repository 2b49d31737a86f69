"""The offline breakdown classifier as shipped: a logistic regression kept as plain JSON.

``scripts/train_breakdown.py`` fits it with scikit-learn on the DBDC3 English development
data and writes ``data/breakdown-offline-v1.json``: the feature names and the feature-set
version they were computed with, the standardisation (means and scales), the
coefficients and intercept, the decision threshold, whether it may label turns at all,
a fingerprint of the training data, the grouped cross-validation figures and the figures
measured on held-out corpora and task-bot dialogues (``quality``). Inference is numpy
alone, so the file does not depend on the scikit-learn version (no pickle).

The file is read on first use (``shipped_classifier``) and checked against the code's
``FEATURE_SET_VERSION`` and ``FEATURE_NAMES``: a difference raises
``ClassifierMismatch`` rather than scoring with misaligned weights.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, ValidationError

from sparring.errors import SparringError
from sparring.evaluate._embedded import EMBEDDING_FEATURE_NAMES, EMBEDDING_FEATURE_SET_VERSION
from sparring.evaluate._features import FEATURE_NAMES, FEATURE_SET_VERSION
from sparring.precision import JudgeQuality

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MODEL_FILE = "breakdown-offline-v1.json"
"""The shipped model, in ``sparring/evaluate/data/``."""
MEANING_MODEL_FILE = "breakdown-offline-meaning-v1.json"
"""The shipped model on the lexical features and the meaning relations (``_embedded``),
used when the ``embeddings`` extra is installed (``default_classifier``)."""
MODEL_FORMAT = "sparring-logistic-v1"


class ClassifierMismatch(SparringError):
    """The model file cannot serve this code: unreadable, or trained on another feature
    set (version or names differ). Retrain with ``scripts/train_breakdown.py``."""


class TrainingInfo(BaseModel):
    """Where the model came from: ``data`` (the corpus), ``fingerprint`` (SHA-256 over the
    training files' names and bytes, sorted), counts, the ``learner`` and its settings,
    the ``seed``, the scikit-learn version and the cross-validation protocol and figures
    (``cv``: metric name → value; ``baseline``: the same for "always breakdown")."""

    data: str
    fingerprint: str
    dialogues: int
    turns: int
    learner: str
    seed: int
    sklearn: str
    protocol: str
    cv: dict[str, float] = Field(default_factory=dict)
    baseline: dict[str, float] = Field(default_factory=dict)


class BreakdownClassifier(BaseModel):
    """A standardised logistic regression: P(breakdown | x) =
    σ(((x − means) / scales) · coefficients + intercept); when ``labels``, a turn is a
    breakdown when that probability reaches ``threshold``. Vectors are aligned with
    ``feature_names``."""

    format: str = MODEL_FORMAT
    feature_set_version: int
    embedding_feature_set_version: int | None = None
    """``_embedded.EMBEDDING_FEATURE_SET_VERSION`` when the meaning relations follow the
    lexical features, else ``None``."""
    feature_names: list[str]
    means: list[float]
    scales: list[float]
    coefficients: list[float]
    intercept: float
    threshold: float = Field(ge=0.0, le=1.0)
    labels: bool = False
    """Whether the detector labels the turns of a chatbot declared ``conversational``
    (chatbot.yaml's ``type``) at ``threshold``; false: it ranks them by P(breakdown) and leaves
    them unscored (decided by ``_calibration.decide_labels``). Task-bot turns are ranked
    either way."""
    training: TrainingInfo | None = None
    quality: JudgeQuality | None = None
    """The figures measured on data the model was not trained on (``_calibration``)."""

    def check(self) -> None:
        """Raise ``ClassifierMismatch`` unless the model fits the code's feature set."""
        if self.format != MODEL_FORMAT:
            raise ClassifierMismatch(f"model format {self.format!r}, expected {MODEL_FORMAT!r}")
        if self.feature_set_version != FEATURE_SET_VERSION:
            raise ClassifierMismatch(
                f"the model was trained on feature set {self.feature_set_version}, this "
                f"sparring computes feature set {FEATURE_SET_VERSION}; retrain it with "
                "scripts/train_breakdown.py"
            )
        if self.uses_embeddings and self.embedding_feature_set_version != (
            EMBEDDING_FEATURE_SET_VERSION
        ):
            raise ClassifierMismatch(
                f"the model was trained on meaning features {self.embedding_feature_set_version}"
                f", this sparring computes {EMBEDDING_FEATURE_SET_VERSION}; retrain it with "
                "scripts/train_breakdown.py --embeddings"
            )
        expected = FEATURE_NAMES + (EMBEDDING_FEATURE_NAMES if self.uses_embeddings else ())
        if tuple(self.feature_names) != expected:
            raise ClassifierMismatch("the model's feature names differ from FEATURE_NAMES")
        n = len(self.feature_names)
        if not len(self.means) == len(self.scales) == len(self.coefficients) == n:
            raise ClassifierMismatch("the model's vectors do not match its feature names")

    @property
    def uses_embeddings(self) -> bool:
        """Whether the model reads the meaning relations (the ``embeddings`` extra)."""
        return self.embedding_feature_set_version is not None

    def probabilities(self, matrix: NDArray[np.float64]) -> NDArray[np.float64]:
        """P(breakdown) of each row of ``matrix`` (shape ``(n, len(feature_names))``)."""
        import numpy as np

        if matrix.shape[0] == 0:
            return np.zeros(0)
        scales = np.asarray(self.scales)
        z = (matrix - np.asarray(self.means)) / np.where(scales == 0, 1.0, scales)
        logits = z @ np.asarray(self.coefficients) + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float64)


def load_classifier(path: Path) -> BreakdownClassifier:
    """The classifier in the JSON file ``path``, checked (``ClassifierMismatch``)."""
    try:
        model = BreakdownClassifier.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as exc:
        raise ClassifierMismatch(f"cannot read the breakdown classifier {path}: {exc}") from exc
    model.check()
    return model


@functools.cache
def shipped_classifier(name: str = MODEL_FILE) -> BreakdownClassifier:
    """The classifier shipped in the package as ``name`` (default: the lexical one), read
    once on first use."""
    resource = importlib.resources.files("sparring.evaluate") / "data" / name
    with importlib.resources.as_file(resource) as path:
        return load_classifier(path)


def default_classifier() -> BreakdownClassifier:
    """The shipped classifier on the meaning relations when the ``embeddings`` extra is
    installed (``MEANING_MODEL_FILE``), else the lexical one (``MODEL_FILE``)."""
    from sparring.similarity import embeddings_installed

    return shipped_classifier(MEANING_MODEL_FILE if embeddings_installed() else MODEL_FILE)
