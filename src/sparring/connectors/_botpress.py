"""Botpress (v12, self-hosted) bots through the Converse API.

Each utterance is ``POST {url}/api/v1/bots/{bot}/converse/{user}`` with ``{"type":
"text", "text": …}``, one ``user`` id (a fresh UUID) per conversation; Botpress answers
synchronously ``{"responses": [...]}``. ``text`` responses are messages, the ``choices``
(``title``/``value``) and ``quick_replies`` (``title``/``payload``) of a response are its
buttons, an ``image`` response is an image; ``typing`` indicators are skipped. Botpress
Cloud's Chat API (asynchronous, per-user keys) is a different API and is not this one.

Source: Botpress v12 documentation, "Messaging Channels — Converse API".
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams
from sparring.connectors._http import join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.connectors._session import SessionConnector, TurnRequest
from sparring.errors import BadPayload
from sparring.types import Button


class BotpressParams(ConnectorParams):
    """A bot on a Botpress v12 server."""

    url: str = "http://localhost:3000"
    """The Botpress server."""
    bot: str = Field(min_length=1)
    """The bot's id (``botId``)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers (e.g. ``Authorization: Bearer ${BOTPRESS_TOKEN}``)."""


def _choice_buttons(items: Any, link_key: str) -> list[Button]:
    buttons: list[Button] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("title"):
            link = item.get(link_key)
            buttons.append(
                Button(text=str(item["title"]), link=None if link is None else str(link))
            )
    return buttons


def parse_converse(payload: Any) -> Reply:
    """A ``Reply`` from the Converse API's answer (see the module docstring)."""
    if payload is None:
        return Reply()
    responses = payload.get("responses") if isinstance(payload, dict) else None
    if not isinstance(responses, list):
        raise BadPayload("Botpress answered no `responses` list")
    reply = Reply(raw=payload)
    for response in responses:
        if not isinstance(response, dict) or response.get("type") == "typing":
            continue
        if isinstance(response.get("text"), str) and response["text"]:
            reply.messages.append(response["text"])
        reply.buttons += _choice_buttons(response.get("choices"), "value")
        reply.buttons += _choice_buttons(response.get("quick_replies"), "payload")
        if response.get("type") == "image" and isinstance(response.get("image"), str):
            reply.images.append(response["image"])
    return reply


@connector("botpress")
def botpress(params: BotpressParams, context: ConnectorContext) -> SessionConnector:
    """A Botpress v12 bot through the Converse API."""

    def build(user: str, text: str) -> TurnRequest:
        path = f"/api/v1/bots/{params.bot}/converse/{user}"
        return TurnRequest(join_url(params.url, path), {"type": "text", "text": text})

    return SessionConnector(
        context,
        url=params.url,
        timeout=params.timeout,
        build=build,
        parse=parse_converse,
        headers=params.headers,
        name="BotpressConnector",
    )
