"""ChatChecker's user personas, read as is.

ChatChecker keeps one persona per file in a chatbot's ``user_personas/`` folder
(``<persona_id>.yaml``), and copies it into each run as ``persona_info.yaml`` under a
``persona:`` key (beside ``run_id``). A generated persona looks like::

    persona_id: generated_challenging_persona_01
    type: challenging                 # standard | challenging | adversarial
    profile:
      name: Vague Victor
      gender: male                    # male | female | other
      age: 28
      background_info: [You often speak in abstract terms.]
      personality:                    # Big Five: high | medium | low each
        openness: high
        conscientiousness: medium
        extraversion: medium
        agreeableness: low
        neuroticism: medium
      interaction_style: [You often speak in riddles.]
    task: Get help setting a goal while giving minimal information.
    generated: true

A hand-written persona (``generated: false``) may describe the user in free text or any
mapping under ``profile``. Every other unknown key is an error naming file, line and key.
``ChatCheckerPersona`` is a plain typed model; persona-driven simulation converts it.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)

from sparring._yaml import load_yaml_with_lines, validation_problems
from sparring.errors import ConfigError, Problem
from sparring.schemas import register_schema

PERSONAS_FOLDER = "user_personas"
"""The folder of a ChatChecker chatbot that holds its persona files."""


class PersonaType(StrEnum):
    """ChatChecker's persona types."""

    STANDARD = "standard"
    CHALLENGING = "challenging"
    ADVERSARIAL = "adversarial"


class TraitLevel(StrEnum):
    """How strongly a Big Five trait is expressed."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class BigFive(_Closed):
    """The persona's personality as the Big Five (OCEAN) traits."""

    openness: TraitLevel
    conscientiousness: TraitLevel
    extraversion: TraitLevel
    agreeableness: TraitLevel
    neuroticism: TraitLevel


class ChatCheckerPersonaProfile(_Closed):
    """A generated persona's ``profile``: who the user is and how they write."""

    name: str
    gender: Literal["male", "female", "other"]
    age: int = Field(ge=0)
    """Years."""
    background_info: list[str]
    """What an actor must know about the persona to talk to this chatbot."""
    personality: BigFive
    interaction_style: list[str]
    """How the persona writes, as instructions to the model playing it."""


class ChatCheckerPersona(_Closed):
    """One ChatChecker persona file (see the module docstring)."""

    persona_id: str
    type: PersonaType
    generated: bool = True
    """Whether ChatChecker generated it (then ``profile`` has the structured form)."""
    profile: ChatCheckerPersonaProfile | str | dict[str, Any]
    """The structured profile of a generated persona; text or any mapping otherwise."""
    task: str
    """What the persona wants from the dialogue."""

    @field_validator("profile", mode="wrap")
    @classmethod
    def _structured_when_generated(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        if info.data.get("generated", True) and isinstance(value, dict):
            return ChatCheckerPersonaProfile.model_validate(value)
        return handler(value)

    @property
    def name(self) -> str:
        """The persona's name (its profile's), else its id."""
        if isinstance(self.profile, ChatCheckerPersonaProfile):
            return self.profile.name
        if isinstance(self.profile, dict) and isinstance(self.profile.get("name"), str):
            return str(self.profile["name"])
        return self.persona_id

    def prompt_text(self) -> str:
        """The persona as ChatChecker's persona simulator shows it to its model: the
        profile and the task, as YAML."""
        profile = (
            self.profile.model_dump(mode="json")
            if isinstance(self.profile, ChatCheckerPersonaProfile)
            else self.profile
        )
        shown = {"profile": profile, "task": self.task}
        return yaml.safe_dump(shown, sort_keys=False, allow_unicode=True).strip()


register_schema("chatchecker-persona", ChatCheckerPersona)


class PersonaInfo(_Closed):
    """A run's ``persona_info.yaml``: the run's id and the persona it simulated."""

    run_id: str | None = None
    persona: ChatCheckerPersona


def is_chatchecker_persona(data: Any) -> bool:
    """Whether parsed YAML is a ChatChecker persona file (``persona_id``) or a run's
    ``persona_info.yaml`` (a ``persona`` mapping with one)."""
    if not isinstance(data, dict):
        return False
    inner = data.get("persona")
    return "persona_id" in data or (isinstance(inner, dict) and "persona_id" in inner)


def load_chatchecker_persona(path: Path | str) -> ChatCheckerPersona:
    """Read a ChatChecker persona file, or a run's ``persona_info.yaml`` (its ``persona``).

    Raises ``ConfigError`` naming file, line and key for every problem: YAML syntax,
    unknown keys, missing keys, values of the wrong kind.
    """
    path = Path(path)
    data, lines = load_yaml_with_lines(path)
    if not isinstance(data, dict):
        message = "expected a mapping with persona_id, type, profile and task"
        raise ConfigError(Problem(str(path), 1, "", message))
    try:
        if "persona" in data and "persona_id" not in data:
            return PersonaInfo.model_validate(data).persona
        return ChatCheckerPersona.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_problems(path, exc, lines)) from exc


def load_chatchecker_personas(folder: Path | str) -> list[ChatCheckerPersona]:
    """Every persona of a ChatChecker chatbot: ``*.yaml`` in ``folder`` or in its
    ``user_personas/`` folder, by file name. Raises ``ConfigError`` listing the problems
    of every file."""
    folder = Path(folder)
    if (folder / PERSONAS_FOLDER).is_dir():
        folder = folder / PERSONAS_FOLDER
    personas: list[ChatCheckerPersona] = []
    problems: list[Problem] = []
    for file in sorted(folder.glob("*.yaml")):
        try:
            personas.append(load_chatchecker_persona(file))
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(problems)
    return personas
