"""Helpers the rule functions share: the conversation as SENSEI-check sees it, argument
checks, and the evidence they leave.

SENSEI-check reads a conversation as its ``interaction`` list: one ``{"User": text}`` or
``{"Assistant": text}`` entry per utterance, assistant texts with buttons rendered
(``AVAILABLE BUTTONS:`` / ``- BUTTON TEXT: … LINK: …``). Turn ``i`` of a
``ConversationRecord`` is entry ``i`` of that list, so the step numbers the functions return
are 0-based turn indices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sparring.check._context import FunctionContext
from sparring.conversations import ConversationRecord
from sparring.errors import UserInputError
from sparring.results import Evidence
from sparring.types import Strategy

SPEAKERS = {"user": "User", "assistant": "Assistant"}
"""SENSEI's speaker labels by turn role."""

Utterance = tuple[int, str, str]
"""``(turn index, role, SENSEI text)``; role is ``user`` or ``assistant``."""


def quoted(text: str, size: int = 120) -> str:
    """``text`` on one line, cut to ``size`` characters with "…", in quotes (``repr``): how
    a verdict's reason quotes a turn."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= size else flat[: size - 1] + "…")


def conversation_of(context: FunctionContext, function: str) -> ConversationRecord:
    """The conversation under check; ``UserInputError`` in a global rule (no conversation)."""
    if context.conversation is None:
        raise UserInputError(
            f"{function}() looks at one conversation: it cannot be used in a rule with "
            "`conversations: all` (use it inside exists()/num_exist() there)"
        )
    return context.conversation


def utterances(record: ConversationRecord, role: str | None = None) -> list[Utterance]:
    """Every utterance (or only ``role``'s) as ``(turn index, role, SENSEI text)``."""
    return [
        (i, turn.role, turn.sensei_text)
        for i, turn in enumerate(record.turns)
        if role is None or turn.role == role
    ]


def interaction_text(record: ConversationRecord, numbered: bool = False) -> str:
    """The conversation as SENSEI-check prints it for a model: ``User : text`` lines,
    prefixed ``1 - ``, ``2 - `` … (1-based) when ``numbered``."""
    lines = []
    for n, (_, role, text) in enumerate(utterances(record), start=1):
        prefix = f"{n} - " if numbered else ""
        lines.append(f"{prefix}{SPEAKERS[role]} : {text}")
    return "".join(line + "\n" for line in lines)


def as_texts(item: object, function: str, what: str = "item") -> list[str]:
    """A string or a list of strings as a list; ``ValueError`` otherwise (as SENSEI)."""
    if isinstance(item, str):
        return [item]
    if isinstance(item, list | tuple):
        return [str(element) for element in item]
    raise ValueError(
        f"{function}(): expecting a list of strings, or a string, as {what}, but got {item!r}"
    )


_BUTTON_MARKUP = re.compile(r"AVAILABLE BUTTONS:|- BUTTON TEXT:|LINK: \S*")
_URL = re.compile(r"https?://\S+|www\.\S+")


def plain_text(text: str) -> str:
    """``text`` without SENSEI's button markup and URLs (what language and tone read)."""
    return _URL.sub(" ", _BUTTON_MARKUP.sub(" ", text))


def note(
    context: FunctionContext,
    function: str,
    *,
    strategy: Strategy = Strategy.OFFLINE,
    reason: str | None = None,
    turns: Iterable[int] = (),
) -> Evidence:
    """Append an ``Evidence`` for an offline (or model-free) call and return it."""
    evidence = Evidence(function=function, strategy=strategy, reason=reason, turns=list(turns))
    context.evidence.append(evidence)
    return evidence
