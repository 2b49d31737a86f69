"""The profile model: one SENSEI user profile (de Lara et al., "Automated End-to-End
Testing for Conversational Agents", §3; SENSEI 1.1.5 ``RoleData``).

The fields mirror the YAML keys (``llm``, ``user``, ``chatbot``, ``conversation``); the
properties of ``Profile`` give the same things under clean names (``fallback``,
``outputs``, ``is_starter``, ``goal_templates``, ``variables``, ``context_texts()``).
Build a profile with ``load_profile(path)``, which also resolves personas and custom
types and reports every problem of the file at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)

from sparring._yaml import LineMap
from sparring.errors import Problem
from sparring.profiles._conversation import Conversation
from sparring.profiles._data import VariableData
from sparring.profiles._persona_files import PersonaFile
from sparring.profiles._personas import ResolvedPersona, resolve_persona
from sparring.profiles._selectors import Selector
from sparring.profiles._types import CustomType, OutputType, builtin_types, parse_output_type
from sparring.profiles._variables import VariableSpec
from sparring.schemas import register_schema

Name = Annotated[str, Field(pattern=r"^\w+$")]
"""A variable or output name: letters, digits and underscores (SENSEI's ``{{\\w+}}``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ConversationFormat(_Strict):
    """``llm.format``: ``text`` or ``speech`` conversations (``config``: speech settings file);
    ``format: text`` is short for ``format: {type: text}``. The loader refuses ``speech``."""

    type: Literal["text", "speech"] = "text"
    config: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        return {"type": data} if isinstance(data, str) else data


class LlmSettings(_Strict):
    """``llm``: the model that plays the user (``model_prov`` names its provider)."""

    model: str = "gpt-4o"
    provider: str | None = Field(default=None, alias="model_prov")
    temperature: float = Field(default=0.8, ge=0, le=2)
    format: ConversationFormat = Field(default_factory=ConversationFormat)


class PersonalityRef(_Strict):
    """``{personality: REF}`` in ``user.context`` (see ``_personas`` for how REF resolves)."""

    personality: str = Field(min_length=1)


def _context_form(value: Any) -> str | None:
    if isinstance(value, str):
        return "text"
    return "personality" if isinstance(value, dict | PersonalityRef) else None


def _goal_form(value: Any) -> str | None:
    if isinstance(value, str):
        return "template"
    return "variable" if isinstance(value, dict) else None


ContextItem = Annotated[
    Annotated[str, Tag("text")] | Annotated[PersonalityRef, Tag("personality")],
    Discriminator(
        _context_form,
        custom_error_type="context_item",
        custom_error_message="a context item is a text or {personality: name-or-path}",
    ),
]

GoalVariable = Annotated[dict[Name, VariableSpec], Field(min_length=1, max_length=1)]

GoalItem = Annotated[
    Annotated[str, Tag("template")] | Annotated[GoalVariable, Tag("variable")],
    Discriminator(
        _goal_form,
        custom_error_type="goal_item",
        custom_error_message=(
            "a goal is a text (with {{variables}}) or {name: {function, type, data}}"
        ),
    ),
]


class User(_Strict):
    """``user``: who the simulated user is and what it wants (``goals``)."""

    language: str = "English"
    role: str
    context: list[ContextItem] = Field(default_factory=list)
    goals: list[GoalItem] = Field(min_length=1)
    persona: str | None = Field(default=None, min_length=1)
    """sparring's extension: a persona file (``_persona_files``) that plays this user,
    as a path relative to the profile."""

    @field_validator("language", mode="before")
    @classmethod
    def _english_when_empty(cls, value: Any) -> Any:
        return "English" if value is None or value == "" else value

    @field_validator("context", mode="before")
    @classmethod
    def _as_list(cls, value: Any) -> Any:
        if value is None or value == "":
            return []
        return value if isinstance(value, list) else [value]

    @model_validator(mode="after")
    def _consistent(self) -> User:
        if not any(isinstance(goal, str) for goal in self.goals):
            raise ValueError("goals need at least one goal text, not only variables")
        if sum(isinstance(item, PersonalityRef) for item in self.context) > 1:
            raise ValueError("context may name one personality only (SENSEI rejects more)")
        return self


class OutputSpec(_Strict):
    """One output data item: its ``type`` and what to extract (``description``)."""

    type: str
    description: str


class Chatbot(_Strict):
    """``chatbot``: what the tester knows about the chatbot under test."""

    is_starter: bool = True
    fallback: str | None = None
    """The chatbot's fallback phrase; when left out, chatbot.yaml's ``info.fallback``."""
    synonyms: dict[str, list[str]] = Field(default_factory=dict)
    """sparring's extension: the chatbot's words for one value, value → the words it takes
    for it (a Rasa project's entity synonyms: ``{Physical examination: [check-up,
    check]}``). A confirmation stating the value in one of them agrees with the user's
    (``sparring.values.Synonyms``); ``explore --project`` writes them."""
    output: list[Annotated[dict[Name, OutputSpec], Field(min_length=1, max_length=1)]] = Field(
        default_factory=list
    )

    @field_validator("output", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("synonyms", mode="before")
    @classmethod
    def _no_synonyms(cls, value: Any) -> Any:
        return {} if value is None else value


@dataclass(frozen=True)
class Variable:
    """A goal variable under clean names; ``goal_index`` is its position in ``user.goals``."""

    name: str
    function: Selector
    type: str
    data: VariableData
    goal_index: int


@dataclass(frozen=True)
class OutputData:
    """An output data item: ``name``, parsed ``type`` (unknown types read as ``string``,
    as SENSEI does) and ``description``."""

    name: str
    type: OutputType
    description: str


class Profile(_Strict):
    """A SENSEI user profile (both the paper's and release 1.1.5's syntax)."""

    test_name: str | None = None
    llm: LlmSettings = Field(default_factory=LlmSettings)
    user: User
    chatbot: Chatbot
    conversation: Conversation

    _source: Path | None = PrivateAttr(default=None)
    _personas: list[ResolvedPersona] | None = PrivateAttr(default=None)
    _persona_file: tuple[Path, PersonaFile] | None = PrivateAttr(default=None)
    _custom_types: dict[str, CustomType] | None = PrivateAttr(default=None)
    _warnings: list[Problem] = PrivateAttr(default_factory=list)
    _lines: LineMap | None = PrivateAttr(default=None)

    @property
    def name(self) -> str:
        """``test_name``, else the file name without extension."""
        if self.test_name:
            return self.test_name
        return self._source.stem if self._source else "profile"

    @property
    def source(self) -> Path | None:
        """The file the profile was loaded from (``None`` when built in memory)."""
        return self._source

    @property
    def warnings(self) -> list[Problem]:
        """Non-fatal findings of ``load_profile`` (legacy syntax, unknown output types…)."""
        return list(self._warnings)

    @property
    def language(self) -> str:
        return self.user.language

    @property
    def role(self) -> str:
        return self.user.role

    @property
    def fallback(self) -> str | None:
        """The chatbot's fallback message, as the tester wrote it (``None``: not written,
        chatbot.yaml's ``info.fallback`` applies)."""
        return self.chatbot.fallback

    @property
    def is_starter(self) -> bool:
        """True when the chatbot speaks first."""
        return self.chatbot.is_starter

    @property
    def goal_templates(self) -> list[str]:
        """The goal texts, in order, with their ``{{variables}}`` unfilled."""
        return [goal for goal in self.user.goals if isinstance(goal, str)]

    @property
    def variables(self) -> list[Variable]:
        """The goal variables, in the order they are written."""
        found: list[Variable] = []
        for index, goal in enumerate(self.user.goals):
            if isinstance(goal, dict):
                for name, spec in goal.items():
                    found.append(Variable(name, spec.function, spec.type, spec.data, index))
        return found

    @property
    def custom_types(self) -> dict[str, CustomType]:
        """Custom value types visible from the profile (built-in ones included)."""
        return self._custom_types if self._custom_types is not None else builtin_types()

    @property
    def outputs(self) -> list[OutputData]:
        """The output data to extract from each conversation."""
        found: list[OutputData] = []
        for item in self.chatbot.output:
            for name, spec in item.items():
                parsed = parse_output_type(spec.type, self.custom_types)
                kind = parsed or OutputType(kind="string", name=spec.type.strip())
                found.append(OutputData(name, kind, spec.description))
        return found

    @property
    def personas(self) -> list[ResolvedPersona]:
        """The personas named in ``user.context``, resolved."""
        if self._personas is None:
            base = self._source.parent if self._source else None
            self._personas = [
                resolve_persona(item.personality, base)
                for item in self.user.context
                if isinstance(item, PersonalityRef)
            ]
        return list(self._personas)

    @property
    def persona_file(self) -> tuple[Path, PersonaFile] | None:
        """The persona file ``user.persona`` names and its path, loaded by ``load_profile``
        (``None`` when the profile names none)."""
        return self._persona_file

    def context_texts(self) -> list[str]:
        """The user's context as texts: persona instructions first, then the profile's own
        lines (SENSEI's order)."""
        texts = [line for persona in self.personas for line in persona.persona.context]
        return texts + [item for item in self.user.context if isinstance(item, str)]


register_schema("profile", Profile)
