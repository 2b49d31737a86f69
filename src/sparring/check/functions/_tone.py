"""``tone``: POSITIVE, NEGATIVE or NEUTRAL for each text.

Source: SENSEI-check (``tone`` in ``rule_utils.py`` of user-simulator 1.1.5), one gpt-4o
call per text. Offline strategy: the VADER lexicon (Hutto & Gilbert, ICWSM 2014) with its
authors' cut-offs on the compound score: ≥ 0.05 positive, ≤ -0.05 negative, else neutral.
A compound score whose magnitude is above 0 but under ``STRONG_FROM`` is a weak cue (the
lexicon's "please", "sorry", "unfortunately" in plain task talk): offline, a text with a
weak score makes the call unscored (``ModelRequired``, naming the texts) rather than a
guess. Measured precision: ``sparring.precision.MEASURED['tone']``.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from pydantic import BaseModel

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import as_texts, note, plain_text
from sparring.check.functions._model import ask_model
from sparring.errors import ModelRequired
from sparring.precision import precision_note

POSITIVE_FROM = 0.05
NEGATIVE_UP_TO = -0.05
STRONG_FROM = 0.5
"""Smallest magnitude of VADER's compound score (0..1) that ``tone`` offline takes as a
tone; between 0 and it the text is a weak cue and the call abstains (chosen on the
labelled items of ``benchmarks/judges/language_tone.yaml``, where weaker scores were
wrong on 8 of 13 neutral task sentences)."""

Tone = Literal["POSITIVE", "NEGATIVE", "NEUTRAL"]


@functools.lru_cache(maxsize=1)
def _analyzer() -> Any:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def lexicon_tone(text: str) -> tuple[Tone, float]:
    """VADER's tone of ``text`` and its compound score (-1..1)."""
    compound = float(_analyzer().polarity_scores(plain_text(text))["compound"])
    if compound >= POSITIVE_FROM:
        return "POSITIVE", compound
    if compound <= NEGATIVE_UP_TO:
        return "NEGATIVE", compound
    return "NEUTRAL", compound


class ToneAnswer(BaseModel):
    """The model's reply to ``tone`` for one text."""

    tone: Tone


@rule_function("tone")
def tone(context: FunctionContext, item: object) -> list[str]:
    """The tone of each text in ``item`` (a string or a list of strings), as a list of
    ``POSITIVE``, ``NEGATIVE`` or ``NEUTRAL`` (a one-element list for a string), e.g.
    ``'NEGATIVE' not in tone(chatbot_phrases)``.

    LLM strategy (SENSEI's prompt, one call per text) with a model configured; otherwise
    VADER, unscored (``ModelRequired``) when a text's score is a weak cue. Raises
    ``ValueError`` when ``item`` is neither a string nor a list.
    """
    texts = as_texts(item, "tone")
    if context.model is not None:
        return [
            ask_model(
                context,
                "tone",
                f"What is the tone of the following text: \n {text}. \n "
                "Return only POSITIVE, NEGATIVE or NEUTRAL (as `tone`).",
                ToneAnswer,
            ).tone
            for text in texts
        ]
    scored = [lexicon_tone(text) for text in texts]
    weak = [(text, score) for text, (_, score) in zip(texts, scored, strict=True)
            if 0 < abs(score) < STRONG_FROM]  # fmt: skip
    if weak:
        shown = "; ".join(f"{plain_text(text)[:60]!r} ({score:+.2f})" for text, score in weak)
        raise ModelRequired(
            "tone",
            f"VADER's compound score is a weak cue (under {STRONG_FROM} in magnitude) for "
            f"{shown} {precision_note('tone', 'unscored')}",
        )
    reason = ", ".join(f"{label} ({score:+.2f})" for label, score in scored)
    measured = "; ".join(
        precision_note("tone", label) for label in dict.fromkeys(name for name, _ in scored)
    )
    note(context, "tone", reason=f"VADER compound: {reason} {measured}")
    return [label for label, _ in scored]
