"""Rasa's REST channel: ``POST {url}/webhooks/rest/webhook``.

Request ``{"sender": <id>, "message": <text>}`` with one sender id (a UUID) per
conversation; the reply is a list of bot messages, each with any of ``text``,
``buttons`` (``[{title, payload}]``), ``image`` and ``custom`` (Rasa docs, "REST
Channels"). Several messages may come in one turn.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams, timed_reply
from sparring.connectors._http import HttpClient, join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload
from sparring.types import Button


class RasaParams(ConnectorParams):
    """Where a Rasa server with the REST channel enabled lives."""

    url: str = "http://localhost:5005"
    """Base URL of the Rasa server (``rasa run --enable-api``)."""
    path: str = "/webhooks/rest/webhook"
    """Path of the REST channel's webhook."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers (e.g. ``Authorization: Bearer ${RASA_TOKEN}``)."""


def parse_rasa_messages(payload: Any) -> Reply:
    """A ``Reply`` from the REST channel's JSON: a list of message objects.

    ``custom`` payloads are read for ``text``, ``buttons`` and ``image`` when they are
    objects; the rest stays in ``raw``. Raises ``BadPayload`` for any other shape.
    """
    if payload is None:
        return Reply()
    if not isinstance(payload, list):
        raise BadPayload(f"Rasa answered {type(payload).__name__}, expected a list of messages")
    reply = Reply(raw=payload)
    for message in payload:
        if not isinstance(message, dict):
            raise BadPayload(f"Rasa message is {type(message).__name__}, expected an object")
        _read_message(message, reply)
        custom = message.get("custom")
        if isinstance(custom, dict):
            _read_message(custom, reply)
    return reply


def _read_message(message: dict[str, Any], reply: Reply) -> None:
    text = message.get("text")
    if isinstance(text, str) and text:
        reply.messages.append(text)
    image = message.get("image")
    if isinstance(image, str) and image:
        reply.images.append(image)
    buttons = message.get("buttons")
    for button in buttons if isinstance(buttons, list) else []:
        if isinstance(button, dict):
            title = button.get("title", button.get("text"))
            link = button.get("payload", button.get("url"))
            reply.buttons.append(
                Button(text=str(title or ""), link=None if link is None else str(link))
            )


class RasaConversation:
    """One Rasa dialogue: a fresh sender id."""

    greeting: Reply | None = None

    def __init__(self, owner: RasaConnector) -> None:
        self._owner = owner
        self.sender_id = uuid.uuid4().hex

    async def send(self, text: str) -> Reply:
        """Post ``text`` as this sender; return every bot message of the turn."""
        owner = self._owner
        request = owner.http.request_json(
            "POST", owner.webhook, json_body={"sender": self.sender_id, "message": text}
        )
        return await timed_reply(request, owner.timeout, owner.context.redact, parse_rasa_messages)

    async def close(self) -> None:
        """Nothing to release: Rasa keeps the tracker server-side."""


class RasaConnector:
    """Talks to one Rasa server over its REST channel."""

    def __init__(self, params: RasaParams, context: ConnectorContext) -> None:
        self.timeout = params.timeout
        self.context = context
        self.webhook = join_url(params.url, params.path)
        self.http = HttpClient(context, timeout=params.timeout, headers=params.headers)

    def __repr__(self) -> str:
        return f"RasaConnector({self.context.redact.text(self.webhook)!r})"

    async def open(self) -> RasaConversation:
        """A new conversation (new sender id); no request is sent yet."""
        return RasaConversation(self)

    async def probe(self) -> None:
        """Check the server answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self.webhook)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


@connector("rasa")
def rasa(params: RasaParams, context: ConnectorContext) -> RasaConnector:
    """A Rasa server through its REST channel (/webhooks/rest/webhook)."""
    return RasaConnector(params, context)
