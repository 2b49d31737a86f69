"""Interaction styles as deterministic, seeded text transforms (no model needed).

SENSEI realises each interaction style by adding a sentence to the user simulator's prompt
(``user_sim/interaction_styles.py``; Ferreira et al., "SENSEI", 2025, §3). The offline
agenda simulator has no model to prompt, so it rewrites its own utterances instead:

- ``make spelling mistakes``: character-level typos (adjacent swaps, dropped letters,
  doubled letters, QWERTY-neighbour substitutions) in about ``TYPO_RATE`` of the words,
  by the one typo generator (``sparring.typos.make_typos``).
- ``long phrases``: the utterance wrapped in courteous opening and closing sentences.
- ``short phrases``: greetings, politeness and request frames ("I would like to",
  "could you") removed; the content words and values stay.
- ``change your mind``: ask for another value first, then correct it (``change_your_mind``).
- ``default``, ``single questions``, ``all questions``: how many goals go in one turn;
  ``off topic when asked`` (sparring's addition): the goal listed before an asked value
  is said first; the agenda realises them, the text is unchanged.

``change language`` needs a model (translation); ``needs_model`` says so and the simulator
records it as not applied. Substrings given as ``protected`` (the goal's variable values)
are never altered, so the chatbot still receives the values the profile picked.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence

from sparring.typos import make_typos, protected_spans

STYLES_OFFLINE: frozenset[str] = frozenset(
    {
        "default",
        "single questions",
        "all questions",
        "make spelling mistakes",
        "long phrases",
        "short phrases",
        "change your mind",
        "off topic when asked",
    }
)
"""Interaction styles that ``apply_style`` can realise without a model."""

STYLES_NEEDING_MODEL: frozenset[str] = frozenset({"change language"})
"""SENSEI interaction styles that only a model can realise."""

_ALIASES = {"single question": "single questions", "all question": "all questions"}

_OPENERS = (
    "Hello, I hope you are having a good day.",
    "Good day! I was hoping you could help me with something, if it is not too much trouble.",
    "Hi there, and thank you for taking the time to talk with me.",
    "Hello! I have been meaning to get in touch about this for a little while now.",
    "Greetings, I would really appreciate your help with the following matter.",
)
_LEADS = ("{u}", "What I would like is this: {u}", "So, to put it simply: {u}", "Here it is: {u}")
_CLOSERS = (
    "Thank you very much in advance for your help, I really appreciate it.",
    "Please let me know if you need any other details from me.",
    "I would be grateful if you could get back to me with all the details.",
    "Thanks a lot for your patience, I know this may take a moment.",
)
_CORRECTIONS = (
    "Sorry, I changed my mind: I want {value}, not {other}.",
    "Actually, wait, make that {value} instead of {other}.",
    "On second thought, I would prefer {value} rather than {other}.",
)

_FILLERS = re.compile(
    r"(?:,\s*)?\b(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening|day)|please|kindly|"
    r"if (?:possible|you (?:don't|do not) mind)|thank you(?: very much)?|thanks(?: a lot)?|"
    r"sorry|i was wondering if|i would like to|i'd like to|i would like|i'd like|"
    r"i want to|i want|i need to|i need|(?:could|can|would) you(?: please)?|"
    r"is it possible to|just|actually|really|basically)\b[,!]?",
    re.IGNORECASE,
)


def canonical_style(style: str) -> str:
    """A style name as SENSEI spells it: lower case, single spaces (``make_spelling_mistakes``
    → ``make spelling mistakes``)."""
    name = " ".join(style.replace("_", " ").split()).lower()
    return _ALIASES.get(name, name)


def needs_model(style: str) -> bool:
    """True when ``style`` cannot be realised offline (``change language``, unknown styles)."""
    return canonical_style(style) not in STYLES_OFFLINE


def apply_style(
    style: str,
    text: str,
    rng: random.Random,
    *,
    protected: Sequence[str] = (),
    alternatives: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """Rewrite ``text`` (one user utterance) in interaction style ``style``.

    ``rng`` is the conversation's seeded generator (same seed, same text); ``protected``
    substrings (variable values, matched case-insensitively) come out unchanged.
    ``alternatives`` maps a protected value to the other values it could have had; only
    ``change your mind`` reads it (without one for a value in the text, the text is
    returned unchanged). Raises ``ValueError`` for a style that needs a model or is unknown.
    """
    name = canonical_style(style)
    if name == "make spelling mistakes":
        return make_typos(text, rng, protected=protected)
    if name == "long phrases":
        return _long_phrases(text, rng)
    if name == "short phrases":
        return _short_phrases(text, protected)
    if name == "change your mind":
        choices = [
            (value, list(others))
            for value, others in (alternatives or {}).items()
            if others and _find(value, text)
        ]
        if not choices:
            return text
        value, others = rng.choice(choices)
        return change_your_mind(text, value, rng.choice(others), rng)
    if name in STYLES_OFFLINE:
        return text
    raise ValueError(
        f"interaction style {style!r} needs a model"
        if name in STYLES_NEEDING_MODEL
        else f"unknown interaction style {style!r}; offline styles: {sorted(STYLES_OFFLINE)}"
    )


def change_your_mind(text: str, value: str, other: str, rng: random.Random) -> str:
    """An utterance that first asks for ``other`` and then corrects it to ``value``.

    The first occurrence of ``value`` in ``text`` becomes ``other`` (or ``other`` is
    requested after the text when ``value`` does not occur), then a seed-chosen correction
    sentence asks for ``value`` instead.
    """
    span = _find(value, text)
    first = (
        f"{text[: span[0]]}{other}{text[span[1] :]}" if span else f"{text} I would like {other}."
    )
    correction = rng.choice(_CORRECTIONS).format(value=value, other=other)
    return f"{first.rstrip()} {correction}"


def _long_phrases(text: str, rng: random.Random) -> str:
    body = rng.choice(_LEADS).format(u=text.strip())
    return f"{rng.choice(_OPENERS)} {body} {rng.choice(_CLOSERS)}"


def _short_phrases(text: str, protected: Sequence[str]) -> str:
    shortened = _outside_protected(text, protected, lambda part: _FILLERS.sub("", part))
    shortened = re.sub(r"\s{2,}", " ", shortened)
    shortened = re.sub(r"\s+([,.!?;:])", r"\1", shortened)
    shortened = re.sub(r"[,;:]+\s*([,.!?;:])", r"\1", shortened)
    shortened = re.sub(r"^[\s,.!?;:]+|[\s,;:]+$", "", shortened)
    if not re.search(r"\w", shortened):
        return text.strip()
    shortened = re.sub(r"([.!?]\s+)(\w)", lambda m: m.group(1) + m.group(2).upper(), shortened)
    return shortened[0].upper() + shortened[1:]


def _outside_protected(text: str, protected: Sequence[str], change: Callable[[str], str]) -> str:
    """Apply ``change`` to the parts of ``text`` between protected substrings."""
    out, cursor = [], 0
    for start, end in protected_spans(text, protected):
        out += [change(text[cursor:start]), text[start:end]]
        cursor = end
    out.append(change(text[cursor:]))
    return "".join(out)


def _find(value: str, text: str) -> tuple[int, int] | None:
    if not value.strip():
        return None
    match = re.search(re.escape(value), text, re.IGNORECASE)
    return match.span() if match else None
