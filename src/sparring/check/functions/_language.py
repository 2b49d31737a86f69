"""``language`` and ``responds_in_same_language``.

Source: SENSEI-check (``language``, ``_responds_in_same_language`` in ``rule_utils.py`` of
user-simulator 1.1.5), which asks gpt-4o. The LLM strategy sends SENSEI's prompt with a
structured reply. The offline strategy identifies languages lexically with Lingua
(``lingua-language-detector``) restricted to the languages in play — SENSEI's eight codes
plus the conversation's declared language — because over all 75 languages short replies
drift (``"ok"`` reads as Zulu). The detector is built once per language set.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import (
    as_texts,
    conversation_of,
    interaction_text,
    note,
    plain_text,
    utterances,
)
from sparring.check.functions._model import ask_model
from sparring.conversations import SENSEI_SERVER_ERROR, ConversationRecord
from sparring.errors import ModelRequired
from sparring.language import MIN_LETTERS, identify_language, short_language
from sparring.precision import precision_note

CODES = {
    "ENGLISH": "ENG",
    "SPANISH": "ESP",
    "FRENCH": "FR",
    "GERMAN": "GER",
    "ITALIAN": "IT",
    "PORTUGUESE": "POR",
    "CHINESE": "CHI",
    "JAPANESE": "JAP",
}
"""SENSEI-check's language codes by Lingua language name; anything else is ``OTHER``."""

_NAMES = {
    "ENG": "English",
    "ESP": "Spanish",
    "FR": "French",
    "GER": "German",
    "IT": "Italian",
    "POR": "Portuguese",
    "CHI": "Chinese",
    "JAP": "Japanese",
    "OTHER": "other language",
}

MIN_CONFIDENCE = 0.5
"""Lowest Lingua confidence (0..1) at which the offline strategies trust a detection:
``responds_in_same_language`` skips an utterance below it, ``language`` abstains."""


def _languages_in_play(record: ConversationRecord | None) -> frozenset[str]:
    names = set(CODES)
    declared = (record.language or "").strip().upper() if record is not None else ""
    if declared:
        from lingua import Language

        known = getattr(Language, declared, None)
        if isinstance(known, Language):
            names.add(declared)
    return frozenset(names)


def identify(text: str, record: ConversationRecord | None = None) -> tuple[str | None, float]:
    """The Lingua language name (``ENGLISH``, …) of ``text`` and its confidence (0..1),
    among the languages in play for ``record``; ``(None, 0.0)`` when undecidable."""
    return identify_language(plain_text(text), _languages_in_play(record))


class LanguageAnswer(BaseModel):
    """The model's reply to ``language``."""

    language: Literal["ENG", "ESP", "FR", "GER", "IT", "POR", "CHI", "JAP", "OTHER"]


@rule_function("language")
def language(context: FunctionContext, string: object) -> str:
    """The language of a text, or of a list of texts taken together, as one of SENSEI's
    codes: ``ENG``, ``ESP``, ``FR``, ``GER``, ``IT``, ``POR``, ``CHI``, ``JAP`` or
    ``OTHER`` (e.g. ``language(chatbot_phrases) == 'ENG'``).

    LLM strategy with a model configured; otherwise Lingua (``OTHER`` when the text has no
    identifiable words or is in the conversation's declared non-SENSEI language). Offline,
    a detection with confidence under ``MIN_CONFIDENCE`` (a name, "OK") raises
    ``ModelRequired``: the verdict is unscored with the reason. Measured precision:
    ``sparring.precision.MEASURED['language']``.
    """
    if context.model is not None:
        listed = ", ".join(f"{code} for {name}" for code, name in _NAMES.items())
        listed = listed.replace(", OTHER for", ", and OTHER for")
        prompt = (
            f"What is the language of the following text?: \n {string}. \n "
            f"Return {listed} (as `language`)."
        )
        return ask_model(context, "language", prompt, LanguageAnswer).language
    text = "\n".join(as_texts(string, "language", "string")) if string is not None else ""
    name, confidence = identify(text, context.conversation)
    if name is not None and confidence < MIN_CONFIDENCE:
        raise ModelRequired(
            "language",
            f"Lingua's best guess {name} has confidence {confidence:.2f}, under "
            f"{MIN_CONFIDENCE}: too short or mixed to tell "
            + precision_note("language", "unscored"),
        )
    code = CODES.get(name or "", "OTHER")
    measured = precision_note("language", code)
    note(
        context,
        "language",
        reason=f"Lingua: {name or 'undecided'} ({confidence:.2f}) → {code} {measured}",
    )
    return code


