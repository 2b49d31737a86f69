"""The answer-type oracle: a question whose answer is a time of day or an amount of money
gets a reply that carries one, or at least speaks of what was asked.

The expected answer type of a question comes from its wording ("What are your opening
hours?" → a time, "How much does a filling cost?" → money), as question classifiers
assign coarse answer types (Li and Roth, "Learning Question Classifiers", COLING 2002,
§2: NUM:money, NUM:date…); answer validation then rejects a reply with no value of that
type (Moldovan et al., "Performance Issues and Error Analysis in an Open-Domain Question
Answering System", 2003, §3: the answer-type check). Here the reply is the chatbot's
turn right after the user's question. Verdicts, per question:

- **fails** when the reply is an answer (no fallback, no question back) that carries no
  value of the expected type (``sparring.values.find_values``: clock times, money; "noon"
  and "o'clock" count as a time, "free" and "no charge" as an amount) *and* names no word
  of the question's topic ("If your card is lost…" for the opening hours): the chatbot
  answered something else;
- **unscored** when the reply names the topic without a typed value ("We are open around
  the clock"): it may answer in words this oracle cannot type;
- nothing to judge (the user asked no question of a known type, or the chatbot fell back,
  asked back or said it does not know: the user's phrasing may be at fault) is *not
  applicable*.

Strategy: offline (a lexicon of question cues per answer type, typed value extraction).
Its precision is measured on labelled items (``benchmarks/bench_judges.py --judge
answer_type_missing``, ``sparring.precision.MEASURED``) and on the test bots
(``benchmarks/bench_correct_bots.py``, issue 31).
"""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from sparring.check._context import FunctionContext, rule_function
from sparring.check._safety import NotApplicable, Unscored
from sparring.check.functions._common import conversation_of, note, quoted
from sparring.conversations import Turn
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act
from sparring.precision import precision_note
from sparring.values import find_values


class AnswerType(NamedTuple):
    """An expected answer type: its ``name``, the value ``kind`` (``sparring.values``),
    the question ``cue`` that expects it, the ``topic`` word stems that show a reply speaks
    of it, and ``words`` that state such a value without a number ("free")."""

    name: str
    kind: str
    cue: re.Pattern[str]
    topic: tuple[str, ...]
    words: re.Pattern[str] | None = None


ANSWER_TYPES: tuple[AnswerType, ...] = (
    AnswerType(
        "time",
        "clock",
        re.compile(
            r"\b(?:opening hours|hours|what time"
            r"|when (?:are|is|do|does) (?:\w+ ){1,3}(?:open|close))\b",
            re.I,
        ),
        ("open", "hour", "clos", "time"),
        re.compile(r"\b(?:o'?clock|noon|midday|midnight)\b", re.I),
    ),
    AnswerType(
        "money",
        "money",
        re.compile(r"\b(?:how much|prices?|costs?|fees?|charges?)\b", re.I),
        ("price", "cost", "fee", "charg", "pay", "much", "rate"),
        re.compile(
            r"\b(?:free|no charge|free of charge|at no cost|included|complimentary)\b", re.I
        ),
    ),
)
"""The answer types judged: a time of day for opening hours, money for prices and fees."""

_REFUSED = (
    DialogueAct.FALLBACK,
    DialogueAct.REQUEST,
    DialogueAct.YES_NO_QUESTION,
    DialogueAct.OFFER,
)


_QUESTION = re.compile(
    r"\?|(?:^|[.!]\s+)(?:what|when|how|which|where|can|could|do|does|is|are|tell)\b", re.I
)
_KEYWORDS = 4
"""A request of at most this many words ("opening hours", "your fees") is a question."""
_ABSTAINS = re.compile(
    r"\b(?:i don'?\s?t know|i do not know|not sure|i can'?\s?t (?:answer|say|tell)|no idea)\b",
    re.I,
)
"""A reply that says it does not know: an abstention, not an answer to something else."""


def expected_type(question: str) -> AnswerType | None:
    """The answer type ``question`` expects, or ``None`` (not a question — no question
    mark, no question word, more than ``_KEYWORDS`` words — or not of a known type)."""
    if not (_QUESTION.search(question) or len(question.split()) <= _KEYWORDS):
        return None
    return next((t for t in ANSWER_TYPES if t.cue.search(question)), None)


class Judgement(NamedTuple):
    """One question judged: the user's ``turn`` (0-based), the expected ``type``, and
    ``outcome``: ``"typed"`` (a value of the type), ``"topic"`` (the topic without a
    value: unscored) or ``"off"`` (neither: fails); ``reason`` quotes both turns."""

    turn: int
    type: str
    outcome: str
    reason: str


def judge_answers(turns: list[Turn]) -> list[Judgement]:
    """Every user question of a known answer type in ``turns`` that the chatbot answered
    (its next turn no fallback and no question back), judged (module docstring)."""
    out = []
    for index, turn in enumerate(turns):
        wanted = expected_type(turn.text) if turn.role == "user" else None
        reply = next((t for t in turns[index + 1 :] if t.role == "assistant"), None)
        if wanted is None or reply is None or not reply.text.strip():
            continue
        act = reply.dialogue_act or classify_dialogue_act(reply.text)
        if act in _REFUSED or _ABSTAINS.search(reply.text):
            continue
        out.append(
            Judgement(
                index, wanted.name, _outcome(wanted, reply.text), _reason(turn, reply, wanted)
            )
        )
    return out


def _outcome(wanted: AnswerType, reply: str) -> str:
    if find_values(wanted.kind, reply, date.today()) or (
        wanted.words and wanted.words.search(reply)
    ):
        return "typed"
    words = re.findall(r"[a-z]+", reply.lower())
    return "topic" if any(w.startswith(wanted.topic) for w in words) else "off"


def _reason(question: Turn, reply: Turn, wanted: AnswerType) -> str:
    return (f"the user asked {quoted(question.text)}, which expects a {wanted.name}; "
            f"the chatbot replied {quoted(reply.text)}")  # fmt: skip


@rule_function("answer_type_missing")
def answer_type_missing(context: FunctionContext) -> list[str]:
    """The user's questions of a known answer type (a time of day, money) whose answer
    carries no value of that type and speaks of something else, one sentence each quoting
    the question and the reply; an empty list (falsy) when every such question got a value
    of its type (module docstring). Raises ``Unscored`` when a reply speaks of the topic
    without a value it can read, ``NotApplicable`` when no such question was answered."""
    record = conversation_of(context, "answer_type_missing")
    judged = judge_answers(list(record.turns))
    if not judged:
        raise NotApplicable("no question expecting a time or an amount was answered")
    off = [j for j in judged if j.outcome == "off"]
    if off:
        reasons = [f"turn {j.turn + 1}: {j.reason}, with no {j.type} and not about it" for j in off]
        reason = f"{reasons[0]} {precision_note('answer_type_missing', 'fail')}"
        note(context, "answer_type_missing", reason=reason, turns=[j.turn + 1 for j in off])
        return reasons
    vague = [j for j in judged if j.outcome == "topic"]
    if vague:
        raise Unscored(f"turn {vague[0].turn + 1}: {vague[0].reason}: about the topic, with "
                       f"no {vague[0].type} this oracle can read")  # fmt: skip
    note(
        context,
        "answer_type_missing",
        reason=f"{len(judged)} question(s) got a value of their type",
    )
    return []
