"""repeated_answers: SENSEI's grouping and comparators, and the vectorised TF-IDF."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from difflib import SequenceMatcher

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from sparring.check._context import FunctionContext
from sparring.check.functions import repeated_answers
from sparring.conversations import ConversationRecord
from sparring.similarity import jaccard_similarities, tfidf_pair_similarities

Make = Callable[..., ConversationRecord]
Ctx = Callable[..., FunctionContext]


def sensei_tfidf(a: str, b: str) -> float:
    """SENSEI's comparator: a default TfidfVectorizer fitted on the two texts."""
    matrix = TfidfVectorizer().fit_transform([a, b])
    return float(cosine_similarity(matrix[0:1], matrix[1:2])[0][0])


def sensei_repeated(
    phrases: list[str], compare: Callable[[str, str], float], threshold: float
) -> dict[str, list[str]]:
    """SENSEI-check's _repeated_answers loop, as published, for the oracle."""
    groups: dict[str, list[str]] = {}
    for phrase in phrases:
        similar = next((key for key in groups if compare(phrase, key) >= threshold), None)
        if similar is not None:
            groups[similar].append(phrase)
        else:
            groups[phrase] = []
    return {k: v for k, v in groups.items() if v}


WORDS = [
    "the",
    "a",
    "pizza",
    "Pizza",
    "order",
    "large",
    "small",
    "drink",
    "coke",
    "water",
    "price",
    "is",
    "12.50",
    "€",
    "café",
    "I",
    "de",
    "la",
]


def test_tfidf_matrix_equals_pairwise_sklearn_fits() -> None:
    rng = random.Random(7)
    for _ in range(20):
        phrases = [" ".join(rng.choices(WORDS, k=rng.randint(1, 10))) for _ in range(5)]
        matrix = tfidf_pair_similarities(phrases)
        for i, j in itertools.product(range(5), repeat=2):
            try:
                expected = sensei_tfidf(phrases[i], phrases[j])
            except ValueError:  # empty vocabulary in scikit-learn
                assert np.isnan(matrix[i, j])
            else:
                assert matrix[i, j] == pytest.approx(expected, abs=1e-12)


def test_jaccard_matrix() -> None:
    matrix = jaccard_similarities(["A b c", "a B d", ""])
    assert matrix[0, 1] == pytest.approx(2 / 4)
    assert matrix[0, 2] == 0.0
    assert np.isnan(matrix[2, 2])


@pytest.mark.parametrize("method", ["exact", "tf-idf", "jaccard", "sequence-matcher"])
@pytest.mark.parametrize("threshold", [0.3, 0.75, 1.0])
def test_grouping_matches_sensei_on_random_conversations(
    record: Make, context: Ctx, method: str, threshold: float
) -> None:
    compare = {
        "exact": lambda a, b: float(a == b),
        "tf-idf": sensei_tfidf,
        "jaccard": lambda a, b: (
            len(set(a.lower().split()) & set(b.lower().split()))
            / len(set(a.lower().split()) | set(b.lower().split()))
        ),
        "sequence-matcher": lambda a, b: SequenceMatcher(None, a, b).ratio(),
    }[method]
    rng = random.Random(f"{method}-{threshold}")  # a str seed: the same in every process
    pool = [
        "Which size do you want?",
        "Which size would you like?",
        "Sorry, I did not get that.",
        "Sorry, I didn't get that",
        "Your order is ready.",
        "Which pizza do you want?",
    ]
    for _ in range(15):
        phrases = rng.choices(pool, k=rng.randint(2, 7))
        turns = [t for p in phrases for t in (("user", "hmm"), ("assistant", p))]
        ours = repeated_answers(context(record(*turns)), method=method, threshold=threshold)
        assert ours == sensei_repeated(phrases, compare, threshold)


def test_shape_and_evidence(record: Make, context: Ctx) -> None:
    conv = record(
        ("assistant", "Welcome! What pizza?"),
        ("user", "margarita"),
        ("assistant", "Sorry, I did not understand."),
        ("user", "MARGARITA"),
        ("assistant", "Sorry, I did not understand."),
        ("assistant", "Sorry, I did not understand."),
    )
    ctx = context(conv)
    result = repeated_answers(ctx, method="exact", threshold=1)
    assert result == {"Sorry, I did not understand.": ["Sorry, I did not understand."] * 2}
    assert ctx.evidence[-1].turns == [2, 4, 5]
    assert ctx.evidence[-1].strategy == "offline"


def test_default_exact_threshold_counts_equal_strings(record: Make, context: Ctx) -> None:
    conv = record(("assistant", "Hi"), ("assistant", "Hi"))
    assert repeated_answers(context(conv)) == {"Hi": ["Hi"]}


def test_unknown_method_means_exact(record: Make, context: Ctx) -> None:
    conv = record(("assistant", "Hello there"), ("assistant", "hello there"))
    assert repeated_answers(context(conv), method="cosine", threshold=0.1) == {}
    assert repeated_answers(context(conv), method="TF-IDF", threshold=0.9) == {
        "Hello there": ["hello there"]
    }


def test_tfidf_fails_like_sensei_on_two_wordless_utterances(record: Make, context: Ctx) -> None:
    conv = record(("assistant", "?"), ("assistant", "Right, ok"), ("assistant", "!"))
    with pytest.raises(ValueError, match="without words"):
        repeated_answers(context(conv), method="tf-idf", threshold=0.75)
    # one wordless utterance is fine (similarity 0 with the others)
    fine = record(("assistant", "?"), ("assistant", "Right, ok"), ("assistant", "Right, ok"))
    assert repeated_answers(context(fine), method="tf-idf", threshold=0.75) == {
        "Right, ok": ["Right, ok"]
    }


def test_similarity_matrix_is_reused_within_one_evaluation(record: Make, context: Ctx) -> None:
    conv = record(("assistant", "Which size?"), ("assistant", "Which size, please?"))
    ctx = context(conv)
    first = repeated_answers(ctx, method="tf-idf", threshold=0.5)
    (key,) = [k for k in ctx.cache if k[0] == "repeated_answers"]
    ctx.cache[key][:] = 0.0  # a reused matrix now says nothing is similar
    assert first and repeated_answers(ctx, method="tf-idf", threshold=0.5) == {}
    assert repeated_answers(context(conv), method="tf-idf", threshold=0.5) == first


def test_new_prompts_only_drops_the_same_answer_to_the_same_input(
    record: Make, context: Ctx
) -> None:
    """ALICE answers each "No, thanks." with "It can't hurt to ask.": the same input, the
    same answer, no repetition; the same answer to a new input still is one."""
    conv = record(
        ("user", "Search for information"),
        ("assistant", "It can't hurt to ask."),
        ("user", "No, thanks."),
        ("assistant", "It can't hurt to ask."),
        ("user", "no,  THANKS."),
        ("assistant", "It can't hurt to ask."),
    )
    assert repeated_answers(context(conv)) == {
        "It can't hurt to ask.": ["It can't hurt to ask."] * 2
    }
    kept = repeated_answers(context(conv), new_prompts_only=True)
    assert kept == {"It can't hurt to ask.": ["It can't hurt to ask."]}  # turn 3 is new
    same = record(("user", "No"), ("assistant", "Ok."), ("user", "No"), ("assistant", "Ok."))
    assert repeated_answers(context(same), new_prompts_only=True) == {}
