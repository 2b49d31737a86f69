"""Microsoft Bot Framework bots (Azure Bot Service, Copilot Studio) through Direct Line 3.0.

A conversation is ``POST {url}/v3/directline/conversations`` with ``Authorization: Bearer
<secret>``; it answers the ``conversationId`` and a conversation ``token``, used for the
rest of the conversation (Direct Line accepts activities only with that token). Each
utterance is ``POST …/conversations/{id}/activities`` with a message activity
``{"type": "message", "from": {"id": <user>}, "text": …, "locale": …}``; Direct Line
answers the activity's ``id``. The bot's answers are polled with ``GET
…/conversations/{id}/activities?watermark=<w>`` every ``poll_interval`` seconds: the
bot's message activities replying to that id (or replying to nothing) are the reply,
complete when a poll after the first one brings no more. Its ``text`` are messages, the
buttons of hero and thumbnail cards and ``suggestedActions`` are buttons, and image
attachments are images. What the bot says before the first utterance (a welcome) is the
conversation's greeting.

Source: Microsoft's Direct Line API 3.0 reference ("Start a conversation", "Send an
activity to the bot", "Receive activities from the bot").
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from sparring.connectors._base import ConnectorContext, ConnectorParams, timed_reply
from sparring.connectors._http import HttpClient, join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload
from sparring.types import Button

_CARDS = ("application/vnd.microsoft.card.hero", "application/vnd.microsoft.card.thumbnail")


class DirectLineParams(ConnectorParams):
    """A bot reached through Direct Line 3.0."""

    secret: str = Field(min_length=1)
    """The Direct Line channel's secret (``${DIRECT_LINE_SECRET}``)."""
    url: str = "https://directline.botframework.com"
    """Direct Line's base URI (regional: ``https://europe.directline.botframework.com``)."""
    user_id: str = "sparring-user"
    """The ``from.id`` of the simulated user's activities."""
    locale: str | None = None
    """The ``locale`` of the user's activities (e.g. ``en-US``); unset: none sent."""
    poll_interval: float = Field(default=0.5, gt=0)
    """Seconds between two polls for the bot's activities."""
    greeting_wait: float = Field(default=1.0, ge=0)
    """Seconds to wait for a welcome message after opening a conversation (0: none)."""


def _buttons(actions: Any) -> list[Button]:
    found: list[Button] = []
    for action in actions if isinstance(actions, list) else []:
        if isinstance(action, dict) and (action.get("title") or action.get("value")):
            value = action.get("value")
            found.append(
                Button(
                    text=str(action.get("title") or value),
                    link=None if value is None else str(value),
                )
            )
    return found


def parse_activities(activities: list[dict[str, Any]], raw: Any) -> Reply:
    """The ``Reply`` a list of the bot's message activities make."""
    reply = Reply(raw=raw)
    for activity in activities:
        text = activity.get("text")
        if isinstance(text, str) and text:
            reply.messages.append(text)
        for attachment in activity.get("attachments") or []:
            if not isinstance(attachment, dict):
                continue
            kind = str(attachment.get("contentType") or "")
            if kind in _CARDS and isinstance(attachment.get("content"), dict):
                card = attachment["content"]
                for field in ("title", "text"):
                    if isinstance(card.get(field), str) and card[field]:
                        reply.messages.append(card[field])
                reply.buttons += _buttons(card.get("buttons"))
            elif kind.startswith("image/") and isinstance(attachment.get("contentUrl"), str):
                reply.images.append(attachment["contentUrl"])
        reply.buttons += _buttons((activity.get("suggestedActions") or {}).get("actions"))
    return reply


class DirectLineConnector:
    """Opens Direct Line conversations with one bot."""

    def __init__(self, params: DirectLineParams, context: ConnectorContext) -> None:
        self.params = params
        self.context = context
        self.http = HttpClient(context, timeout=params.timeout)

    def __repr__(self) -> str:
        return f"DirectLineConnector({self.context.redact.text(self.params.url)!r})"

    async def open(self) -> DirectLineConversation:
        """Start a conversation; wait ``greeting_wait`` seconds for a welcome."""
        started = await self.http.request_json(
            "POST",
            join_url(self.params.url, "/v3/directline/conversations"),
            headers={"Authorization": f"Bearer {self.params.secret}"},
        )
        if not isinstance(started, dict) or not isinstance(started.get("conversationId"), str):
            raise BadPayload("Direct Line answered no conversationId")
        token = started.get("token") if isinstance(started.get("token"), str) else None
        conversation = DirectLineConversation(
            self, started["conversationId"], token or self.params.secret
        )
        if self.params.greeting_wait > 0:
            await asyncio.sleep(self.params.greeting_wait)
            welcome = await conversation.poll(None)
            conversation.greeting = parse_activities(welcome, welcome) if welcome else None
        return conversation

    async def probe(self) -> None:
        """Check Direct Line answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self.params.url)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


class DirectLineConversation:
    """One Direct Line conversation: its id, token and watermark."""

    def __init__(self, owner: DirectLineConnector, conversation_id: str, token: str) -> None:
        self._owner = owner
        self.conversation_id = conversation_id
        self._auth = {"Authorization": f"Bearer {token}"}
        self._watermark: str | None = None
        self.greeting: Reply | None = None

    def _url(self) -> str:
        path = f"/v3/directline/conversations/{self.conversation_id}/activities"
        return join_url(self._owner.params.url, path)

    async def poll(self, reply_to: str | None) -> list[dict[str, Any]]:
        """The bot's new message activities (replying to ``reply_to`` or to nothing)."""
        query = {"watermark": self._watermark} if self._watermark else None
        found = await self._owner.http.request_json(
            "GET", self._url(), params=query, headers=self._auth
        )
        if not isinstance(found, dict) or not isinstance(found.get("activities", []), list):
            raise BadPayload("Direct Line answered no `activities` list")
        if isinstance(found.get("watermark"), str):
            self._watermark = found["watermark"]
        user = self._owner.params.user_id
        return [
            a
            for a in found.get("activities") or []
            if isinstance(a, dict)
            and a.get("type") == "message"
            and (a.get("from") or {}).get("id") != user
            and a.get("replyToId") in (None, reply_to)
        ]

    async def _exchange(self, text: str) -> list[dict[str, Any]]:
        params = self._owner.params
        activity: dict[str, Any] = {"type": "message", "from": {"id": params.user_id}, "text": text}
        if params.locale:
            activity["locale"] = params.locale
        sent = await self._owner.http.request_json(
            "POST", self._url(), json_body=activity, headers=self._auth
        )
        sent_id = sent.get("id") if isinstance(sent, dict) else None
        answers: list[dict[str, Any]] = []
        while True:
            await asyncio.sleep(params.poll_interval)
            new = await self.poll(sent_id if isinstance(sent_id, str) else None)
            if answers and not new:
                return answers
            answers += new

    async def send(self, text: str) -> Reply:
        """Send ``text`` as a message activity; the bot's reply (``ChatbotTimeout`` when it
        says nothing within ``timeout``)."""
        owner = self._owner
        return await timed_reply(
            self._exchange(text),
            owner.params.timeout,
            owner.context.redact,
            lambda found: parse_activities(found, found),
        )

    async def close(self) -> None:
        """Nothing to release: Direct Line conversations expire by themselves."""


@connector("directline")
def directline(params: DirectLineParams, context: ConnectorContext) -> DirectLineConnector:
    """A Microsoft Bot Framework bot through Direct Line 3.0 (Azure Bot Service)."""
    return DirectLineConnector(params, context)
