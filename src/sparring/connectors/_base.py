"""The connector contract: how sparring talks to a chatbot under test.

A connector is created from its ``params`` (the ``params:`` block of ``chatbot.yaml``) and
opens one ``Conversation`` per simulated dialogue. ``send`` returns a ``Reply`` or raises
a ``sparring.errors.ChatbotFailure`` subclass (``ChatbotCrash``, ``ChatbotTimeout``,
``BadPayload``); the runner records the failure and goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from sparring._redact import known_values, redact_known
from sparring.connectors._boundary import (
    DEFAULT_LIMITS,
    DEFAULT_MAX_REPLY_BYTES,
    ReplyLimits,
    check_shape,
    guard_reply,
)
from sparring.connectors._reply import Reply
from sparring.connectors._secrets import Redactor
from sparring.errors import BadPayload, ChatbotFailure, ChatbotTimeout

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")
logger = logging.getLogger(__name__)


class ConnectorParams(BaseModel):
    """Base of every connector's parameter model; unknown keys are an error."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    timeout: float = Field(default=20.0, gt=0)
    """Seconds to wait for one reply before recording a timeout (code 504)."""
    requests_per_minute: float | None = Field(default=None, gt=0)
    """Most user messages per minute to this chatbot, shared by all its conversations
    (pacing for public bots); unset: no pacing."""
    max_reply_bytes: int = Field(default=DEFAULT_MAX_REPLY_BYTES, gt=0)
    """Largest reply accepted, in bytes of an HTTP body (characters of an in-process bot's
    answer): a larger one is read no further and recorded as a failure (code 500, cause
    ``too_large``). Default 1,000,000."""

    def chatbot_info(self) -> dict[str, Any]:
        """What these params say about the chatbot, as ``ChatbotInfo`` fields (e.g. the
        fallback phrase of a SENSEI connector file); ``info:`` in chatbot.yaml wins.
        Empty by default."""
        return {}


@runtime_checkable
class Conversation(Protocol):
    """One open dialogue with the chatbot under test."""

    async def send(self, text: str) -> Reply:
        """Send one user utterance; return the chatbot's reply.

        An empty answer is a ``Reply`` with no messages, not an error. Raises
        ``ChatbotCrash``, ``ChatbotTimeout`` or ``BadPayload``.
        """
        ...

    async def close(self) -> None:
        """Release what the dialogue holds (sessions, sockets). Never raises."""
        ...


@runtime_checkable
class Connector(Protocol):
    """A configured chatbot under test: opens conversations."""

    async def open(self) -> Conversation:
        """Open a new dialogue (a fresh sender id / session). May raise ``ChatbotFailure``."""
        ...

    async def aclose(self) -> None:
        """Release shared resources (HTTP clients). Never raises."""
        ...


@dataclass(frozen=True)
class ConnectorContext:
    """What a connector factory gets besides its params.

    ``base_dir`` is the folder relative paths in ``params`` are resolved against (the
    folder of ``chatbot.yaml``); ``redact`` hides the secrets resolved from ``${ENV}``;
    ``transport``, when set, replaces the network for HTTP connectors (e.g. an
    ``httpx.MockTransport`` in tests); ``limits`` bound every reply's size and nesting
    (``ReplyLimits``, from the params' ``max_reply_bytes``).
    """

    base_dir: Path = field(default_factory=Path.cwd)
    redact: Redactor = field(default_factory=Redactor)
    transport: httpx.AsyncBaseTransport | None = None
    limits: ReplyLimits = DEFAULT_LIMITS


def greeting_of(conversation: Conversation) -> Reply | None:
    """What the chatbot said when ``conversation`` opened, before any user message.

    Conversations may expose it as a ``greeting`` attribute (Taskyto's
    ``/conversation/new`` message, the scripted bot's greeting); ``None`` otherwise.
    Every known secret in it is hidden (``hide_secrets``), as in every reply.
    """
    greeting = getattr(conversation, "greeting", None)
    return hide_secrets(greeting, Redactor()) if isinstance(greeting, Reply) else None


async def within_timeout(awaitable: Awaitable[T], seconds: float, what: str = "reply") -> T:
    """Await ``awaitable`` for at most ``seconds``; raise ``ChatbotTimeout`` after that."""
    deadline = asyncio.timeout(seconds)
    try:
        async with deadline:
            return await awaitable
    except TimeoutError as exc:
        if not deadline.expired():
            raise
        raise ChatbotTimeout(f"no {what} within {seconds:g} s") from exc


async def timed_reply(
    answer: Awaitable[Any],
    seconds: float,
    redact: Redactor,
    parse: Callable[[Any], Reply] | None = None,
    what: str = "reply",
    limits: ReplyLimits = DEFAULT_LIMITS,
) -> Reply:
    """The one way a connector waits for the chatbot.

    Awaits ``answer`` for at most ``seconds`` (``ChatbotTimeout`` after that), turns it
    into a ``Reply`` with ``parse`` (``answer`` must already be one without it), checks
    and normalises it at the boundary (``guard_reply``: ``ReplyTooLarge`` over
    ``limits.max_bytes`` characters, ``BadPayload`` nested deeper than
    ``limits.max_depth``, lone surrogates replaced and noted), hides every secret in it
    (``hide_secrets``) and sets its ``latency``: the wall-clock seconds
    from the call to the parsed reply. ``parse`` raises ``BadPayload`` for an unreadable
    answer (it only sees answers that passed ``check_shape``); any other exception it
    raises on the chatbot's answer is recorded as ``BadPayload`` too, never a crash of the
    run.
    """
    started = time.perf_counter()
    value = await within_timeout(answer, seconds, what)
    if parse is not None:
        check_shape(value, limits)  # before parse walks it
    reply = _parsed(value, parse) if parse is not None else value
    if not isinstance(reply, Reply):
        raise TypeError(f"timed_reply needs a Reply, got {type(reply).__name__}")
    reply = hide_secrets(guard_reply(reply, limits), redact)
    reply.latency = time.perf_counter() - started
    return reply


def hide_secrets(reply: Reply, redact: Redactor) -> Reply:
    """``reply`` with the secrets resolved from ``${NAME}`` (``redact``) and every other
    known secret (``sparring._redact.redact_known``) replaced by ``***`` in its messages,
    buttons, images and raw payload — at the boundary, before anything reads it: a value
    computed from a reply (an output's number, a slice in a rule, the user simulator's
    echo) would hold part of a secret that no later redaction recognises."""

    known = sorted({*redact.values, *known_values()}, key=len, reverse=True)

    def hidden(text: str) -> str:  # counted in the run's manifest (``redactions``)
        return redact_known(text, known)

    reply.messages = [hidden(m) for m in reply.messages]
    reply.images = [hidden(i) for i in reply.images]
    reply.buttons = [
        b.model_copy(update={"text": hidden(b.text), "link": b.link and hidden(b.link)})
        for b in reply.buttons
    ]
    reply.raw = Redactor(known)(reply.raw)
    return reply


def _parsed(value: Any, parse: Callable[[Any], Reply]) -> Reply:
    """``parse(value)``; an exception other than a ``ChatbotFailure`` — a parser meeting a
    shape it never expected — becomes ``BadPayload`` (logged with its traceback)."""
    try:
        return parse(value)
    except ChatbotFailure:
        raise
    except Exception as exc:
        logger.debug("the reply parser failed on the chatbot's answer", exc_info=True)
        raise BadPayload(f"unreadable reply ({type(exc).__name__}: {exc})") from exc
