"""The shapes every model call shares: messages, the provider protocol, a generation.

A provider (LiteLLM, llama.cpp, scripted, or a third party's) implements one async method,
``complete(request) -> Completion``: one attempt at one reply, no retries, no cache, no
budget. The ``Model`` wrapper adds those around it (as inspect_ai's ``ModelAPI`` does).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from sparring.errors import ModelError

ALLOW_ENV = "SPARRING_ALLOW_MODEL_REQUESTS"
"""Environment variable; ``0`` (set by the test suite) forbids real model requests."""


class Message(BaseModel):
    """One chat message: ``role`` (``system``, ``user`` or ``assistant``) and ``content``."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


Messages = Sequence[Message | Mapping[str, str]]
"""What ``Model.generate`` takes: ``Message`` objects or ``{"role", "content"}`` dicts."""


class CompletionRequest(BaseModel):
    """One attempt sent to a provider.

    ``json_schema`` is the JSON Schema the reply must follow (``None`` for free text);
    ``schema_name`` its title; ``timeout`` seconds.
    """

    messages: list[dict[str, str]]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "reply"
    temperature: float | None = None
    timeout: float = 60.0


class Completion(BaseModel):
    """A provider's answer to one attempt: text, tokens and cost (US dollars)."""

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class Generation(BaseModel):
    """The result of ``Model.generate``.

    ``parsed`` is the validated schema object (``None`` without a schema); tokens, ``cost``
    (US dollars) and ``latency`` (seconds) add up every attempt made for this call (a
    schema retry is a second attempt); ``cached`` is true when every attempt was replayed
    from the on-disk cache (cost 0).
    """

    text: str
    parsed: Any | None = None
    model: str
    module: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0
    cached: bool = False


class Provider(Protocol):
    """A model backend: one async ``complete`` (one attempt, raising on failure).

    ``offline`` is true only for providers that never leave the process (the scripted
    fake); the others are refused while ``SPARRING_ALLOW_MODEL_REQUESTS=0``. Raise
    ``TransientModelError`` for failures worth retrying (rate limit, timeout, 5xx,
    connection), ``ModelError`` for the rest.
    """

    offline: bool

    async def complete(self, request: CompletionRequest) -> Completion: ...


class TransientModelError(ModelError):
    """A failure worth retrying: rate limit, timeout, server error (5xx), lost connection."""


def model_requests_allowed() -> bool:
    """False when ``SPARRING_ALLOW_MODEL_REQUESTS`` is ``0``/``false``/``no`` (tests)."""
    return os.environ.get(ALLOW_ENV, "1").strip().lower() not in ("0", "false", "no")


def normalize_messages(messages: Messages) -> list[dict[str, str]]:
    """Validate messages and return them as plain ``{"role", "content"}`` dicts.

    Raises ``ModelError`` for an empty list or a message of the wrong shape.
    """
    if not messages:
        raise ModelError("a model call needs at least one message")
    out: list[dict[str, str]] = []
    for message in messages:
        try:
            checked = message if isinstance(message, Message) else Message.model_validate(message)
        except ValueError as exc:
            raise ModelError(f"bad message {message!r}: {exc}") from exc
        out.append({"role": checked.role, "content": checked.content})
    return out


def schema_instruction(schema_json: Mapping[str, Any]) -> str:
    """The prompt text that asks for a JSON object following ``schema_json``."""
    return (
        "Reply with one JSON object only (no prose, no code fence) that validates "
        f"against this JSON Schema:\n{json.dumps(schema_json, ensure_ascii=False)}"
    )


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> str:
    """The JSON part of a reply: the whole text when it parses, else the content of a code
    fence, else the span from the first ``{``/``[`` to the last ``}``/``]`` — the first of
    these that parses as JSON (so a fence *inside* a JSON string value, such as a YAML
    field holding ```yaml …```, is not mistaken for the reply), else the first that
    exists, else the stripped text."""
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1).strip())
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    end = max(text.rfind("}"), text.rfind("]"))
    if starts and end > min(starts):
        candidates.append(text[min(starts) : end + 1])
    for candidate in candidates:
        try:
            json.loads(candidate)
        except ValueError:
            continue
        return candidate
    return candidates[1] if len(candidates) > 1 else candidates[0]


def count_words(text: str) -> int:
    """Whitespace words: the token estimate of providers that report no usage."""
    return len(text.split())
