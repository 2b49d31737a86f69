"""What the typed breakdown detectors read of one conversation (``DialogueView``), and the
readings they share: what a chatbot's question asks for (``asked_kind``), how a user turn
answers it (``answers``), the options a turn offers (``offered``), its last question, crude
stems, and whether the dialogue is a task bot's (``DialogueView.task_oriented``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, Turn, crash_turns
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act, offered_options
from sparring.evaluate._features import answers_yes_no, content_words, is_yes_no_question
from sparring.fallback import FallbackConfig, is_fallback
from sparring.similarity import indel_similarity, normalize_text
from sparring.types import SENSEI_BUTTONS_HEADER
from sparring.values import find_values

_COLON_LIST = re.compile(r":\s*([^:.?!]+(?:,|\bor\b)[^:.?!]+)[.?!]?\s*$")
_LIST_SPLIT = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+")
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:tell me|give me|provide|enter|type|specify|choose|select|pick)\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.IGNORECASE)
_POLAR_ACTS = frozenset(
    {DialogueAct.YES_NO_QUESTION, DialogueAct.CONFIRMATION, DialogueAct.CLOSING_QUESTION}
)
TASK_ACTS = frozenset({DialogueAct.OFFER, DialogueAct.CONFIRMATION, DialogueAct.CLOSING_QUESTION})
"""Dialogue acts only a task bot performs (``DialogueView.task_oriented``)."""
_ACKNOWLEDGE = re.compile(
    r"^\s*(?:ok(?:ay)?|great|perfect|fine|thanks?|thank you|no thanks|nothing else|"
    r"that's (?:all|it)|good)\b",
    re.IGNORECASE,
)
ASKED_KIND: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:e-?mail)\b", re.I), "email"),
    (re.compile(r"\b(?:phone|telephone|mobile) (?:number)?\b", re.I), "phone"),
    (re.compile(r"\bwhat time\b|\bat what time\b|\btime (?:would|do|should)\b", re.I), "time"),
    (re.compile(r"\b(?:date|day|when)\b", re.I), "date"),
    (re.compile(r"\bhow many\b|\bnumber of\b", re.I), "int"),
    (re.compile(r"\bbudget\b|\bhow much\b", re.I), "money"),
)
"""What a chatbot's question asks for, read lexically, as a value kind of
``sparring.values`` (the first that matches)."""


@dataclass
class DialogueView:
    """What the typed detectors read of one conversation: ``roles`` and ``texts`` (what
    each turn said: its messages, without SENSEI's button block), ``buttons`` per turn,
    the chatbot's ``fallback`` configuration and its ``domain`` words (name, description,
    task), and ``today`` for relative dates."""

    roles: list[str]
    texts: list[str]
    buttons: list[list[str]]
    fallback: FallbackConfig
    domain: set[str]
    crashes: dict[int, str] = field(default_factory=dict)
    today: date = field(default_factory=date.today)
    kind: str | None = None
    failed_near: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, record: ConversationRecord, chatbot: ChatbotInfo) -> DialogueView:
        """The view of ``record`` for the chatbot ``chatbot`` (its ``info``)."""
        about = " ".join(x for x in (chatbot.name, chatbot.description, chatbot.task) if x)
        return cls(
            roles=[t.role for t in record.turns],
            texts=[said(t) for t in record.turns],
            buttons=[[b.text for b in t.buttons] for t in record.turns],
            fallback=FallbackConfig.of(chatbot.fallback, record.fallback),
            domain=stems(about),
            crashes=crash_turns(record),
            kind=chatbot.type,
            failed_near={e.turn for e in record.errors if e.turn is not None},
        )

    @cached_property
    def task_oriented(self) -> bool:
        """Whether the chatbot serves a task: its declared ``type`` (chatbot.yaml), else
        read from the dialogue — a chatbot turn shows buttons, offers options, asks to
        confirm, asks the closing question of a task ("Anything else?") or asks for a
        value of a kind (a date, a time, a number, an e-mail…). Measured
        (``benchmarks/bench_typed_breakdowns.py``): 80 % of DBDC3's chat dialogues read as
        chit-chat, 79 % of the task-bot conversations and 86 % of ChatChecker's study-goal
        dialogues as task-oriented."""
        if self.kind is not None:
            return self.kind == "task-oriented"
        return any(self._task_turn(i) for i, r in enumerate(self.roles) if r == "assistant")

    def _task_turn(self, i: int) -> bool:
        act = self.act(i)
        if self.buttons[i] or act in TASK_ACTS:
            return True
        return act is DialogueAct.REQUEST and any(p.search(self.texts[i]) for p, _ in ASKED_KIND)

    def silent(self, i: int) -> bool:
        """Chatbot turn ``i`` said nothing, and no failure was recorded at it or at the
        user turn before it (an empty reply, not a 500/504)."""
        return not self.texts[i].strip() and not {i, i - 1} & self.failed_near

    def user_before(self, i: int) -> int | None:
        """The user turn right before chatbot turn ``i`` (none when a chatbot turn is
        between them)."""
        j = i - 1
        return j if j >= 0 and self.roles[j] == "user" else None

    def bot_before(self, i: int) -> int | None:
        """The chatbot turn before turn ``i`` (``None`` at the start)."""
        return next((j for j in range(i - 1, -1, -1) if self.roles[j] == "assistant"), None)

    @cached_property
    def fallbacks(self) -> dict[int, bool]:
        """Whether each chatbot turn is the fallback."""
        return {
            i: is_fallback(t, self.fallback) is not None
            for i, t in enumerate(self.texts)
            if self.roles[i] == "assistant"
        }

    def echo(self, i: int) -> float:
        """How much chatbot turn ``i`` repeats an earlier chatbot reply: the largest indel
        similarity (0..1) to one, 0 at the first."""
        earlier = [self.texts[j] for j in range(i) if self.roles[j] == "assistant"]
        return max((indel_similarity(self.texts[i], t) for t in earlier), default=0.0)

    def act(self, i: int) -> DialogueAct:
        """The dialogue act of chatbot turn ``i`` (``sparring.dialogue_acts``)."""
        return classify_dialogue_act(self.texts[i], self.buttons[i], fallback=self.fallbacks[i])


def said(turn: Turn) -> str:
    """What a turn said: its messages joined, else its text without SENSEI's rendering of
    the buttons."""
    if turn.messages:
        return " ".join(turn.messages)
    return turn.text.split(SENSEI_BUTTONS_HEADER, 1)[0].strip()


_SUFFIXES = ("ings", "ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A crude stem: an inflection stripped, then the first six letters ("bookings",
    "booking", "books" and "booked" share one)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:6]


def stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def answers(view: DialogueView, question: int, answer: int) -> str | None:
    """How user turn ``answer`` answers chatbot turn ``question``'s question, else
    ``None``: one of the options offered, a value of the kind asked, a yes/no."""
    asked, reply = view.texts[question], view.texts[answer]
    low = normalize_text(reply)
    for option in offered(view, question):
        wanted = normalize_text(option)
        if wanted and re.search(rf"\b{re.escape(wanted)}\b", low):
            return f"one of the options offered ({option!r})"
    kind = asked_kind(asked)
    if kind is not None and (find_values(kind, reply, view.today) or _weekday(kind, reply)):
        return f"a {kind} as asked"
    polar = is_yes_no_question(asked) or view.act(question) in _POLAR_ACTS
    if polar and (answers_yes_no(reply) or _ACKNOWLEDGE.match(reply)):
        return f"an answer to its yes/no question ({reply.strip()!r})"
    return None


def asked_kind(question: str) -> str | None:
    """The kind of value (``sparring.values``) a chatbot's question asks for, read
    lexically (``ASKED_KIND``), else ``None``."""
    return next((k for p, k in ASKED_KIND if p.search(question)), None)


def _weekday(kind: str, text: str) -> bool:
    """A bare weekday ("Friday") answers a question for a date."""
    return kind == "date" and _WEEKDAY.search(text) is not None


def offered(view: DialogueView, i: int) -> list[str]:
    """The options chatbot turn ``i`` offers (``offered_options``), or the list after a
    colon in its last sentence ("Please choose a ticket type: one way, round trip or
    multi-city trip.")."""
    options = offered_options(view.texts[i], view.buttons[i])
    if options:
        return options
    listed = _COLON_LIST.search(view.texts[i])
    if listed is None:
        return []
    items = [p.strip(" .'\"") for p in _LIST_SPLIT.split(listed.group(1))]
    return items if len(items) >= 2 and all(0 < len(p.split()) <= 4 for p in items) else []


def names_option(text: str, option: str) -> bool:
    wanted = normalize_text(option)
    return bool(wanted) and re.search(rf"\b{re.escape(wanted)}\b", normalize_text(text)) is not None


_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_]|[*_](?!\w)")
"""Markdown emphasis marks (``**Now, what's your goal?**``): not part of the sentence."""


def last_question(text: str) -> str:
    """The last sentence of ``text`` that asks: a question, or a request ("Please
    choose…")."""
    plain = _EMPHASIS.sub("", text)
    sentences = [s.strip() for s in re.split(r"(?<=[.?!])\s+|\n+", plain) if s.strip()]
    asking = [s for s in sentences if s.endswith("?") or _REQUEST.match(s)]
    return asking[-1] if asking else ""
