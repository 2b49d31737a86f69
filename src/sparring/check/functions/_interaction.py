"""Model-free functions over one conversation's turns and outputs.

Source: SENSEI-check (``rule_utils.py`` of user-simulator 1.1.5): ``chatbot_returns``,
``conversation_length``, ``data_collected``, ``missing_slots`` (the SENSEI paper calls it
``missing_outputs``, sec. 4). Return values are SENSEI's. ``empty_responses`` is sparring's,
named as the SENSEI rule files that call it.
"""

from __future__ import annotations

from sparring.check._context import FunctionContext, rule_function
from sparring.check.functions._common import conversation_of, note, utterances
from sparring.conversations import EMPTY_RESPONSE


def _first_without_second(text: str, first: str, second: str) -> bool:
    """``first`` occurs in ``text`` and ``second`` does not occur after its first match."""
    at = text.find(first)
    return at != -1 and text.find(second, at + len(first)) == -1


@rule_function("chatbot_returns")
def chatbot_returns(context: FunctionContext, what: str, and_not: str | None = None) -> list[int]:
    """The 0-based turn indices where the chatbot's text (buttons rendered SENSEI-style)
    contains ``what`` — and, with ``and_not``, does not contain ``and_not`` after the first
    ``what``. An empty list (falsy) when it never does.

    Example: ``not chatbot_returns("LINK: <empty>")`` (no button without a link);
    ``not chatbot_returns("AVAILABLE BUTTONS:", and_not="- BUTTON TEXT:")`` (no empty
    button list).
    """
    record = conversation_of(context, "chatbot_returns")
    found = [
        index
        for index, _, text in utterances(record, "assistant")
        if what in text and (and_not is None or _first_without_second(text, what, and_not))
    ]
    if found:
        note(context, "chatbot_returns", reason=f"the chatbot returns {what!r}", turns=found)
    return found


@rule_function("empty_responses")
def empty_responses(context: FunctionContext) -> list[int]:
    """The 0-based turn indices where the chatbot replied with nothing: an empty or
    whitespace-only text and no buttons (rules see such a turn as ``<EMPTY-RESPONSE>``, so
    this is ``chatbot_returns('<EMPTY-RESPONSE>')`` made exact). An empty list (falsy)
    when every reply has content. Example: ``oracle: not empty_responses()``."""
    record = conversation_of(context, "empty_responses")
    found = [
        index
        for index, turn in enumerate(record.turns)
        if turn.role == "assistant" and turn.sensei_text == EMPTY_RESPONSE
    ]
    if found:
        note(context, "empty_responses", reason="the chatbot replied with nothing", turns=found)
    return found


_WHO = {"both": None, "user": "user", "assistant": "assistant", "chatbot": "assistant"}


@rule_function("conversation_length")
def conversation_length(context: FunctionContext, who: str = "both") -> int:
    """The number of utterances: all (``both``), the user's (``user``) or the chatbot's
    (``assistant`` or ``chatbot``; SENSEI counts 0 for ``chatbot``, a bug not kept).

    Raises ``ValueError`` for any other ``who``.
    """
    key = who.lower()
    if key not in _WHO:
        raise ValueError(
            f"conversation_length(): expected 'user', 'chatbot' or 'both', but got {who!r}"
        )
    record = conversation_of(context, "conversation_length")
    return len(utterances(record, _WHO[key]))


def _missing(context: FunctionContext, function: str) -> list[str]:
    record = conversation_of(context, function)
    return [
        name
        for name, output in record.outputs.items()
        if output.value is None or output.value == "None"
    ]


@rule_function("data_collected")
def data_collected(context: FunctionContext) -> bool:
    """True when every output data item of the profile got a value (none is ``None``);
    True for a conversation with no outputs."""
    missing = _missing(context, "data_collected")
    if missing:
        note(context, "data_collected", reason=f"missing outputs: {', '.join(missing)}")
    return not missing


@rule_function("missing_slots", "missing_outputs")
def missing_slots(context: FunctionContext) -> list[str]:
    """The names of the output data items that got no value, in profile order (empty list
    when all were collected). ``missing_outputs`` is the SENSEI paper's name for it."""
    return _missing(context, "missing_slots")
