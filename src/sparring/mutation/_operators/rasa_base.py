"""What every Rasa operator shares: it lists *candidates* (a location and how to mutate
there) from a read project; ``locations`` keeps their locations, ``apply`` finds the one
asked for by file and key and runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sparring.mutation._model import Location, ProjectKind
from sparring.mutation._operators.rasa_model import numbered
from sparring.rasa_project import Dialogue, RasaProject, TrainingFile, load_project

Edit = Callable[[], tuple[dict[str, str], str]]
"""Returns the changed files (relative path → new text) and what changed."""


@dataclass(frozen=True)
class Candidate:
    """One place an operator applies, and the edit it makes there."""

    location: Location
    edit: Edit


class RasaOperator:
    """Base of the Rasa operators (``kind = "rasa"``): subclasses set ``name`` and
    ``description`` and implement ``candidates``."""

    name: str = ""
    kind: ProjectKind = "rasa"
    description: str = ""

    def candidates(self, project: RasaProject) -> Iterator[Candidate]:
        raise NotImplementedError

    def locations(self, project: Path) -> list[Location]:
        """Every location in the project, in file order (``ConfigError`` when a file is
        invalid)."""
        return [candidate.location for candidate in self.candidates(load_project(project))]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        """The changed files and a sentence; ``ValueError`` when the project has no
        such location (same file and key) any more."""
        for candidate in self.candidates(load_project(project)):
            if (candidate.location.file, candidate.location.key) == (location.file, location.key):
                return candidate.edit()
        raise ValueError(f"{self.name}: {location.tag()} is not applicable in {project}")


def named_dialogues(file: TrainingFile) -> Iterator[tuple[str, Dialogue]]:
    """``(key, dialogue)`` of each story and rule: ``story:name``, ``rule:name`` (a name
    repeated in the file gets `` (2)``, …)."""
    keys = numbered(f"{dialogue.kind}:{dialogue.name}" for dialogue in file.dialogues)
    yield from zip(keys, file.dialogues, strict=True)


def located(file: str, key: str, line: int, edit: Edit) -> Candidate:
    """A candidate at 0-based ``line`` of ``file``."""
    return Candidate(Location(file=file, key=key, line=line + 1), edit)
