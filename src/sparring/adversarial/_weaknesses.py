"""The weaknesses file (``weaknesses.yaml``): where an agent is likely to fail, written by
``sparring adversarial plan`` for the user to confirm or edit, or by hand, and read by
``sparring adversarial test``.

After the Agent-Testing Agent (Komoravolu, Mrini, arXiv 2508.17393, §3.1: weakness
planning): each weakness has a description, evaluation criteria for the judge and example
tests at three difficulties::

    version: 1
    chatbot: pizzeria
    weaknesses:
      - id: custom-pizza-toppings
        title: Custom pizza with an unavailable topping
        description: The bot may accept a topping it does not sell.
        category: functional
        sources: [static-scan, interview]
        criteria:
          - The bot says which toppings it does not have.
        examples:
          - {difficulty: easy, test: Ask for a custom pizza with pineapple.}
          - {difficulty: hard, test: Change the topping twice after the size.}
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sparring._yaml import load_yaml_model
from sparring.conversations import atomic_write

WEAKNESSES_FILE = "weaknesses.yaml"


class Difficulty(StrEnum):
    """The difficulty of an example test, as the paper's planner labels them."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class WeaknessCategory(StrEnum):
    """What kind of failure a weakness is: the task going wrong (``functional``), harm or
    leaks (``safety``), or unusual but legitimate users (``robustness``)."""

    FUNCTIONAL = "functional"
    SAFETY = "safety"
    ROBUSTNESS = "robustness"


class ExampleTest(BaseModel):
    """One example test of a weakness at one difficulty."""

    model_config = ConfigDict(extra="forbid")

    difficulty: Difficulty
    test: str = Field(min_length=1, description="What the simulated user tries, in one sentence.")


class Weakness(BaseModel):
    """One suspected weakness of the chatbot under test."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", description="A slug, unique in the file.")
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    category: WeaknessCategory = WeaknessCategory.FUNCTIONAL
    sources: list[str] = Field(
        default_factory=list,
        description="Where it came from: static-scan, interview, docs, model, hand-written.",
    )
    criteria: list[str] = Field(
        default_factory=list, description="What the judge checks, one criterion per item."
    )
    examples: list[ExampleTest] = Field(default_factory=list)


class WeaknessFile(BaseModel):
    """A ``weaknesses.yaml`` file: the weaknesses to test, in order."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    chatbot: str | None = None
    weaknesses: list[Weakness] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> WeaknessFile:
        seen: set[str] = set()
        for weakness in self.weaknesses:
            if weakness.id in seen:
                raise ValueError(f"weakness id {weakness.id!r} appears twice")
            seen.add(weakness.id)
        return self


def load_weaknesses(path: Path | str) -> WeaknessFile:
    """Read a weaknesses file. Raises ``ConfigError`` naming file, line and key for every
    problem (unknown keys, missing fields, a duplicate id)."""
    return load_yaml_model(path, WeaknessFile, "a mapping with a `weaknesses` list")


def write_weaknesses(file: WeaknessFile, path: Path | str) -> Path:
    """Write ``file`` as YAML (keys in model order, no defaults dropped); returns the path."""
    import yaml

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = file.model_dump(mode="json")
    atomic_write(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True), durable=False)
    return path
