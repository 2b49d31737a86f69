"""One place where the LLM exploration calls the model: per-step module tags, usage, and a
failure that names its step.

Every call is tagged ``explore.<step>`` (``explore.explorer``, ``explore.extract``, …) so
``ExplorationModel.usage`` breaks tokens and cost (US dollars) down by step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel

from sparring.errors import BudgetExceeded, ModelError
from sparring.types import ModelUsage, TextModel

T = TypeVar("T", bound=BaseModel)

STEP_MARKER = "sparring explore step:"
"""The first line of every system prompt is ``sparring explore step: <step>`` (tests and
logs recognise the step by it)."""


class StepFailed(Exception):
    """The model failed at ``step`` (``ModelError`` after retries, or a spent budget);
    ``where`` says which session or phase, ``cause`` is the original error."""

    def __init__(self, step: str, where: str, cause: Exception) -> None:
        super().__init__(f"{step} ({where}): {cause}")
        self.step = step
        self.where = where
        self.cause = cause


class Asker:
    """Calls ``model`` with a schema and counts usage per module into ``usage`` (shared
    with ``ExplorationContext.usage``). ``calls`` counts calls per step."""

    def __init__(self, model: TextModel, usage: dict[str, ModelUsage]) -> None:
        self.model = model
        self.usage = usage
        self.calls: dict[str, int] = {}

    async def ask(
        self, step: str, where: str, messages: Sequence[Mapping[str, str]], schema: type[T]
    ) -> T:
        """The validated reply of ``schema`` for ``messages``.

        Raises ``StepFailed`` when the model raises ``ModelError`` or ``BudgetExceeded``.
        """
        module = f"explore.{step}"
        self.calls[step] = self.calls.get(step, 0) + 1
        try:
            gen = await self.model.generate(messages, schema, module=module)
        except (ModelError, BudgetExceeded) as exc:
            raise StepFailed(step, where, exc) from exc
        entry = self.usage.setdefault(module, ModelUsage())
        entry.calls += 1
        entry.prompt_tokens += int(getattr(gen, "prompt_tokens", 0) or 0)
        entry.completion_tokens += int(getattr(gen, "completion_tokens", 0) or 0)
        entry.cost += gen.cost
        parsed = gen.parsed
        if not isinstance(parsed, schema):
            raise StepFailed(step, where, ModelError(f"{module}: no {schema.__name__} parsed"))
        return parsed


def chat(step: str, system: str, user: str) -> list[dict[str, str]]:
    """A two-message call: the step's system prompt (marker first) and one user message."""
    return [
        {"role": "system", "content": f"{STEP_MARKER} {step}\n{system}"},
        {"role": "user", "content": user},
    ]
