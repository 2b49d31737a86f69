"""A generic HTTP chatbot configured in YAML; reads SENSEI's custom-connector files as is.

SENSEI's custom connector (package chatbot-connectors, ``implementations/custom.py``)
describes a bot with ``name``, ``base_url``, ``send_message{path, method, headers,
payload_template}`` and ``response_path``. Such a file is valid ``params:`` here
(``base_url`` is an alias of ``url``, the name every HTTP connector uses), and these
keys extend it: ``new_conversation`` (a request that opens a session) with
``session_id_path``, ``buttons_path``, ``images_path`` and ``response_format``.

Placeholders in paths, headers and payload strings: ``{message}`` (SENSEI's
``{user_msg}`` too) is the user's utterance, ``{session_id}`` the conversation's id (from
``new_conversation``'s reply, else a fresh UUID per conversation).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from sparring.connectors._base import ConnectorContext, ConnectorParams, timed_reply
from sparring.connectors._http import HttpClient, join_url
from sparring.connectors._jsonpath import check_path, find_all
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload
from sparring.types import Button

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


class EndpointParams(BaseModel):
    """One HTTP request of the chatbot's API (SENSEI's ``send_message`` block)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str = "/"
    """Path appended to ``url`` (or a full URL); may hold ``{session_id}``."""
    method: Method = "POST"
    """HTTP method; with GET the payload is sent as query parameters."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Headers of this request only (``${ENV}`` for secrets)."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds for this request (default: the connector's ``timeout``)."""
    payload_template: Any = None
    """JSON body; strings may hold ``{message}``/``{user_msg}`` and ``{session_id}``."""

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value


class RestParams(ConnectorParams):
    """A chatbot behind any JSON-over-HTTP API (SENSEI custom-connector format)."""

    name: str | None = None
    """Display name (SENSEI's ``name``)."""
    url: str = Field(validation_alias=AliasChoices("url", "base_url"))
    """Base URL every endpoint ``path`` is appended to (SENSEI's ``base_url`` is accepted
    as an alias)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Headers sent with every request (``${ENV}`` for secrets)."""
    fallback_message: str | None = None
    """SENSEI's fallback phrase: read as ``info.fallback`` when that is not set (prefer
    ``info.fallback``)."""
    send_message: EndpointParams = Field(default_factory=EndpointParams)
    """The request that sends one user message."""
    response_path: str | None = None
    """Where the reply text(s) are: dot path or JSONPath (empty: the whole body)."""
    buttons_path: str | None = None
    """JSONPath (or dot path) to the buttons: objects or strings."""
    button_text: list[str] = Field(default_factory=lambda: ["title", "text", "label"])
    """Keys tried, in order, for a button's text."""
    button_link: list[str] = Field(default_factory=lambda: ["payload", "value", "url", "link"])
    """Keys tried, in order, for a button's payload or URL."""
    images_path: str | None = None
    """JSONPath (or dot path) to image URLs."""
    response_format: Literal["json", "text"] = "json"
    """``text``: the whole body is the reply (no paths)."""
    new_conversation: EndpointParams | None = None
    """Optional request that opens a conversation before the first message."""
    session_id_path: str = "id"
    """Where ``new_conversation``'s reply holds the session id."""
    json_style: Literal["compact", "python"] = "compact"
    """How JSON bodies are written: ``compact`` (UTF-8, no spaces) or ``python`` (as
    Python's ``json.dumps`` and the ``requests`` library write them: ASCII escapes, ``", "``
    and ``": "`` separators), the bytes SENSEI and TRACER send."""

    _check_paths = field_validator(
        "response_path", "buttons_path", "images_path", "session_id_path"
    )(check_path)

    def chatbot_info(self) -> dict[str, Any]:
        """``fallback_message`` as ``info.fallback``."""
        return {"fallback": self.fallback_message} if self.fallback_message else {}


_PLACEHOLDER = re.compile(r"\{(message|user_msg|session_id)\}")


