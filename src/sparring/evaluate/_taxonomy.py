"""The error taxonomy of breakdown detection, as data (``data/taxonomy.yaml``).

26 types by default: the 17 of the integrated taxonomy of errors in chat-oriented dialogue
systems (Higashinaka et al., SIGDIAL 2021: utterance, response, context and society levels)
and ChatChecker's 9 task-oriented ones (Mayr, Schimpf, Bohné 2025, §3.2: task performance
failure, information update failure, clarification failure, redundancy, lack of brevity,
lack of clarity, failure to recognize / communicate capabilities / resolve out-of-domain
requests). Task-oriented chatbots (or chatbots of unknown type) get all 26, conversational
ones the first 17 (``Taxonomy.types_for``).

A user's file replaces the default, or adds to it with ``extends: default``::

    extends: default
    types:
      - name: wrong price
        level: task
        task_oriented_only: true
        description: The chatbot quotes a price that is not on the menu.

``load_taxonomy(path)`` raises ``ConfigError`` naming file, line and key for an unknown
key, a missing one or a bad value. Schema: ``sparring schema taxonomy``.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sparring._yaml import load_yaml_model
from sparring.connectors import ChatbotInfo
from sparring.schemas import register_schema

Level = Literal["utterance", "response", "context", "society", "task"]


class ErrorType(BaseModel):
    """One error type: ``name`` (lower case, what detectors emit, e.g. ``ignore question``),
    its ``level``, a ``description`` for the detector's prompt, and whether only
    task-oriented chatbots are judged on it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str = Field(min_length=1)
    """The type's name, lower case (``ignore question``, ``lack of brevity``)."""
    level: Level
    """Where the error lies: the utterance itself, the response to the user, the context,
    society (Higashinaka et al. 2021) or the task (ChatChecker)."""
    description: str = Field(min_length=1)
    """What the error is, in a sentence or two (shown to the detector)."""
    task_oriented_only: bool = False
    """Only task-oriented chatbots are judged on it."""

    @field_validator("name")
    @classmethod
    def _lower_case(cls, value: str) -> str:
        if value != value.strip().lower():
            raise ValueError(f"write the name in lower case without outer spaces: {value!r}")
        return value


class Taxonomy(BaseModel):
    """A taxonomy file: the error ``types`` (names unique), and ``extends: default`` to add
    them to sparring's default taxonomy instead of replacing it."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    extends: Literal["default"] | None = None
    """``default``: these types are added to the default taxonomy (same name: replaced)."""
    types: list[ErrorType] = Field(min_length=1)
    """The error types, in the order the detector's prompt lists them."""

    @model_validator(mode="after")
    def _unique(self) -> Taxonomy:
        seen: set[str] = set()
        for item in self.types:
            if item.name in seen:
                raise ValueError(f"error type {item.name!r} is listed twice")
            seen.add(item.name)
        return self

    @property
    def names(self) -> list[str]:
        """Every type's name, in order."""
        return [t.name for t in self.types]

    def types_for(self, chatbot: ChatbotInfo | None) -> list[ErrorType]:
        """The types a chatbot is judged on: all for a task-oriented chatbot or one of
        unknown type, those not ``task_oriented_only`` for a conversational one."""
        conversational = chatbot is not None and chatbot.type == "conversational"
        return [t for t in self.types if not (conversational and t.task_oriented_only)]

    def get(self, name: str) -> ErrorType | None:
        """The type named ``name`` (matched as ``match_name`` does), or ``None``."""
        key = name_key(name)
        return next((t for t in self.types if name_key(t.name) == key), None)


def name_key(name: str) -> str:
    """A type name reduced for matching a model's spelling: letters only, lower case,
    British ``-ise`` read as ``-ize`` (``Self_Contradiction`` → ``selfcontradiction``)."""
    return re.sub(r"[^a-z]", "", name.lower()).replace("recognise", "recognize")


def match_names(names: list[str], allowed: list[str]) -> list[str]:
    """``names`` (as a model wrote them) mapped onto ``allowed`` names, in the order given,
    without duplicates; names matching no allowed type are dropped."""
    by_key = {name_key(a): a for a in allowed}
    matched: list[str] = []
    for name in names:
        found = by_key.get(name_key(name))
        if found is not None and found not in matched:
            matched.append(found)
    return matched


def data_file(name: str) -> Path:
    """The path of a file shipped in ``sparring/evaluate/data``."""
    return Path(str(resources.files("sparring.evaluate").joinpath("data", name)))


DEFAULT_TAXONOMY = "taxonomy.yaml"


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """The taxonomy in ``path`` (``None``: the default, 26 types), merged into the default
    when it says ``extends: default``. Raises ``ConfigError`` (file, line, key)."""
    default = load_yaml_model(data_file(DEFAULT_TAXONOMY), Taxonomy, "a mapping with `types`")
    if path is None:
        return default
    taxonomy = load_yaml_model(Path(path), Taxonomy, "a mapping with `types`")
    if taxonomy.extends != "default":
        return taxonomy
    own = {t.name: t for t in taxonomy.types}
    merged = [own.pop(t.name, t) for t in default.types] + list(own.values())
    return Taxonomy(types=merged)


register_schema("taxonomy", Taxonomy)