class SameLanguageAnswer(BaseModel):
    """The model's reply to ``responds_in_same_language``."""

    same_language: bool
    reason: str = ""


MIN_USER_WORDS = 3
"""User utterances with fewer words are read with ``SHORT_MARKERS`` only."""


@rule_function("responds_in_same_language")
def responds_in_same_language(context: FunctionContext) -> bool:
    """True when the chatbot answers in the language the user speaks.

    As in SENSEI-check, chatbot error placeholders (``Error: The server …``, always
    English) are left out, and a conversation with one utterance left is True. LLM
    strategy with a model configured (SENSEI's prompt). Offline, each chatbot utterance
    is compared with the language of the user's latest identifiable utterance; utterances
    shorter than ``MIN_LETTERS`` letters are read with ``SHORT_MARKERS`` (skipped when no
    single language's markers occur), longer ones identified with confidence below
    ``MIN_CONFIDENCE`` are skipped; a user utterance of fewer than ``MIN_USER_WORDS``
    words (an option picked: "pizza Margherita") is read with the markers only, since
    names are no evidence of a language, and neither are the words of a user utterance
    that the chatbot's previous utterance wrote (options picked: "chicken or corn" after a
    list of toppings reads as "or", too short to judge). The evidence lists the turns
    that differ.
    """
    record = conversation_of(context, "responds_in_same_language")
    kept = [
        u
        for u in utterances(record)
        if not (u[1] == "assistant" and u[2].startswith(SENSEI_SERVER_ERROR))
    ]
    if len(kept) <= 1:
        note(context, "responds_in_same_language", reason="nothing to compare")
        return True
    if context.model is not None:
        filtered = record.model_copy(update={"turns": [record.turns[i] for i, _, _ in kept]})
        prompt = _SAME_LANGUAGE_PROMPT.format(conversation=interaction_text(filtered))
        answer = ask_model(context, "responds_in_same_language", prompt, SameLanguageAnswer)
        return answer.same_language
    user_language: str | None = None
    different: list[int] = []
    details: list[str] = []
    offered: set[str] = set()
    for index, role, text in kept:
        if role == "user":  # words picked from the chatbot's own offer say no language
            text = " ".join(w for w in plain_text(text).split() if _word(w) not in offered)
        else:
            offered = {_word(w) for w in plain_text(text).split()}
        words = len(plain_text(text).split())
        if sum(ch.isalpha() for ch in plain_text(text)) < MIN_LETTERS or (
            role == "user" and words < MIN_USER_WORDS
        ):
            name, confidence = short_language(plain_text(text)), 1.0
        else:
            name, confidence = identify(text, record)
        if name is None or confidence < MIN_CONFIDENCE:
            continue
        if role == "user":
            user_language = name
        elif user_language is not None and name != user_language:
            different.append(index)
            details.append(f"turn {index}: {name.lower()} after {user_language.lower()}")
    reason = "; ".join(details) if details else "the chatbot answers in the user's language"
    measured = precision_note("responds_in_same_language", "different" if different else "same")
    note(context, "responds_in_same_language", reason=f"{reason} {measured}", turns=different)
    return not different


def _word(token: str) -> str:
    return token.strip(".,;:!?¿¡()[]\"'").casefold()


_SAME_LANGUAGE_PROMPT = """You are an assistant that checks conversations between a chatbot
and a human. Your task is to assess if the chatbot always responds in the same language as
the human. For example, if the human speaks in Spanish, the chatbot should respond in
Spanish, too.
Given the conversation below, return:
- YES (same_language: true) if the chatbot responds in the same language.
- NO (same_language: false) if the chatbot sometimes responds in a different language.
CONVERSATION:
{conversation}"""