def render_template(value: Any, fields: dict[str, str]) -> Any:
    """``value`` (JSON-like) with the ``{name}`` placeholders of ``fields`` in its strings
    replaced (in one pass: a user message holding ``{session_id}`` stays as typed)."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: fields.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: render_template(v, fields) for k, v in value.items()}
    if isinstance(value, list):
        return [render_template(v, fields) for v in value]
    return value


def _query_params(body: Any) -> dict[str, Any]:
    """A GET payload as query parameters: scalars as is, objects and lists as JSON."""
    if not isinstance(body, dict):
        raise BadPayload("a GET payload_template must be a mapping (query parameters)")
    return {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in body.items()}


def _texts(values: list[Any], what: str) -> list[str]:
    out: list[str] = []
    for value in values:
        if isinstance(value, list):
            out.extend(_texts(value, what))
        elif isinstance(value, str):
            if value:
                out.append(value)
        elif isinstance(value, bool | int | float):
            out.append(str(value))
        elif value is not None:
            raise BadPayload(f"{what} selects {type(value).__name__}, not text")
    return out


def _first_key(item: dict[str, Any], keys: list[str]) -> Any:
    return next((item[k] for k in keys if item.get(k) is not None), None)


class RestConnector:
    """Talks to one chatbot through the requests described in ``RestParams``."""

    def __init__(self, params: RestParams, context: ConnectorContext) -> None:
        self._params = params
        self.context = context
        self.http = HttpClient(context, timeout=params.timeout, headers=params.headers)

    def __repr__(self) -> str:
        name = self._params.name or "rest"
        return f"RestConnector({name!r}, {self.context.redact.text(self._params.url)!r})"

    async def call(
        self, endpoint: EndpointParams, fields: dict[str, str], parse: Callable[[Any], Reply]
    ) -> Reply:
        """Send one request of ``endpoint`` and ``parse`` its decoded body (or text) into
        a timed ``Reply`` whose ``raw`` is the body."""
        timeout = endpoint.timeout or self._params.timeout
        url = join_url(self._params.url, render_template(endpoint.path, fields))
        body = render_template(endpoint.payload_template, fields)
        headers = render_template(endpoint.headers, fields) or None
        as_query = endpoint.method == "GET"
        if as_query and body is not None:
            body = _query_params(body)
        content = None
        if self._params.json_style == "python" and not as_query and body is not None:
            content = json.dumps(body, allow_nan=False).encode("utf-8")
        request = self.http.request_json(
            endpoint.method,
            url,
            json_body=None if as_query else body,
            params=body if as_query else None,
            headers=headers,
            expect_json=self._params.response_format == "json",
            content=content,
        )
        what = "reply" if endpoint is self._params.send_message else "new conversation"
        return await timed_reply(request, timeout, self.context.redact, parse, what)

    def parse(self, payload: Any) -> Reply:
        """A ``Reply`` from a decoded body, following the configured paths."""
        params = self._params
        if payload is None:
            return Reply()
        if params.response_format == "text" or not params.response_path:
            texts = _texts([payload], "the reply body")
        else:
            texts = _texts(find_all(params.response_path, payload), "response_path")
        reply = Reply(messages=texts, raw=payload)
        if params.buttons_path and params.response_format == "json":
            reply.buttons = self._buttons(find_all(params.buttons_path, payload))
        if params.images_path and params.response_format == "json":
            reply.images = _texts(find_all(params.images_path, payload), "images_path")
        return reply

    def _buttons(self, values: list[Any]) -> list[Button]:
        items = [v for value in values for v in (value if isinstance(value, list) else [value])]
        buttons: list[Button] = []
        for item in items:
            if isinstance(item, str):
                buttons.append(Button(text=item))
            elif isinstance(item, dict):
                text = _first_key(item, self._params.button_text)
                link = _first_key(item, self._params.button_link)
                buttons.append(
                    Button(text=str(text or ""), link=None if link is None else str(link))
                )
            else:
                raise BadPayload(f"buttons_path selects {type(item).__name__}, not a button")
        return buttons

    async def send_message(self, fields: dict[str, str]) -> Reply:
        """Send the ``send_message`` request with ``fields``; return the parsed reply."""
        return await self.call(self._params.send_message, fields, self.parse)

    async def open(self) -> RestConversation:
        """Open a conversation, sending ``new_conversation`` when configured."""
        session_id = uuid.uuid4().hex
        endpoint = self._params.new_conversation
        if endpoint is None:
            return RestConversation(self, session_id)
        greeting = await self.call(endpoint, {"session_id": session_id}, self._greeting)
        payload = greeting.raw
        found = find_all(self._params.session_id_path, payload) if payload is not None else []
        if not found or isinstance(found[0], dict | list) or found[0] is None:
            raise BadPayload(
                f"new_conversation's reply has no session id at {self._params.session_id_path!r}"
            )
        return RestConversation(self, str(found[0]), greeting if greeting.messages else None)

    def _greeting(self, payload: Any) -> Reply:
        """What ``new_conversation`` answered, read as a reply when paths are configured."""
        return self.parse(payload) if self._params.response_path else Reply(raw=payload)

    async def probe(self) -> None:
        """Check the server answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self._params.url)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


class RestConversation:
    """One dialogue with a REST chatbot: its session id."""

    def __init__(
        self, owner: RestConnector, session_id: str, greeting: Reply | None = None
    ) -> None:
        self._owner = owner
        self.session_id = session_id
        self.greeting = greeting

    async def send(self, text: str) -> Reply:
        """Send ``text`` with ``send_message``; return the reply the paths select."""
        fields = {"message": text, "user_msg": text, "session_id": self.session_id}
        return await self._owner.send_message(fields)

    async def close(self) -> None:
        """Nothing to release (the HTTP client is the connector's)."""


@connector("rest")
def rest(params: RestParams, context: ConnectorContext) -> RestConnector:
    """Any JSON-over-HTTP chatbot, described in YAML (reads SENSEI custom connectors)."""
    return RestConnector(params, context)
