"""Pacing: at most ``requests_per_minute`` user messages per minute to one chatbot.

Public bots throttle or ban clients that talk too fast (TRACER spaced its sessions with
45 ± 15 s cool-downs); a connector's ``requests_per_minute`` parameter (off by default, for
local bots) makes every conversation of that connector share one limiter (``aiolimiter``
with a bucket of one message), so messages are spaced at least ``60 / requests_per_minute``
seconds apart, across concurrent conversations and exploration sessions alike. Waiting for
the limiter is not counted in a reply's latency.

A run spread over several processes (``sparring worker``, docs/distributed.md) passes a
``LimiterFactory`` that builds a limiter shared by every process (one in Redis), so the
rate holds for the whole run, not per process.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from aiolimiter import AsyncLimiter

from sparring.connectors._base import Connector, Conversation
from sparring.connectors._reply import Reply

Limiter = AbstractAsyncContextManager[Any]
"""Anything ``async with limiter:`` waits on for one message's slot (``aiolimiter``'s
``AsyncLimiter``, or a limiter shared across processes)."""
LimiterFactory = Callable[[float], Limiter]
"""Builds the limiter for a connector of ``requests_per_minute``."""


def local_limiter(per_minute: float) -> Limiter:
    """The in-process limiter: a bucket of one message every ``60 / per_minute`` seconds."""
    return AsyncLimiter(1, 60.0 / per_minute)


class PacedConversation:
    """A conversation whose ``send`` waits for its connector's limiter first; every other
    attribute (``greeting``, ``session_id``…) is the wrapped conversation's."""

    def __init__(self, inner: Conversation, limiter: Limiter) -> None:
        self._inner = inner
        self._limiter = limiter

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, text: str) -> Reply:
        """Wait for a slot, then send ``text`` (see ``Conversation.send``)."""
        async with self._limiter:
            pass
        return await self._inner.send(text)

    async def close(self) -> None:
        """Close the wrapped conversation."""
        await self._inner.close()


class PacedConnector:
    """A connector whose conversations share one limiter of ``per_minute`` messages
    (``limiter``: how it is built; default in-process)."""

    def __init__(
        self, inner: Connector, per_minute: float, limiter: LimiterFactory = local_limiter
    ) -> None:
        self._inner = inner
        self.per_minute = per_minute
        self._limiter = limiter(per_minute)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"PacedConnector({self._inner!r}, {self.per_minute:g}/min)"

    async def open(self) -> PacedConversation:
        """Open a conversation of the wrapped connector, paced."""
        return PacedConversation(await self._inner.open(), self._limiter)

    async def aclose(self) -> None:
        """Close the wrapped connector."""
        await self._inner.aclose()
