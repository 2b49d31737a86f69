"""A file of breakdown types for tester personas (``--breakdowns FILE``), until the
evaluate job's taxonomy is passed in directly. Either a mapping or a list::

    ignore_question: The chatbot ignores the user's question.
    # or
    - name: ignore_question
      description: The chatbot ignores the user's question.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sparring._yaml import load_yaml_model


class BreakdownType(BaseModel):
    """One breakdown type a tester persona tries to trigger."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)


class _Types(BaseModel):
    types: list[BreakdownType] = Field(min_length=1)


def load_breakdown_types(path: Path | str) -> list[tuple[str, str]]:
    """The ``(name, description)`` pairs of a breakdown-types file, in file order.
    Raises ``ConfigError`` with file, line and key for every problem."""
    expected = "a mapping of breakdown type → description, or a list of {name, description}"
    types = load_yaml_model(path, _Types, expected, _as_types).types
    return [(t.name, t.description) for t in types]


def _as_types(data: object) -> object:
    if isinstance(data, dict):
        data = [{"name": k, "description": v} for k, v in data.items()]
    return {"types": data} if isinstance(data, list) else data
