"""Taskyto's HTTP API (the chatbots of SENSEI's and TRACER's evaluations).

``POST {url}/conversation/new`` opens a dialogue and answers ``{"id": …, "message": …}``
(the message, when present, is the chatbot's greeting); ``POST
{url}/conversation/user_message`` with ``{"id": …, "message": <text>}`` answers
``{"message": <text>}``; errors come as ``{"error": …}`` with a non-200 status. Shapes as
in SENSEI's ``ChatbotTaskyto`` (sensei-chat/sensei, ``technologies/chatbot_connectors.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams, timed_reply
from sparring.connectors._http import HttpClient, join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload


class TaskytoParams(ConnectorParams):
    """Where a Taskyto server lives."""

    url: str = "http://localhost:5000"
    """Base URL of the Taskyto server."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers."""


def _message_of(payload: Any, what: str) -> Reply:
    if payload is None:
        return Reply()
    if not isinstance(payload, dict):
        raise BadPayload(f"Taskyto {what} answered {type(payload).__name__}, expected an object")
    message = payload.get("message")
    if message is not None and not isinstance(message, str):
        raise BadPayload(f"Taskyto {what}: `message` is {type(message).__name__}, not text")
    return Reply(messages=[message] if message else [], raw=payload)


class TaskytoConversation:
    """One Taskyto dialogue, identified by the id ``/conversation/new`` returned."""

    def __init__(self, owner: TaskytoConnector, conversation_id: str, greeting: Reply) -> None:
        self._owner = owner
        self.conversation_id = conversation_id
        self.greeting: Reply | None = greeting if greeting.messages else None

    async def send(self, text: str) -> Reply:
        """Post ``text`` to this conversation; return Taskyto's answer."""
        owner = self._owner
        request = owner.http.request_json(
            "POST",
            join_url(owner.url, "/conversation/user_message"),
            json_body={"id": self.conversation_id, "message": text},
        )
        return await timed_reply(
            request, owner.timeout, owner.context.redact, lambda p: _message_of(p, "user_message")
        )

    async def close(self) -> None:
        """Nothing to release: Taskyto has no endpoint to end a conversation."""


class TaskytoConnector:
    """Talks to one Taskyto server."""

    def __init__(self, params: TaskytoParams, context: ConnectorContext) -> None:
        self.url = params.url
        self.timeout = params.timeout
        self.context = context
        self.http = HttpClient(context, timeout=params.timeout, headers=params.headers)

    def __repr__(self) -> str:
        return f"TaskytoConnector({self.context.redact.text(self.url)!r})"

    async def open(self) -> TaskytoConversation:
        """Open a conversation (``/conversation/new``). Raises ``ChatbotFailure``."""
        greeting = await timed_reply(
            self.http.request_json("POST", join_url(self.url, "/conversation/new")),
            self.timeout,
            self.context.redact,
            lambda p: _message_of(p, "conversation/new"),
            "new conversation",
        )
        payload = greeting.raw
        conversation_id = payload.get("id") if isinstance(payload, dict) else None
        if conversation_id is None or isinstance(conversation_id, dict | list):
            raise BadPayload("Taskyto's /conversation/new answered no conversation `id`")
        return TaskytoConversation(self, str(conversation_id), greeting)

    async def probe(self) -> None:
        """Check the server answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self.url)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


@connector("taskyto")
def taskyto(params: TaskytoParams, context: ConnectorContext) -> TaskytoConnector:
    """A Taskyto chatbot server (/conversation/new, /conversation/user_message)."""
    return TaskytoConnector(params, context)
