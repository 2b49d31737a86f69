"""An OpenAI-compatible chat endpoint as the chatbot under test.

``POST {url}/chat/completions`` with the conversation's history (an optional system
prompt, then alternating user and assistant messages); the reply is
``choices[0].message.content``. Works with OpenAI, vLLM, Ollama (``/v1``), llama.cpp's
server and any other server of that API. This is the bot being tested, not sparring's
own model (that goes through ``sparring.llm``), so it is plain httpx.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, SecretStr

from sparring.connectors._base import ConnectorContext, ConnectorParams, timed_reply
from sparring.connectors._http import HttpClient, join_url
from sparring.connectors._registry import connector
from sparring.connectors._reply import Reply
from sparring.errors import BadPayload


class OpenAIParams(ConnectorParams):
    """An OpenAI-compatible ``/chat/completions`` server and the bot's prompt."""

    url: str = Field(
        default="https://api.openai.com/v1", validation_alias=AliasChoices("url", "base_url")
    )
    """Base URL of the API (``http://localhost:11434/v1`` for Ollama); ``base_url`` is
    accepted as an alias."""
    model: str
    """Model name as the server knows it."""
    api_key: SecretStr | None = None
    """Bearer token, e.g. ``${OPENAI_API_KEY}`` (never written to records or logs)."""
    system_prompt: str | None = None
    """The system message that makes the model this chatbot."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature (server default when unset)."""
    max_tokens: int | None = Field(default=None, gt=0)
    """Longest reply, in tokens (server default when unset)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra HTTP headers."""


def completion_text(payload: Any) -> str:
    """``choices[0].message.content`` of a chat completion. Raises ``BadPayload``."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise BadPayload("not a chat completion: no choices[0].message.content") from exc
    if content is None:
        return ""
    if not isinstance(content, str):
        raise BadPayload(f"chat completion content is {type(content).__name__}, not text")
    return content


def completion_reply(payload: Any) -> Reply:
    """The ``Reply`` of a chat completion (one message, or none when it is empty)."""
    answer = completion_text(payload)
    return Reply(messages=[answer] if answer else [], raw=payload)


class OpenAIConversation:
    """One dialogue: the history sent with every request."""

    greeting: Reply | None = None

    def __init__(self, owner: OpenAIConnector) -> None:
        self._owner = owner
        self.history: list[dict[str, str]] = []
        if owner.system_prompt:
            self.history.append({"role": "system", "content": owner.system_prompt})

    async def send(self, text: str) -> Reply:
        """Append ``text`` to the history, ask the model, keep its answer in the history."""
        owner = self._owner
        messages = [*self.history, {"role": "user", "content": text}]
        request = owner.http.request_json("POST", owner.endpoint, json_body=owner.body(messages))
        reply = await timed_reply(request, owner.timeout, owner.context.redact, completion_reply)
        answer = reply.messages[0] if reply.messages else ""
        self.history = [*messages, {"role": "assistant", "content": answer}]
        return reply

    async def close(self) -> None:
        """Forget the history."""
        self.history = []


class OpenAIConnector:
    """Talks to one OpenAI-compatible server."""

    def __init__(self, params: OpenAIParams, context: ConnectorContext) -> None:
        self.context = context
        self.timeout = params.timeout
        self.system_prompt = params.system_prompt
        self.endpoint = join_url(params.url, "/chat/completions")
        self._options: dict[str, Any] = {"model": params.model}
        if params.temperature is not None:
            self._options["temperature"] = params.temperature
        if params.max_tokens is not None:
            self._options["max_tokens"] = params.max_tokens
        headers = dict(params.headers)
        if params.api_key is not None:
            headers["Authorization"] = f"Bearer {params.api_key.get_secret_value()}"
        self.http = HttpClient(context, timeout=params.timeout, headers=headers)

    def __repr__(self) -> str:
        endpoint = self.context.redact.text(self.endpoint)
        return f"OpenAIConnector({endpoint!r}, model={self._options['model']!r})"

    def body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The request body for ``messages``."""
        return {**self._options, "messages": messages}

    async def open(self) -> OpenAIConversation:
        """A new conversation with an empty history (plus the system prompt)."""
        return OpenAIConversation(self)

    async def probe(self) -> None:
        """Check the server answers (see ``HttpClient.reach``); raises ``ChatbotFailure``."""
        await self.http.reach(self.endpoint)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


@connector("openai")
def openai(params: OpenAIParams, context: ConnectorContext) -> OpenAIConnector:
    """An OpenAI-compatible /chat/completions server as the chatbot under test."""
    return OpenAIConnector(params, context)
