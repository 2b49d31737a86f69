"""The structured replies the model gives at each step of the LLM exploration.

TRACER (Sotillo del Horno, 2025, ch. 4–5; code: Chatbot-TRACER/TRACER) parses free text
("FUNCTIONALITY: name: …", "DUPLICATE_OF: …", "VALID"); here every step asks for a JSON
object validated by one of these Pydantic models (``Model.generate`` retries once with
the validation errors shown, then raises ``ModelError``). Replies are lenient where a
model's wording varies (extra keys ignored, type names mapped) and are turned into the
functionality model's own ``Parameter`` and ``Output``.
"""

from __future__ import annotations

from typing import Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sparring.explore._model import Output, Parameter, ValueType


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ProbeAnalysis(_Reply):
    """Step ``probe`` (TRACER ``fallback_detection``, ``language_detection``): the
    languages the chatbot answers in (ISO 639-1 codes, the default first), and whether
    its replies to nonsense are one fallback message."""

    languages: list[str] = Field(default_factory=list)
    is_fallback: bool = False
    fallback: str | None = None
    """The fallback message as the bot says it (its common core when replies vary)."""

    @field_validator("languages")
    @classmethod
    def _iso(cls, value: list[str]) -> list[str]:
        codes = [v.strip().lower()[:2] for v in value if v.strip()]
        bad = [c for c in codes if not c.isalpha() or len(c) != 2]
        if bad:
            raise ValueError(f"not ISO 639-1 codes: {bad}")
        return list(dict.fromkeys(codes))


class ExplorerTurn(_Reply):
    """Step ``explorer`` (TRACER ``conversation/session.py``): the next user message, or
    ``done`` when the session's focus is explored (TRACER's "EXPLORATION COMPLETE")."""

    message: str = ""
    done: bool = False


class Rephrasing(_Reply):
    """Step ``rephrase`` (TRACER ``get_rephrase_prompt``): the same intent in simpler
    words after a fallback."""

    message: str


_TYPES: dict[str, ValueType] = {
    "integer": "int",
    "number": "float",
    "decimal": "float",
    "currency": "money",
    "price": "money",
    "bool": "boolean",
    "datetime": "date",
}


def value_type(text: str) -> ValueType:
    """A model's type name as a ``ValueType`` (synonyms mapped; unknown: ``string``)."""
    name = text.strip().lower()
    if name in get_args(ValueType):
        return cast(ValueType, name)
    return _TYPES.get(name, "string")


class ExtractedParameter(_Reply):
    """A parameter as the model gives it (lenient: extra keys ignored, any type name)."""

    name: str
    description: str = ""
    options: list[str] = Field(default_factory=list)
    type: str = "string"
    question: str | None = None

    def to_parameter(self) -> Parameter:
        """The model's ``Parameter``."""
        return Parameter(
            name=self.name.strip(),
            description=self.description,
            options=[o.strip() for o in self.options if o.strip()],
            type=value_type(self.type),
            question=self.question,
        )


class ExtractedOutput(_Reply):
    """An output as the model gives it (lenient like ``ExtractedParameter``)."""

    name: str
    description: str = ""
    type: str = "string"
    example: str | int | float | None = None

    def to_output(self) -> Output:
        """The model's ``Output``."""
        example = None if self.example is None else str(self.example)
        return Output(
            name=self.name.strip(),
            description=self.description,
            type=value_type(self.type),
            example=example,
        )


class ExtractedFunctionality(_Reply):
    """One functionality found in a session (TRACER ``functionality_extraction``): what
    the chatbot does (snake_case ``name``), the ``parameters`` it asked the user for
    (with the options it offered), the ``outputs`` it gave, and ``user_turns``: the
    numbers (``U1`` = 1) of the user messages that led the chatbot to perform it."""

    name: str
    description: str = ""
    parameters: list[ExtractedParameter] = Field(default_factory=list)
    outputs: list[ExtractedOutput] = Field(default_factory=list)
    user_turns: list[int] = Field(default_factory=list)


class Extraction(_Reply):
    """Step ``extract``: the functionalities of one session (empty: nothing new)."""

    functionalities: list[ExtractedFunctionality] = Field(default_factory=list)


class Duplicate(_Reply):
    """``new`` (a new node's id) is the same functionality as ``existing`` (a known id)."""

    new: str
    existing: str


class MergeDecision(_Reply):
    """Step ``merge`` (global merge; TRACER ``is_duplicate_functionality``): the new
    nodes that duplicate known ones; new nodes not listed are distinct."""

    duplicates: list[Duplicate] = Field(default_factory=list)


class MergeGroup(_Reply):
    """Nodes (``ids``) that are one functionality, with its canonical name and
    description."""

    ids: list[str]
    name: str
    description: str = ""


class Consolidation(_Reply):
    """Step ``consolidate`` (TRACER ``merge_similar_functionalities``): groups of nodes
    that still duplicate each other."""

    groups: list[MergeGroup] = Field(default_factory=list)


class Classification(_Reply):
    """Step ``classify`` (TRACER ``chatbot_classification``): transactional (a guided,
    ordered process) or informational (independent questions and answers)."""

    bot_type: Literal["transactional", "informational"]
    reason: str = ""


class WorkflowNode(_Reply):
    """A node's ``parents``: ids of the steps that must be completed immediately before
    it (empty for an entry point)."""

    id: str
    parents: list[str] = Field(default_factory=list)


class Workflow(_Reply):
    """Step ``workflow`` (TRACER ``workflow_builder``): the parents of every node."""

    nodes: list[WorkflowNode] = Field(default_factory=list)


class CategoryAssignment(_Reply):
    """A node's display category (a short title, e.g. "Ordering")."""

    id: str
    category: str


class Categories(_Reply):
    """Step ``categories`` (display grouping): one display category per node."""

    categories: list[CategoryAssignment] = Field(default_factory=list)
