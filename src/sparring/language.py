"""Lexical language identification, shared by the stages that need it (``check``'s
language rules, ``explore``'s probing): Lingua (``lingua-language-detector``) restricted to
the languages in play, because over all 75 languages short replies drift (``"ok"`` reads as
Zulu), and a small phrase table for utterances too short for Lingua. Detectors are built
once per language set. No model, no download.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

COMMON_LANGUAGES = frozenset(
    ["ENGLISH", "SPANISH", "FRENCH", "GERMAN", "ITALIAN", "PORTUGUESE", "CHINESE", "JAPANESE"]
)
"""Lingua names of the languages considered when a caller names none (SENSEI's eight)."""

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
            "pardon",  # also French: "Pardon me?" decides nothing
            "me",
            "excuse",
            "i",
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
    words = set(re.findall(r"[\w']+", text.lower()))
    found = [name for name, markers in SHORT_MARKERS.items() if words & markers]
    return found[0] if len(found) == 1 else None


@functools.lru_cache(maxsize=16)
def _detector(names: frozenset[str]) -> Any:
    from lingua import Language, LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(
        *(getattr(Language, n) for n in sorted(names))
    ).build()


def identify_language(
    text: str, names: Iterable[str] = COMMON_LANGUAGES
) -> tuple[str | None, float]:
    """The Lingua language name (``ENGLISH``, …) of ``text`` among ``names`` and its
    confidence (0..1); ``(None, 0.0)`` when undecidable. ``text`` should be plain (no
    button markup or URLs)."""
    detector = _detector(frozenset(names))
    values = detector.compute_language_confidence_values(text)
    if not values or values[0].value <= 0:
        return None, 0.0
    return values[0].language.name, float(values[0].value)


def iso_code(name: str) -> str | None:
    """The ISO 639-1 code (``en``) of a Lingua language name (``ENGLISH``); ``None`` for
    an unknown name."""
    from lingua import Language

    language = getattr(Language, name.upper(), None)
    if not isinstance(language, Language):
        return None
    return str(language.iso_code_639_1.name).lower()
