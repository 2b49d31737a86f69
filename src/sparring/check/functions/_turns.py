"""Functions that tie a chatbot reply to the utterance it answers, so rules stop depending
on turn positions (an extra simulator turn shifts ``chatbot_phrases[0]``), plus the
numbers a reply states.

- ``reply_to(utterance)``: what the chatbot answered to the user's utterance containing
  ``utterance`` (case, spacing and punctuation ignored; the latest such utterance);
- ``turn_after(pattern, who='user')``: the text of the turn that follows the first turn of
  ``who`` matching the regular expression ``pattern`` (case-insensitive);
- ``numbers(text)``: the numbers in a text, in digits or words ("Four." → ``[4]``).

Both turn functions return ``None`` when nothing matches, so ``when: reply_to('…') is not
None`` makes a rule *not applicable* on conversations that never asked.
"""

from __future__ import annotations

import re
import time
from datetime import date

from regex import Pattern

from sparring._regex import PatternTimeout, compile_pattern, search
from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import conversation_of, note
from sparring.values import find_values

_TODAY = date(2000, 1, 1)
"""Any date: numbers do not depend on it."""
_WHO = {"user": "user", "assistant": "assistant", "chatbot": "assistant"}


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


@rule_function("reply_to")
def reply_to(context: FunctionContext, utterance: str) -> str | None:
    """The chatbot's reply (its consecutive turns joined by a newline, SENSEI text) to the
    latest user utterance containing ``utterance``; ``None`` when the user never said it
    or the chatbot did not answer. Example: ``'maria' in reply_to('What is my name').lower()``.
    """
    record = conversation_of(context, "reply_to")
    wanted = _normal(str(utterance))
    asked = [
        i
        for i, turn in enumerate(record.turns)
        if turn.role == "user" and wanted in _normal(turn.text)
    ]
    if not asked:
        note(context, "reply_to", reason=f"the user never said {utterance!r}")
        return None
    replies: list[int] = []
    for index in range(asked[-1] + 1, len(record.turns)):
        if record.turns[index].role != "assistant":
            break
        replies.append(index)
    note(context, "reply_to", reason=f"the reply to {utterance!r}", turns=[asked[-1], *replies])
    if not replies:
        return None
    return "\n".join(record.turns[i].sensei_text for i in replies)


@rule_function("turn_after")
def turn_after(context: FunctionContext, pattern: str, who: str = "user") -> str | None:
    """The text (SENSEI text) of the turn right after the first turn of ``who`` (``user``,
    ``assistant``/``chatbot``) matching the regular expression ``pattern``
    (case-insensitive); ``None`` when none matches or it is the last turn. Raises
    ``ValueError`` for another ``who`` or an invalid pattern, ``PatternTimeout`` (a
    ``ValueError``) when matching takes longer than the rule's ``timeout`` in all."""
    role = _WHO.get(str(who).lower())
    if role is None:
        raise ValueError(f"turn_after(): who must be 'user' or 'assistant', not {who!r}")
    try:
        compiled = compile_pattern(str(pattern))
    except ValueError as exc:
        raise ValueError(f"turn_after(): {exc}") from None
    record = conversation_of(context, "turn_after")
    deadline = time.monotonic() + context.timeout
    for index, turn in enumerate(record.turns[:-1]):
        if turn.role == role and _found(compiled, turn.sensei_text, deadline, context.timeout):
            note(
                context,
                "turn_after",
                reason=f"the turn after {pattern!r}",
                turns=[index, index + 1],
            )
            return record.turns[index + 1].sensei_text
    return None


def _found(compiled: Pattern[str], text: str, deadline: float, limit: float) -> bool:
    try:
        return search(compiled, text, max(deadline - time.monotonic(), 0.001)) is not None
    except PatternTimeout:
        raise PatternTimeout(
            f"turn_after(): the regular expression {compiled.pattern!r} ran longer than the "
            f"rule's time limit of {limit:g} s (catastrophic backtracking?)"
        ) from None


@rule_function("numbers")
def numbers(context: FunctionContext, text: object) -> list[float]:
    """The numbers ``text`` states, in order, written in digits or as words up to twelve
    ("Four." → ``[4.0]``, "3 times 3 = 9." → ``[3.0, 3.0, 9.0]``); empty for ``None``."""
    if text is None:
        return []
    return [float(c.value) for c in find_values("float", str(text), reference=_TODAY)]
