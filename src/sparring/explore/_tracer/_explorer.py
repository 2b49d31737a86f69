"""The explorer: one exploration session in which the model plays a human user.

After TRACER ``conversation/session.py`` (Sotillo del Horno, 2025, ch. 4): one message
at a time; offered options picked verbatim (an option the model writes in other case or
with quotes is sent as the chatbot spelt it); after a fallback the message is rephrased
and sent again once, and when that fails too (or two fallbacks come in a row) the next
turn is told to abandon the topic; the model may end the session (``done``).

What TRACER does not do: the explorer must never impersonate the chatbot. A message
labelled as the bot's, repeating the bot's words, or using the bot's stock phrases ("How
can I help you?") is detected, counted (session notes, ``Outcome.impersonations``) and
asked for again with a correction, at most ``MAX_CORRECTIONS`` times; then the session
ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sparring.connectors import Reply
from sparring.conversations import Turn
from sparring.explore._model import Functionality
from sparring.explore._session import ExplorationContext, Session
from sparring.explore._tracer import _prompts as prompts
from sparring.explore._tracer._calls import STEP_MARKER, Asker, StepFailed
from sparring.explore._tracer._nodes import same_option, similarity, verbatim
from sparring.explore._tracer._schemas import ExplorerTurn, Rephrasing
from sparring.fallback import FallbackConfig, is_fallback
from sparring.types import Strategy

MAX_CORRECTIONS = 2
"""Times an impersonating message is asked for again before the session ends."""

HISTORY_MESSAGES = 20
"""Conversation messages the explorer sees besides its system prompt (TRACER: 10 turns)."""

FALLBACKS_BEFORE_ABANDON = 2
"""Fallbacks in a row after which the explorer is told to change topic."""

_BOT_LABEL = re.compile(r"^\s*(chatbot|assistant|bot|agent|system)\s*:", re.IGNORECASE)
_USER_LABEL = re.compile(r"^\s*(user|me|customer)\s*:\s*", re.IGNORECASE)
_BOT_PHRASES = re.compile(
    r"how (can|may) i (help|assist)|what can i do for you|anything else i can"
    r"|i can help you with|welcome to|thank you for (contacting|choosing|your order)"
    r"|available buttons|your order id is",
    re.IGNORECASE,
)


def impersonation(message: str, bot_messages: list[str], offered: list[str]) -> str | None:
    """Why ``message`` reads like the chatbot's (``None`` when it reads like a user's):
    a bot label, a repetition of one of the bot's last messages, or a bot stock phrase.
    Picking an ``offered`` option is never impersonation."""
    if same_option(message, offered):
        return None
    if _BOT_LABEL.match(message):
        return "it is labelled as the chatbot's"
    if len(message.split()) >= 4:
        for said in bot_messages[-3:]:
            if similarity(message, said) >= 0.8:
                return "it repeats the chatbot's message"
    phrase = _BOT_PHRASES.search(message)
    if phrase:
        return f"{phrase.group(0)!r} is what the chatbot says"
    return None


def _clean(message: str) -> str:
    text = _USER_LABEL.sub("", message.strip())
    return text.strip().strip("\"'").strip()


@dataclass
class Outcome:
    """A finished session: its record id, ``turns`` as recorded, the focus it explored,
    whether the chatbot failed (``bot_error``) or the model did (``failure``: the session
    stopped there), and telemetry."""

    name: str
    record_id: str
    focus: Functionality | None
    turns: list[Turn]
    bot_error: str | None = None
    failure: StepFailed | None = None
    impersonations: int = 0
    fallbacks: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def user_turns(self) -> int:
        """User messages sent in the session."""
        return sum(1 for t in self.turns if t.role == "user")

    @property
    def answered(self) -> bool:
        """The chatbot answered at least one user message."""
        users = 0
        for turn in self.turns:
            if turn.role == "user":
                users += 1
            elif users:
                return True
        return False


class Explorer:
    """Runs sessions against ``ctx``'s chatbot with ``asker``'s model. ``fallbacks`` are
    the known fallback messages (a reply similar to one is a fallback); ``languages`` the
    bot's ISO 639-1 codes."""

    def __init__(
        self, ctx: ExplorationContext, asker: Asker, fallbacks: list[str], languages: list[str]
    ) -> None:
        self.ctx = ctx
        self.asker = asker
        self.fallbacks = fallbacks
        self.languages = languages

    def is_fallback(self, reply: Reply) -> bool:
        """The reply is the fallback (``sparring.fallback``: a known fallback message or a
        generic one)."""
        said = "\n".join(reply.messages)
        return is_fallback(said, FallbackConfig(tuple(self.fallbacks))) is not None

    async def run(
        self, name: str, focus: Functionality | None, known: list[Functionality]
    ) -> Outcome:
        """Explore in the session ``explore/<name>``: branch exploration of ``focus``, or
        general exploration (``known`` are the functionalities found so far).

        A model failure ends the session and is returned as ``Outcome.failure`` (the
        session's record is written either way)."""
        topic = prompts.branch_focus(focus) if focus else prompts.general_focus(known)
        system = f"{STEP_MARKER} explorer\n" + prompts.explorer_system(
            topic, self.languages, self.ctx.turns
        )
        async with self.ctx.session(name, Strategy.LLM) as session:
            outcome = Outcome(name, session.id, focus, [])
            try:
                await self._converse(session, system, outcome)
            except StepFailed as exc:
                outcome.failure = exc
            finally:
                outcome.turns = list(session.turns)
                outcome.notes.extend(session.notes)
                if session.errors:
                    outcome.bot_error = session.errors[0].message
        return outcome

    async def _converse(self, session: Session, system: str, outcome: Outcome) -> None:
        history: list[dict[str, str]] = []
        last = session.greeting
        if last is not None and last.text:
            history.append({"role": "user", "content": last.text})
        instruction: str | None = None
        failures = 0
        while session.user_turns < self.ctx.turns and not session.failed:
            message = await self._next(system, history, instruction, last, session, outcome)
            instruction = None
            if message is None:
                return
            reply = await self._send(session, history, message)
            if reply is None:
                return
            if not self.is_fallback(reply):
                failures, last = 0, reply
                continue
            failures += 1
            outcome.fallbacks += 1
            if session.user_turns < self.ctx.turns and failures < FALLBACKS_BEFORE_ABANDON:
                retry = await self._rephrase(session, history, message, reply)
                if retry is None:
                    return
                if not self.is_fallback(retry):
                    failures, last = 0, retry
                    continue
                failures += 1
                outcome.fallbacks += 1
            session.notes.append(f"topic abandoned after {failures} fallbacks")
            instruction = prompts.ABANDON.format(count=failures)
            last = reply

    async def _send(
        self, session: Session, history: list[dict[str, str]], message: str
    ) -> Reply | None:
        history.append({"role": "assistant", "content": message})
        reply = await session.send(message)
        if reply is not None:
            history.append({"role": "user", "content": reply.text})
        return reply

    async def _rephrase(
        self, session: Session, history: list[dict[str, str]], message: str, reply: Reply
    ) -> Reply | None:
        ask = [
            {"role": "system", "content": f"{STEP_MARKER} rephrase\n{prompts.REPHRASE}"},
            {"role": "user", "content": prompts.rephrase_user(message, reply.text)},
        ]
        new = await self.asker.ask("rephrase", session.name, ask, Rephrasing)
        text = _clean(new.message)
        if not text or text.lower() == message.lower():
            text = message
        session.notes.append(f"rephrased after a fallback: {message!r} -> {text!r}")
        return await self._send(session, history, text)

    async def _next(
        self,
        system: str,
        history: list[dict[str, str]],
        instruction: str | None,
        last: Reply | None,
        session: Session,
        outcome: Outcome,
    ) -> str | None:
        """The explorer's next message (options snapped to the bot's spelling), or
        ``None`` when it is done or kept impersonating the chatbot."""
        messages = [{"role": "system", "content": system}, *history[-HISTORY_MESSAGES:]]
        if not history or history[-1]["role"] == "assistant":
            messages.append({"role": "user", "content": prompts.FIRST_MESSAGE})
        if instruction:
            messages.append({"role": "user", "content": instruction})
        offered = [b.text for b in last.buttons] if last else []
        bot_said = [m for t in session.turns if t.role == "assistant" for m in t.messages]
        for _ in range(MAX_CORRECTIONS + 1):
            turn = await self.asker.ask("explorer", session.name, messages, ExplorerTurn)
            text = _clean(turn.message)
            if turn.done or not text:
                return None
            why = impersonation(text, bot_said, offered)
            if why is None:
                return self._snap(text, offered, last)
            outcome.impersonations += 1
            session.notes.append(f"impersonation corrected at user turn {session.user_turns + 1}")
            messages += [
                {"role": "assistant", "content": turn.message},
                {"role": "user", "content": prompts.CORRECTION.format(why=why, message=text)},
            ]
        session.notes.append("session ended: the explorer kept writing as the chatbot")
        return None

    @staticmethod
    def _snap(text: str, offered: list[str], last: Reply | None) -> str:
        """An offered option as the bot spelt it (buttons, or a short phrase found in the
        bot's last message)."""
        option = same_option(text, offered)
        if option is not None:
            return option
        if last is not None and len(text.split()) <= 4:
            return verbatim(text, [], list(last.messages))
        return text
