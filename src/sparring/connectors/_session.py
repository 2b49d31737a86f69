"""Chatbots whose API is one HTTP request per user turn in a session the client names.

Dialogflow, Botpress and Lex keep the conversation on their side under a session (or
user) id that the client picks: opening a conversation sends nothing, and each utterance
is one request naming that id. ``SessionConnector`` is that shape once; a platform module
gives it how to build a turn's request (``TurnRequest``) and how to read the answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sparring.connectors._base import ConnectorContext, timed_reply
from sparring.connectors._http import HttpClient
from sparring.connectors._reply import Reply


@dataclass(frozen=True)
class TurnRequest:
    """One turn's request: ``POST url`` with ``json_body`` (or the bytes ``content``) and
    the extra ``headers``."""

    url: str
    json_body: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


class SessionConnector:
    """Opens conversations with a fresh session id (a UUID, 32 characters) and sends each
    utterance as ``build(session_id, text)``, read by ``parse`` into a ``Reply``."""

    def __init__(
        self,
        context: ConnectorContext,
        *,
        url: str,
        timeout: float,
        build: Callable[[str, str], TurnRequest],
        parse: Callable[[Any], Reply],
        headers: dict[str, str] | None = None,
        name: str = "SessionConnector",
    ) -> None:
        self.context = context
        self.url = url
        self.timeout = timeout
        self.build = build
        self.parse = parse
        self.http = HttpClient(context, timeout=timeout, headers=headers or {})
        self._name = name

    def __repr__(self) -> str:
        return f"{self._name}({self.context.redact.text(self.url)!r})"

    async def open(self) -> SessionConversation:
        """A conversation under a new session id (no request is sent)."""
        return SessionConversation(self, uuid.uuid4().hex)

    async def probe(self) -> None:
        """Check the server answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self.url)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


class SessionConversation:
    """One conversation: its ``session_id``."""

    def __init__(self, owner: SessionConnector, session_id: str) -> None:
        self._owner = owner
        self.session_id = session_id

    async def send(self, text: str) -> Reply:
        """One request with ``text``; the parsed, timed reply. Raises ``ChatbotFailure``."""
        owner = self._owner
        turn = owner.build(self.session_id, text)
        request = owner.http.request_json(
            "POST",
            turn.url,
            json_body=turn.json_body,
            content=turn.content,
            headers=turn.headers or None,
        )
        return await timed_reply(request, owner.timeout, owner.context.redact, owner.parse)

    async def close(self) -> None:
        """Nothing to release: the platform expires its sessions."""
