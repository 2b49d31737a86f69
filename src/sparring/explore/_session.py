"""One exploration conversation, recorded as an ordinary run record, and what every
exploration strategy is given (``ExplorationContext``).

Both strategies talk to the chatbot only through ``Session``: it opens a dialogue, sends
user utterances, keeps the turns with their latencies and buttons, turns a chatbot failure
into a recorded error instead of an exception, and writes the conversation to the run
(``RunStore.write``) when it ends, so that check, report and every later job read
exploration conversations like simulated ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType

from sparring.connectors import ChatbotInfo, Connector, Conversation, Reply, greeting_of
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    ErrorCode,
    FailureCause,
    RunStore,
    Turn,
    reply_turn,
)
from sparring.errors import ChatbotFailure
from sparring.explore._model import ExplorationModel
from sparring.explore._replay import ReplayedConversation
from sparring.types import ModelUsage, Strategy


@dataclass
class Findings:
    """What probing learnt before the sessions: the languages the bot answers in (ISO
    639-1 codes), its fallback message (``None`` when none was seen), and its greeting."""

    languages: list[str] = field(default_factory=list)
    fallback: str | None = None
    greeting: str | None = None
    strategy: Strategy = Strategy.OFFLINE


@dataclass
class ExplorationContext:
    """What an exploration strategy gets from the job.

    ``sessions`` and ``turns`` are the limits (conversations; user turns per
    conversation); ``seed`` makes choices reproducible; ``findings`` come from probing;
    ``checkpoint`` saves a partial model (called after every session so an interruption
    keeps what was learnt); ``usage`` collects model tokens and cost per module;
    ``seeds`` are utterances to try from the start with the evidence for each (the bot's
    definition, its help pages); ``values_for(question)`` values the definition gives for a
    question the bot asks (its form slot's examples); ``replays`` are the sessions a stopped
    run stored, by record id, played again from their records on resume (``_replay``);
    ``stopping()`` is true once the job was asked to stop (strategies start no session
    after that); ``ended(record_id, ok)`` is told of every session as it ends.
    """

    connector: Connector
    store: RunStore
    info: ChatbotInfo
    sessions: int
    turns: int
    seed: int = 0
    findings: Findings = field(default_factory=Findings)
    checkpoint: Callable[[ExplorationModel], None] = lambda model: None
    usage: dict[str, ModelUsage] = field(default_factory=dict)
    reply_timeout: float = 30.0
    seeds: list[tuple[str, str]] = field(default_factory=list)
    values_for: Callable[[str | None], list[str]] = lambda question: []
    replays: dict[str, ConversationRecord] = field(default_factory=dict)
    stopping: Callable[[], bool] = lambda: False
    ended: Callable[[str, bool], None] = lambda record_id, ok: None

    def session(self, name: str, strategy: Strategy) -> Session:
        """A new recorded session called ``name`` (its record id: ``explore/<name>``)."""
        return Session(self, name, strategy)


class Session:
    """An exploration conversation: ``async with ctx.session("s1", …) as s: await
    s.send("hi")``. ``send`` returns the chatbot's ``Reply``, or ``None`` once the bot has
    failed (crash, timeout, unreadable payload: recorded as the record's error, the
    session ends). The record is written when the block exits, whatever happened."""

    def __init__(self, ctx: ExplorationContext, name: str, strategy: Strategy) -> None:
        self.ctx = ctx
        self.name = name
        self.strategy = strategy
        self.turns: list[Turn] = []
        self.errors: list[ConversationError] = []
        self.notes: list[str] = []
        self.greeting: Reply | None = None
        self._conversation: Conversation | None = None
        self._started = datetime.now(UTC)

    @property
    def id(self) -> str:
        """The record id: ``explore/<name>``."""
        return f"explore/{self.name}"

    @property
    def failed(self) -> bool:
        """The chatbot failed in this session; ``send`` no longer talks to it."""
        return bool(self.errors)

    async def __aenter__(self) -> Session:
        stored = self.ctx.replays.pop(self.id, None)
        try:
            self._conversation = (
                ReplayedConversation(stored, self.ctx.connector)
                if stored is not None
                else await self.ctx.connector.open()
            )
        except ChatbotFailure as exc:
            self._fail(exc)
            return self
        self.greeting = greeting_of(self._conversation)
        if self.greeting is not None and (self.greeting.messages or self.greeting.buttons):
            self.turns.append(self._bot_turn(self.greeting))
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._conversation is not None:
            await self._conversation.close()
        if kind is not None and not isinstance(exc, Exception):
            self.notes.append("interrupted")
        conversation = self._conversation
        if not isinstance(conversation, ReplayedConversation) or conversation.live:
            self.ctx.store.write(self.record())  # a session played again keeps its record
        self.ctx.ended(self.id, not self.failed)

    async def send(self, text: str) -> Reply | None:
        """Send ``text``; the reply, or ``None`` when the bot failed now or before."""
        if self._conversation is None or self.failed:
            return None
        self.turns.append(Turn(role="user", text=text, timestamp=datetime.now(UTC)))
        try:
            reply = await self._conversation.send(text)
        except ChatbotFailure as exc:
            self._fail(exc)
            return None
        self.turns.append(self._bot_turn(reply))
        return reply

    @property
    def user_turns(self) -> int:
        """User utterances sent so far."""
        return sum(1 for t in self.turns if t.role == "user")

    def record(self) -> ConversationRecord:
        """The session as a run record (profile ``explore``, simulator = the strategy)."""
        ended = datetime.now(UTC)
        return ConversationRecord(
            id=self.id,
            profile="explore",
            simulator=f"explore-{self.strategy.value}",
            fallback=self.ctx.findings.fallback,
            turns=list(self.turns),
            errors=list(self.errors),
            notes=list(self.notes),
            started_at=self._started,
            ended_at=ended,
            duration=(ended - self._started).total_seconds(),
        )

    def _fail(self, exc: ChatbotFailure) -> None:
        code = ErrorCode.TIMEOUT if exc.code == ErrorCode.TIMEOUT else ErrorCode.NO_RESPONSE
        self.errors.append(
            ConversationError(
                code=code,
                message=str(exc),
                turn=len(self.turns),
                cause=FailureCause(exc.cause),
            )
        )

    def _bot_turn(self, reply: Reply) -> Turn:
        self.notes.extend(n for n in reply.notes if n not in self.notes)
        return reply_turn(reply)
