"""Interaction styles as seeded text transforms."""

from __future__ import annotations

import random
import re

import pytest

from sparring.simulate._styles import (
    STYLES_NEEDING_MODEL,
    STYLES_OFFLINE,
    apply_style,
    canonical_style,
    change_your_mind,
    needs_model,
)
from sparring.typos import make_typos

ORDER = "Hello, I would like to order a small custom pizza with mushrooms and ham, please."
VALUES = ["small", "mushrooms and ham"]


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text)


@pytest.mark.parametrize("style", ["make spelling mistakes", "long phrases", "short phrases"])
def test_same_seed_same_text(style: str) -> None:
    first = apply_style(style, ORDER, random.Random(7), protected=VALUES)
    again = apply_style(style, ORDER, random.Random(7), protected=VALUES)
    assert first == again


@pytest.mark.parametrize("style", ["make spelling mistakes", "long phrases"])
def test_different_seeds_vary(style: str) -> None:
    outputs = {
        apply_style(style, ORDER, random.Random(seed), protected=VALUES) for seed in range(10)
    }
    assert len(outputs) >= 3


def test_styles_leave_the_global_random_state_alone() -> None:
    random.seed(123)
    expected = random.random()
    random.seed(123)
    for style in ("make spelling mistakes", "long phrases", "short phrases"):
        apply_style(style, ORDER, random.Random(1), protected=VALUES)
    assert random.random() == expected


def test_spelling_mistakes_change_words_but_never_protected_values() -> None:
    for seed in range(50):
        text = make_typos(ORDER, random.Random(seed), protected=VALUES)
        assert text != ORDER
        for value in VALUES:
            assert value in text
        assert len(_words(text)) == len(_words(ORDER))  # typos stay inside words


def test_spelling_mistakes_rate_and_first_letters() -> None:
    text = "Could you please tell me which beverages and desserts you currently offer today"
    typed = make_typos(text, random.Random(3), rate=0.5)
    before, after = _words(text), _words(typed)
    changed = [a for a, b in zip(before, after, strict=True) if a != b]
    eligible = [w for w in before if len(w) >= 3]
    assert len(changed) == round(0.5 * len(eligible))
    assert [w[0] for w in before] == [w[0] for w in after]


def test_spelling_mistakes_protect_values_case_insensitively() -> None:
    text = "Small pizza, SMALL drink, small fries"
    for seed in range(20):
        typed = make_typos(text, random.Random(seed), protected=["small"], rate=1.0)
        assert re.findall(r"small", typed, re.IGNORECASE) == ["Small", "SMALL", "small"]


def test_spelling_mistakes_with_nothing_eligible() -> None:
    rng = random.Random(0)
    assert make_typos("", rng) == ""
    assert make_typos("ok 42 !", rng) == "ok 42 !"
    assert make_typos("Margarita", rng, protected=["margarita"]) == "Margarita"


def test_long_phrases_wrap_the_utterance_verbatim() -> None:
    for seed in range(10):
        text = apply_style("long phrases", ORDER, random.Random(seed))
        assert ORDER in text
        assert len(text) > len(ORDER) + 60
        assert text.count(".") + text.count("!") >= 3  # several sentences


def test_short_phrases_drop_politeness_and_keep_content() -> None:
    text = apply_style("short phrases", ORDER, random.Random(0), protected=VALUES)
    assert not re.search(r"\b(hello|please|would like)\b", text, re.IGNORECASE)
    assert text == "Order a small custom pizza with mushrooms and ham."


def test_short_phrases_keep_a_protected_filler_word_and_never_empty() -> None:
    rng = random.Random(0)
    assert "please" in apply_style(
        "short phrases", "I want the please combo", rng, protected=["please"]
    )
    assert apply_style("short phrases", "Thank you, please!", rng) == "Thank you, please!"
    cleaned = apply_style("short phrases", "Hi! Could you tell me, if possible, the hours?", rng)
    assert cleaned == "Tell me the hours?"


def test_change_your_mind_asks_for_the_alternative_then_corrects() -> None:
    text = "I want a small pizza."
    alternatives = {"small": ["medium", "large"]}
    for seed in range(10):
        out = apply_style(
            "change your mind",
            text,
            random.Random(seed),
            protected=["small"],
            alternatives=alternatives,
        )
        other = "medium" if "medium" in out else "large"
        assert other in out
        assert out.index(other) < out.rindex("small")  # the correction comes last
        assert out.startswith(f"I want a {other} pizza.")


def test_change_your_mind_without_alternatives_or_value() -> None:
    rng = random.Random(0)
    assert (
        apply_style("change your mind", "Hi there", rng, alternatives={"small": ["big"]})
        == "Hi there"
    )
    assert apply_style("change your mind", "A small one", rng) == "A small one"
    out = change_your_mind("Which drinks do you have?", "coke", "water", random.Random(1))
    assert out.startswith("Which drinks do you have? I would like water.")
    assert out.rstrip(".").split()[-1] in ("coke", "water")
    assert "coke" in out


def test_agenda_styles_keep_the_text() -> None:
    for style in ("default", "single questions", "all questions", "Single question"):
        assert apply_style(style, ORDER, random.Random(0)) == ORDER


def test_needs_model_and_style_names() -> None:
    assert needs_model("change language")
    assert needs_model("Change_Language")
    assert needs_model("speak like a pirate")  # unknown: not possible offline
    assert not any(needs_model(s) for s in STYLES_OFFLINE)
    assert STYLES_NEEDING_MODEL.isdisjoint(STYLES_OFFLINE)
    assert canonical_style("  Make_Spelling   Mistakes ") == "make spelling mistakes"


def test_apply_style_refuses_model_and_unknown_styles() -> None:
    with pytest.raises(ValueError, match="needs a model"):
        apply_style("change language", ORDER, random.Random(0))
    with pytest.raises(ValueError, match="unknown interaction style"):
        apply_style("whisper", ORDER, random.Random(0))
