"""``language`` and ``responds_in_same_language``.

Source: SENSEI-check (``language``, ``_responds_in_same_language`` in ``rule_utils.py`` of
user-simulator 1.1.5), which asks gpt-4o. The LLM strategy sends SENSEI's prompt with a
structured reply. The offline strategy identifies languages lexically with Lingua
(``lingua-language-detector``) restricted to the languages in play — SENSEI's eight codes
plus the conversation's declared language — because over all 75 languages short replies
drift (``"ok"`` reads as Zulu). The detector is built once per language set.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Literal

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
from sparring.conversations import ConversationRecord

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
"""Lowest Lingua confidence (0..1) at which ``responds_in_same_language`` trusts a
detection; shorter or mixed utterances below it are skipped, not judged."""

MIN_LETTERS = 12
"""Utterances with fewer letters are too short for Lingua; they are read with
``SHORT_MARKERS`` instead, and skipped when no marker decides."""

SHORT_MARKERS: dict[str, frozenset[str]] = {
    "ENGLISH": frozenset(
        [
            "hi",
            "hello",
            "hey",
            "there",
            "thanks",
            "thank",
            "you",
            "yes",
            "yeah",
            "sorry",
            "bye",
            "goodbye",
            "okay",
            "sure",
            "what",
            "why",
            "how",
            "please",
            "welcome",
            "great",
            "fine",
            "good",
            "morning",
            "the",
        ]
    ),
    "SPANISH": frozenset(
        [
            "hola",
            "gracias",
            "sí",
            "si",
            "claro",
            "adiós",
            "vale",
            "perdón",
            "lo",
            "siento",
            "buenos",
            "buenas",
            "días",
            "qué",
            "cómo",
            "por",
            "favor",
            "bien",
            "de",
            "nada",
            "el",
            "la",
        ]
    ),
    "FRENCH": frozenset(
        [
            "bonjour",
            "salut",
            "merci",
            "oui",
            "non",
            "pardon",
            "désolé",
            "au",
            "revoir",
            "bien",
            "sûr",
            "d'accord",
            "le",
            "la",
        ]
    ),
    "GERMAN": frozenset(
        [
            "hallo",
            "danke",
            "ja",
            "nein",
            "bitte",
            "tschüss",
            "entschuldigung",
            "gut",
            "guten",
            "tag",
            "morgen",
            "der",
            "die",
            "das",
        ]
    ),
    "ITALIAN": frozenset(
        [
            "ciao",
            "grazie",
            "sì",
            "prego",
            "scusa",
            "arrivederci",
            "buongiorno",
            "bene",
            "certo",
            "il",
        ]
    ),
    "PORTUGUESE": frozenset(
        ["olá", "obrigado", "obrigada", "sim", "não", "desculpe", "tchau", "bom", "dia", "certo"]
    ),
}
"""Greetings and function words that name the language of a short utterance ("Hi
there!" is English): a small phrase table, decided only when one language alone has
markers in the utterance."""


def short_language(text: str) -> str | None:
    """The language (Lingua name) ``SHORT_MARKERS`` give ``text``, or ``None``."""
    words = set(re.findall(r"[\w']+", plain_text(text).lower()))
    found = [name for name, markers in SHORT_MARKERS.items() if words & markers]
    return found[0] if len(found) == 1 else None


@functools.lru_cache(maxsize=16)
def _detector(names: frozenset[str]) -> Any:
    from lingua import Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(
        *(getattr(Language, n) for n in sorted(names))
    ).build()


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
    detector = _detector(_languages_in_play(record))
    values = detector.compute_language_confidence_values(plain_text(text))
    if not values or values[0].value <= 0:
        return None, 0.0
    return values[0].language.name, float(values[0].value)


class LanguageAnswer(BaseModel):
    """The model's reply to ``language``."""

    language: Literal["ENG", "ESP", "FR", "GER", "IT", "POR", "CHI", "JAP", "OTHER"]


@rule_function("language")
def language(context: FunctionContext, string: object) -> str:
    """The language of a text, or of a list of texts taken together, as one of SENSEI's
    codes: ``ENG``, ``ESP``, ``FR``, ``GER``, ``IT``, ``POR``, ``CHI``, ``JAP`` or
    ``OTHER`` (e.g. ``language(chatbot_phrases) == 'ENG'``).

    LLM strategy with a model configured; otherwise Lingua (``OTHER`` when the text has no
    identifiable words or is in the conversation's declared non-SENSEI language).
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
    code = CODES.get(name or "", "OTHER")
    note(context, "language", reason=f"Lingua: {name or 'undecided'} ({confidence:.2f}) → {code}")
    return code


class SameLanguageAnswer(BaseModel):
    """The model's reply to ``responds_in_same_language``."""

    same_language: bool
    reason: str = ""


_SERVER_ERROR = "Error: The server"


@rule_function("responds_in_same_language")
def responds_in_same_language(context: FunctionContext) -> bool:
    """True when the chatbot answers in the language the user speaks.

    As in SENSEI-check, chatbot error placeholders (``Error: The server …``, always
    English) are left out, and a conversation with one utterance left is True. LLM
    strategy with a model configured (SENSEI's prompt). Offline, each chatbot utterance
    is compared with the language of the user's latest identifiable utterance; utterances
    shorter than ``MIN_LETTERS`` letters are read with ``SHORT_MARKERS`` (skipped when no
    single language's markers occur), longer ones identified with confidence below
    ``MIN_CONFIDENCE`` are skipped. The evidence lists the turns that differ.
    """
    record = conversation_of(context, "responds_in_same_language")
    kept = [
        u
        for u in utterances(record)
        if not (u[1] == "assistant" and u[2].startswith(_SERVER_ERROR))
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
    for index, role, text in kept:
        if sum(ch.isalpha() for ch in plain_text(text)) < MIN_LETTERS:
            name, confidence = short_language(text), 1.0
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
    note(context, "responds_in_same_language", reason=reason, turns=different)
    return not different


_SAME_LANGUAGE_PROMPT = """You are an assistant that checks conversations between a chatbot
and a human. Your task is to assess if the chatbot always responds in the same language as
the human. For example, if the human speaks in Spanish, the chatbot should respond in
Spanish, too.
Given the conversation below, return:
- YES (same_language: true) if the chatbot responds in the same language.
- NO (same_language: false) if the chatbot sometimes responds in a different language.
CONVERSATION:
{conversation}"""
