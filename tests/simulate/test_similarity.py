"""Per-turn text similarity (``sparring.similarity``), the fallback recogniser
(``sparring.fallback``) on simulate's cases, and repeated-reply detection."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sparring.conversations import import_sensei
from sparring.fallback import FallbackConfig, is_fallback
from sparring.similarity import indel_similarity, normalize_text
from sparring.simulate._similarity import RepetitionTracker

FALLBACK = "I'm sorry, I did not get what you said. I can help you ordering pizzas, and drinks."


def test_normalize_folds_case_punctuation_and_spaces() -> None:
    assert normalize_text("  Hello,   WORLD!!\n") == "hello world"
    assert normalize_text("Ｆｕｌｌ-width") == "full width"


def test_similarity_identical_and_disjoint() -> None:
    assert indel_similarity("The price is 11.5$", "the PRICE is 11.5$.") == 1.0
    assert indel_similarity("abc", "xyz") == 0.0
    mid = indel_similarity("Your order ID is 44de6a", "Your order ID is 1350a9")
    assert 0.5 < mid < 1.0


def test_similarity_is_symmetric_and_bounded() -> None:
    pairs = [("small pizza", "large pizza"), ("hi", "hello there"), ("a", "")]
    for a, b in pairs:
        assert indel_similarity(a, b) == indel_similarity(b, a)
        assert 0.0 <= indel_similarity(a, b) <= 1.0


def test_similarity_of_empty_texts() -> None:
    assert indel_similarity("", "") == 1.0
    assert indel_similarity("...", "  ") == 1.0  # both empty once punctuation is gone
    assert indel_similarity("", "hello") == 0.0


def test_is_fallback_matches_the_fallback_and_small_variations() -> None:
    assert is_fallback(FALLBACK, FALLBACK)
    assert is_fallback(FALLBACK.upper().replace(",", ""), FALLBACK)
    assert is_fallback(FALLBACK.replace("pizzas", "pizza"), FALLBACK)


def test_is_fallback_rejects_other_replies() -> None:
    assert not is_fallback("Thanks for ordering a small pizza! Which drink?", FALLBACK)
    assert not is_fallback("I'm sorry, we are closed on Sundays.", FALLBACK)


def test_is_fallback_finds_the_fallback_as_one_message_of_several() -> None:
    reply = f"{FALLBACK}\nYou can choose: Margarita, Carbonara or Custom."
    assert is_fallback(reply, FALLBACK)
    assert not is_fallback("Hello!\nWhat size would you like?", FALLBACK)


def test_is_fallback_without_a_fallback_never_matches() -> None:
    assert not is_fallback("anything", None)
    assert not is_fallback("", "")
    assert not is_fallback("!!", "...")


def test_is_fallback_threshold_is_checked_and_applied() -> None:
    near = FALLBACK.replace("drinks", "sodas")
    assert is_fallback(near, FallbackConfig.of(FALLBACK, threshold=0.8, generic=False))
    assert not is_fallback(near, FallbackConfig.of(FALLBACK, threshold=1.0, generic=False))
    with pytest.raises(ValueError, match="threshold"):
        FallbackConfig.of("y", threshold=1.5)


def test_repetition_tracker_fires_on_the_nth_similar_reply() -> None:
    tracker = RepetitionTracker(3, 0.95)
    assert [tracker.observe(FALLBACK) for _ in range(4)] == [False, False, True, True]
    assert tracker.count == 4


def test_repetition_tracker_restarts_on_a_different_reply() -> None:
    tracker = RepetitionTracker(2, 0.9)
    assert not tracker.observe("Which size?")
    assert not tracker.observe("Which drink?  ")  # different enough: a new run
    assert tracker.observe("which drink?")
    assert not tracker.observe("Your order ID is 44de6a.")
    assert tracker.count == 1


def test_repetition_tracker_counts_near_duplicates_against_the_first_of_the_run() -> None:
    tracker = RepetitionTracker(3, 0.9)
    tracker.observe("Sorry, the server is busy, try again later please")
    tracker.observe("Sorry, the server is busy, try again later!")
    assert tracker.observe("sorry the server is busy try again later please")


def test_repetition_tracker_reset_and_bad_arguments() -> None:
    tracker = RepetitionTracker(1)
    assert tracker.observe("hello")  # n=1: every reply is a run of one
    tracker.reset()
    assert tracker.count == 0
    with pytest.raises(ValueError, match="at least 1"):
        RepetitionTracker(0)
    with pytest.raises(ValueError, match="threshold"):
        RepetitionTracker(2, -0.1)


def _qa_conversations(shared_data: Path) -> list[Path]:
    root = shared_data / "sensei-pizza" / "conversations"
    return sorted(p for p in root.rglob("*.yml") if "qa_eval" in p.parts)


def test_real_fallback_loop_is_detected(shared_data: Path) -> None:
    """SENSEI's pizza Q&A conversations: one ends with the Taskyto fallback three times."""
    profile = shared_data / "sensei/examples/profiles/pizza-order-evaluation/eval/pizza_qa.yml"
    fallback = yaml.safe_load(profile.read_text())["chatbot"]["fallback"]
    files = _qa_conversations(shared_data)
    assert len(files) == 3
    fallbacks = 0
    for path in files:
        replies = [t.text for t in import_sensei(path).turns if t.role == "assistant"]
        flags = [is_fallback(r, fallback) is not None for r in replies]
        fallbacks += sum(flags)
        assert not any(flags[:5])  # the shop's real answers come first
        tracker = RepetitionTracker(3, 0.95)
        fired = [tracker.observe(r) for r in replies]
        assert fired == [i >= 2 and all(flags[i - 2 : i + 1]) for i in range(len(flags))]
    assert fallbacks == 3
