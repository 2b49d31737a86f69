"""The task-completion judge: did the conversation reach the chatbot's confirmation or
answer, and if not, which step of the task did not happen?

A profile's goals are the steps of its task ("book a room", "room {{room}}", "{{date}}",
"name {{name}}"). ``task_steps_missing()`` follows them through the conversation: each
step with a variable needs the user to say its value (``sparring.confirmation.given_values``)
and the chatbot to take it (its next reply is no fallback and does not ask the same
question again); after the last value the chatbot must confirm or answer (a turn that
``sparring.confirmation.is_confirmation`` reads as one, or whose dialogue act is an
inform). Where the task stopped, the verdict names the first step that did not happen and
the chatbot's reply at that point: a failure when the chatbot is shown at fault (it refused
a value it had just offered, or stopped replying), else *unscored* (a placeholder value, a
value the user never gave or the profile made up, a chatbot asking for more than the
profile holds: the profile or the simulated user may be at fault). Strategy: offline, from
the recorded dialogue acts (classified where not recorded) and the user's values.
Source: task success as the share of dialogues whose goal the system fulfilled (Walker et
al., PARADISE, 1997, §2); here per step, to say where a task stopped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from sparring.check._context import FunctionContext, rule_function
from sparring.check._safety import NotApplicable, Unscored
from sparring.check.functions._common import conversation_of, note, quoted
from sparring.confirmation import GivenValue, given_values, is_confirmation
from sparring.conversations import ConversationRecord, Turn
from sparring.dialogue_acts import classify_dialogue_act
from sparring.profiles import is_placeholder

_VARIABLE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_ANSWERS = ("inform", "confirmation")
_SILENT = "no reply followed"


def _reply_after(turns: Sequence[Turn], index: int) -> tuple[int, Turn] | None:
    return next(((i, t) for i, t in enumerate(turns) if i > index and t.role == "assistant"), None)


def _asked_before(turns: Sequence[Turn], index: int) -> Turn | None:
    return next((t for t in reversed(turns[:index]) if t.role == "assistant"), None)


def _taken(turns: Sequence[Turn], said: list[int]) -> tuple[bool, str]:
    """Whether the chatbot took a value said at any of the user turns ``said``: its next
    reply is no fallback and no repeat of the question; else the reply that refused it."""
    refusal = ""
    for index in said:
        found = _reply_after(turns, index)
        if found is None:
            return False, _SILENT
        _, reply = found
        question = _asked_before(turns, index)
        repeated = question is not None and reply.text.strip() == question.text.strip()
        act = reply.dialogue_act or classify_dialogue_act(reply.text)
        if act != "fallback" and not repeated:
            return True, ""
        refusal = f"the chatbot replied {quoted(reply.text)}"
    return False, refusal


def _steps(record: ConversationRecord) -> list[tuple[str, list[str]]]:
    """The goals as steps: (template, the variables it names that have a value)."""
    steps = []
    for template in record.goal_templates or record.goals:
        names = _VARIABLE.findall(str(template))
        steps.append((str(template), [n for n in names if record.variables.get(n) is not None]))
    return steps


class _Stop(NamedTuple):
    """Where a task stopped: the sentence naming the step, its turns, and whether the
    chatbot is shown at fault (it refused a value it offered itself, or stopped replying)."""

    reason: str
    turns: list[int]
    chatbot_at_fault: bool


def _stopped(record: ConversationRecord, stated: frozenset[str] = frozenset()) -> _Stop | int:
    """Where the task stopped, or the turn of the confirmation or answer that completed it.
    A confirmation after the last value the user gave completes the task even if a step's
    value was said otherwise ("marinara" for "marinera"); an answer completes it only when
    every step was taken."""
    turns = record.turns
    values = {
        name: value
        for name, value in record.variables.items()
        if value is not None and not (isinstance(value, str) and is_placeholder(value))
    }
    given = {g.slot: g for g in given_values(turns, values, refused=True)}
    last = max((g.turn or 0 for g in given.values()), default=0)
    acts = [t.dialogue_act or classify_dialogue_act(t.text) for t in turns]
    after = [
        i
        for i in range(last + 1, len(turns))
        if turns[i].role == "assistant" and acts[i] != "fallback"
    ]
    confirmed = [i for i in after if is_confirmation(turns[i].text, acts[i])]
    if confirmed:
        return confirmed[0]
    problem = _first_problem(record, values, given, stated)
    if problem is not None:
        return problem
    answered = [i for i in after if acts[i] in _ANSWERS]
    if answered:
        return answered[0]
    found = _reply_after(turns, last)
    if found is None:
        return _Stop(
            f"no confirmation or answer after turn {last}: no reply followed", [last], True
        )
    offered = any(g.options and g.turn == last for g in given.values())
    refused = acts[found[0]] == "fallback" and offered
    reason = (
        f"no confirmation or answer after turn {last}: the chatbot replied {quoted(found[1].text)}"
    )
    return _Stop(reason, [last], refused)


def _first_problem(
    record: ConversationRecord,
    values: dict[str, Any],
    given: dict[str, GivenValue],
    stated: frozenset[str] = frozenset(),
) -> _Stop | None:
    """The first step whose value the user never gave or the chatbot did not take. The
    chatbot is at fault for refusing a value it offered or one in its own words
    (``stated``, lower case)."""
    turns = record.turns
    for template, names in _steps(record):
        for name in names:
            said = quoted(str(record.variables[name]))
            if name not in values:
                reason = f"step {template!r}: its value {said} is a placeholder"
                return _Stop(reason + ", so the user had nothing to say", [], False)
            if name not in given:
                reply = _asked_before(turns, len(turns))
                where = f"; the chatbot's last reply: {quoted(reply.text)}" if reply else ""
                return _Stop(f"step {template!r}: the user never gave {said}{where}", [], False)
            turn = given[name].turn or 0
            again = [i for i in range(turn + 1, len(turns)) if _says(turns[i], given[name].value)]
            ok, refusal = _taken(turns, [turn, *again])
            if not ok:
                reason = f"step {template!r} (turn {turn}): not taken — {refusal}"
                own = str(record.variables[name]).strip().lower() in stated
                if own:
                    reason += f" ({said} is in the chatbot's own words: a confirmation stated it)"
                silent = refusal == _SILENT
                return _Stop(reason, [turn], silent or own or bool(given[name].options))
    return None


def _says(turn: Turn, value: str | Sequence[str]) -> bool:
    items = [value] if isinstance(value, str) else list(value)
    text = turn.text.lower()
    return turn.role == "user" and all(str(item).lower() in text for item in items)


@rule_function("task_steps_missing")
def task_steps_missing(context: FunctionContext, stated: Sequence[str] = ()) -> list[str]:
    """The step of the profile's task that did not happen, as one sentence naming the step
    (its goal), the 0-based turn and the chatbot's reply there; an empty list (falsy) when
    the chatbot confirmed or answered (module docstring).

    A stop fails only when the chatbot is shown at fault: it refused a value it had just
    offered as an option, or a value in its own words (``stated``: values the chatbot
    itself wrote, such as a date its confirmation stated in the exploration; explore's
    ``Parameter.stated``), or stopped replying. Otherwise (a placeholder value, a value the
    user never gave, a value the profile made up and the chatbot refused, a chatbot asking
    for more than the profile holds) it raises ``Unscored`` naming the step: the profile or
    the simulated user may be at fault. Raises ``NotApplicable`` without goals."""
    record = conversation_of(context, "task_steps_missing")
    if not (record.goal_templates or record.goals):
        raise NotApplicable("the profile has no goals")
    stopped = _stopped(record, frozenset(str(v).strip().lower() for v in stated))
    if isinstance(stopped, int):
        reason = f"the chatbot confirmed or answered at turn {stopped}"
        note(context, "task_steps_missing", reason=reason, turns=[stopped])
        return []
    if not stopped.chatbot_at_fault:
        raise Unscored(f"the task stopped: {stopped.reason} (cannot tell whether the chatbot, "
                       "the profile or the simulated user is at fault)")  # fmt: skip
    note(context, "task_steps_missing", reason=stopped.reason, turns=stopped.turns)
    return [stopped.reason]
