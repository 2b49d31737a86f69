"""Small value types that several packages share, kept apart so that none of them imports
another's private modules.

- ``Button`` and ``render_sensei_text``: what a chatbot offers besides text, and SENSEI's
  text rendering of it (``connectors`` produce them, ``conversations`` store them, rules
  match on the rendering);
- ``ModelUsage``: tokens and cost spent by one module (``llm`` counts it, records keep it);
- ``Strategy``: which strategy produced a result (every stage reports it);
- ``TextModel``: what a stage needs from a model (``sparring.llm.Model`` is one), so that
  ``profiles`` and the rule functions type their model without importing ``llm``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel

SENSEI_BUTTONS_HEADER = "AVAILABLE BUTTONS:"
"""The line that opens SENSEI's rendering of a turn's buttons."""


class Button(BaseModel):
    """A button or quick reply offered by the chatbot. ``link`` is its payload or URL."""

    text: str
    link: str | None = None


def render_sensei_text(messages: Sequence[str], buttons: Sequence[Button]) -> str:
    """Messages joined by newlines, then the buttons, if any, as SENSEI renders them::

    AVAILABLE BUTTONS:
    - BUTTON TEXT: Yes LINK: /affirm
    - BUTTON TEXT: Docs LINK: <empty>
    """
    parts = [m for m in messages if m]
    if buttons:
        lines = [SENSEI_BUTTONS_HEADER]
        for b in buttons:
            lines.append(f"- BUTTON TEXT: {b.text} LINK: {b.link or '<empty>'}")
        parts.append("\n".join(lines))
    return "\n".join(parts)


class ModelUsage(BaseModel):
    """Tokens and cost (US dollars) spent by one module (``user_simulator``, ``check``, …)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


class Strategy(StrEnum):
    """How a result was produced: by a model (``llm``), by an offline method (``offline``),
    or read from another tool's files (``imported``)."""

    OFFLINE = "offline"
    LLM = "llm"
    IMPORTED = "imported"


class Generated(Protocol):
    """A model's reply as a stage reads it: the text, the validated object when a schema
    was given, and its cost in US dollars."""

    @property
    def text(self) -> str: ...

    @property
    def parsed(self) -> Any: ...

    @property
    def cost(self) -> float: ...


class TextModel(Protocol):
    """What a stage needs from a model: ``await model.generate(messages, schema, module=…)``.

    ``name`` is the model spec; ``concurrency`` the number of calls the provider allows at
    once (callers that fan out stay within it). ``sparring.llm.Model`` implements it; errors
    are ``sparring.errors.ModelError`` and ``BudgetExceeded``.
    """

    @property
    def name(self) -> str: ...

    @property
    def concurrency(self) -> int: ...

    async def generate(
        self,
        messages: Sequence[Mapping[str, str]],
        schema: type[BaseModel] | None = None,
        *,
        module: str,
    ) -> Generated: ...
