"""Mutants and mutation operators (SENSEI §7.1; TRACER's thesis, chapter 6; after
Gómez-Abajo et al.'s operators for task-oriented chatbots).

A *mutation operator* finds every *location* where it applies in a chatbot project (a
folder of files) and applies itself at one of them, returning the changed files. A
*mutant* is one operator applied at one location; its ``id`` (``<operator>@<location>``)
is enough to rebuild it from the original project, so a sampled mutant is reproducible.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field

ProjectKind = Literal["rasa", "taskyto", "aiml", "prompt"]
"""The kinds of chatbot project ``sparring mutate`` mutates."""


class Location(BaseModel):
    """Where an operator applies: ``file`` (relative to the project, POSIX), a ``key``
    naming the element (``intent:greet``, ``story:happy path/step 3``, ``category 12``),
    and the 1-based ``line`` where it starts when known."""

    file: str
    key: str
    line: int | None = None

    def tag(self) -> str:
        """The location's part of a mutant id: ``file#key``."""
        return f"{self.file}#{self.key}"


class Mutant(BaseModel):
    """One fault injected into a project: the operator, the location, a sentence saying
    what changed, and the unified diff against the original. ``id`` rebuilds it:
    ``apply_mutant(project, id)``."""

    id: str
    operator: str
    location: Location
    description: str
    diff: str = ""
    files: dict[str, str] = Field(default_factory=dict, exclude=True)
    """The changed files' new texts by relative path (not stored; rebuilt from the id)."""


class MutationOperator(Protocol):
    """An operator: ``name`` (registry key, e.g. ``rasa.delete_intent``), the ``kind`` of
    project it applies to, and a one-line ``description``.

    ``locations(project)`` lists every place it applies, in a stable order;
    ``apply(project, location)`` returns the changed files (relative path → new text) and
    a sentence saying what changed. Both read the project folder and never write to it;
    ``apply`` raises ``ValueError`` when ``location`` is no longer applicable.
    """

    name: str
    kind: ProjectKind
    description: str

    def locations(self, project: Path) -> list[Location]: ...

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]: ...


def mutant_id(operator: str, location: Location) -> str:
    """``<operator>@<file>#<key>``."""
    return f"{operator}@{location.tag()}"


def unified_diff(project: Path, files: Mapping[str, str]) -> str:
    """The unified diff (``a/``, ``b/`` prefixes) of ``files`` against the project's."""
    chunks: list[str] = []
    for relative, new in sorted(files.items()):
        path = project / relative
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{relative}",
                tofile=f"b/{relative}",
            )
        )
    return "".join(chunks)
