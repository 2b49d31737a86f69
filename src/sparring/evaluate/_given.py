"""The typed values a user gave in a dialogue, read without the profile: what a
confirmation is compared with (``_typed.confirmation``).

A user turn gives a value when it answers the chatbot's question for a value of a kind
(``_view.asked_kind``: a time, a date, a number of something, an amount; or a name; or
one of several values of a kind the question lists) with exactly one value of that kind
(``sparring.values``), in a short turn (at most ``MAX_ANSWER_WORDS`` words), and the
chatbot took it (its next reply is no fallback and does not ask the same question again).
The latest answer of each slot wins: a user who corrects a time gave the corrected one. A
slot is left out when the chatbot proposed another value of its kind since. The slot is
the kind, and for a number the thing counted ("How many nights?" → ``nights``), which
``compare_confirmation`` looks for beside a stated number.

Source: the user's check of the system's ``confirm`` act against the constraints it gave
(Schatzmann et al., NAACL 2007, §3), with the constraints read from the user's own answers.
"""

from __future__ import annotations

import re

from sparring.confirmation import GivenValue
from sparring.evaluate._features import words
from sparring.evaluate._view import DialogueView, asked_kind
from sparring.similarity import indel_similarity
from sparring.values import find_values

MAX_ANSWER_WORDS = 8
"""Words a user turn may have to count as the answer to one question."""
_COUNTED = re.compile(r"\bhow many\s+([a-z]+)", re.IGNORECASE)
_NAME_ASKED = re.compile(r"\bname\b(?!s)", re.IGNORECASE)
_NAME_INTRO = re.compile(
    r"^\s*(?:(?:my name is|my name's|i am|i'm|it's|it is|name is|under|the name is)\s+)?"
    r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2})\s*[.!]?\s*$"
)
_LISTED = ("time", "date", "money")
"""Kinds whose values a chatbot may list as the options of its question."""
_KIND_OF: dict[str, str] = {"int": "number", "time": "time", "date": "date", "money": "money"}
"""``_view.asked_kind``'s kinds compared typed by ``compare_confirmation``."""


def typed_given(view: DialogueView, until: int) -> list[GivenValue]:
    """The values the user gave before chatbot turn ``until`` in answer to the chatbot's
    questions (module docstring), one per slot, the latest."""
    given: dict[str, GivenValue] = {}
    for k in range(until):
        asker = view.bot_before(k) if view.roles[k] == "user" else None
        if asker is None or not _taken(view, asker, k, until):
            continue
        said = view.texts[k]
        if not 0 < len(words(said)) <= MAX_ANSWER_WORDS:
            continue
        asked = view.texts[asker]
        kind = asked_kind(asked) or _listed_kind(asked, view)
        if kind in _KIND_OF and len(find_values(kind, said, view.today)) == 1:
            counted = _COUNTED.search(asked) if kind == "int" else None
            slot = counted.group(1).lower() if counted else kind
            given[slot] = GivenValue(slot, said.strip(), _KIND_OF[kind], (), k)
        elif _NAME_ASKED.search(asked) and (name := _NAME_INTRO.match(said)) is not None:
            given["name"] = GivenValue("name", name.group(1), "text", (), k)
    return [g for g in given.values() if not _proposed_other(view, g, until)]


def _proposed_other(view: DialogueView, given: GivenValue, until: int) -> bool:
    """Whether a chatbot turn after the user gave ``given`` (and before ``until``) states
    another value of its kind — a time, date or amount it proposed instead ("3:30 pm is
    taken; would 4:30 pm suit you?"), which the user may have accepted: the slot is left
    out rather than guessed."""
    kind = next((k for k, v in _KIND_OF.items() if v == given.kind and k in _LISTED), None)
    if kind is None or given.turn is None or not isinstance(given.value, str):
        return False
    wanted = {c.value for c in find_values(kind, given.value, view.today)}
    return any(
        c.value not in wanted
        for j in range(given.turn + 1, until)
        if view.roles[j] == "assistant"
        for c in find_values(kind, view.texts[j], view.today)
    )


def _listed_kind(asked: str, view: DialogueView) -> str | None:
    """The kind of the values a chatbot's question lists to choose from ("Trains leave at
    06:45, 09:10 and 12:35. Which one would you like?"): at least two of one kind."""
    return next((k for k in _LISTED if len(find_values(k, asked, view.today)) >= 2), None)


def _taken(view: DialogueView, asker: int, answer: int, until: int) -> bool:
    """Whether the chatbot took user turn ``answer`` (to chatbot turn ``asker``'s
    question): its next reply, before ``until``, is no fallback and does not ask the same
    question again."""
    reply = next((j for j in range(answer + 1, until) if view.roles[j] == "assistant"), None)
    if reply is None or view.fallbacks.get(reply) or view.fallbacks.get(asker):
        return reply is None
    return indel_similarity(view.texts[reply], view.texts[asker]) < 0.8
