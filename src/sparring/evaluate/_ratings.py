"""Dialogue ratings: each conversation rated 1–5 with reasoning on ChatChecker's dimensions
(Mayr, Schimpf, Bohné 2025, §3.3: task success, efficiency, appropriateness, naturalness,
coherence, likability, informativeness, engagingness, overall).

The dimensions are data (``data/dimensions.yaml``, or a user's file of the same format):
task-oriented chatbots (and chatbots of unknown type) are rated on task success,
efficiency, appropriateness, naturalness and overall; conversational ones on
appropriateness, naturalness, coherence, likability, informativeness and overall. One call
per conversation at temperature 0, with a strict calibration policy in the prompt and a
structured reply holding exactly the asked dimensions (an invalid reply is retried once,
then the conversation is unscored with the raw reply kept). LLM only: there is no offline
rating.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from sparring._yaml import load_yaml_model
from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord
from sparring.errors import ModelError
from sparring.evaluate._llm_detector import MODULE, usage_of
from sparring.evaluate._prompts import prompt_text, rating_messages
from sparring.evaluate._results import EVALUATION_SCHEMA_VERSION
from sparring.evaluate._taxonomy import data_file
from sparring.llm import Model
from sparring.types import ModelUsage

ChatbotType = Literal["task-oriented", "conversational"]


class RatingDimension(BaseModel):
    """One rating dimension: ``key`` (an identifier, e.g. ``task_success``), ``title``,
    the ``question`` the rater answers, and its ``type`` (which kind of chatbot it was
    made for; ``general`` fits both)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    key: str
    """An identifier: lower-case letters, digits and ``_``."""
    title: str = Field(min_length=1)
    """The name shown in tables and the prompt."""
    question: str = Field(min_length=1)
    """What the rater answers with a 1–5 rating."""
    type: Literal["task-oriented", "conversational", "general"] = "general"
    """The kind of chatbot the dimension was made for."""

    @field_validator("key")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", value):
            raise ValueError(f"use lower-case letters, digits and _ (got {value!r})")
        return value


class DimensionSet(BaseModel):
    """A dimensions file: every ``dimensions`` entry, and the ``defaults`` (keys) for each
    chatbot type."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    dimensions: list[RatingDimension] = Field(min_length=1)
    """Every dimension a conversation may be rated on (keys unique)."""
    defaults: dict[ChatbotType, list[str]] = Field(default_factory=dict)
    """The keys rated for each chatbot type (missing type: every dimension)."""

    @model_validator(mode="after")
    def _consistent(self) -> DimensionSet:
        keys = [d.key for d in self.dimensions]
        if len(set(keys)) != len(keys):
            raise ValueError("a dimension key is listed twice")
        for kind, chosen in self.defaults.items():
            unknown = [k for k in chosen if k not in keys]
            if unknown:
                raise ValueError(f"defaults of {kind} name unknown dimensions: {unknown}")
        return self

    def for_chatbot(self, chatbot: ChatbotInfo | None) -> list[RatingDimension]:
        """The dimensions a chatbot is rated on (unknown type: task-oriented's)."""
        kind: ChatbotType = (
            "conversational"
            if chatbot is not None and chatbot.type == "conversational"
            else "task-oriented"
        )
        chosen = self.defaults.get(kind)
        if chosen is None:
            return list(self.dimensions)
        by_key = {d.key: d for d in self.dimensions}
        return [by_key[key] for key in chosen]


def load_dimensions(path: Path | str | None = None) -> DimensionSet:
    """The dimensions file ``path`` (``None``: the shipped ChatChecker dimensions). Raises
    ``ConfigError`` naming file, line and key."""
    path = Path(path) if path is not None else data_file("dimensions.yaml")
    return load_yaml_model(path, DimensionSet, "a mapping of rating dimensions")


class DimensionRating(BaseModel):
    """One dimension's rating, 1 (worst) to 5 (best), with the rater's reasoning."""

    reasoning: str
    rating: int = Field(ge=1, le=5)


class ConversationRatings(BaseModel):
    """The ratings of one conversation: ``ratings`` by dimension key (empty when unscored,
    then ``error`` says why and ``raw`` keeps the last reply); ``prompt``, ``raw`` and
    ``usage`` (tokens, US dollars) of the call."""

    conversation: str
    profile: str = ""
    ratings: dict[str, DimensionRating] = Field(default_factory=dict)
    error: str | None = None
    prompt: str | None = None
    raw: str | None = None
    usage: ModelUsage | None = None

    @property
    def scored(self) -> bool:
        """Whether the model's reply gave every rating."""
        return self.error is None


class RatingEvaluation(BaseModel):
    """``evaluations/ratings.json``: the rated conversations, the dimensions and model."""

    schema_version: int = EVALUATION_SCHEMA_VERSION
    model: str
    dimensions: list[RatingDimension] = Field(default_factory=list)
    conversations: list[ConversationRatings] = Field(default_factory=list)
    usage: ModelUsage = Field(default_factory=ModelUsage)

    @property
    def keys(self) -> list[str]:
        """The dimension keys rated, in order."""
        return [d.key for d in self.dimensions]


@functools.lru_cache(maxsize=32)
def rating_schema(keys: tuple[str, ...]) -> type[BaseModel]:
    """The structured reply for ``keys``: one required ``DimensionRating`` per key, nothing
    else (built once per key set, so the model's schema cache holds)."""
    fields: dict[str, object] = {key: (DimensionRating, ...) for key in keys}
    return create_model(  # type: ignore[call-overload, no-any-return]
        "DialogueRatings", __config__=ConfigDict(extra="forbid"), **fields
    )


async def rate_conversation(
    model: Model,
    record: ConversationRecord,
    chatbot: ChatbotInfo | None,
    dimensions: list[RatingDimension],
) -> ConversationRatings:
    """Rate ``record`` on ``dimensions`` (one call, temperature 0, ``module="evaluate"``).

    Never raises ``ModelError``: a reply that does not validate after the retry gives an
    unscored ``ConversationRatings`` with the error and the raw reply.
    """
    messages = rating_messages(
        record.turns, [(d.key, d.title, d.question) for d in dimensions], chatbot
    )
    schema = rating_schema(tuple(d.key for d in dimensions))
    base = ConversationRatings(
        conversation=record.id, profile=record.profile, prompt=prompt_text(messages)
    )
    try:
        generation = await model.generate(messages, schema, module=MODULE, temperature=0.0)
    except ModelError as exc:
        return base.model_copy(update={"error": str(exc), "raw": exc.raw})
    ratings = {d.key: getattr(generation.parsed, d.key) for d in dimensions}
    return base.model_copy(
        update={"ratings": ratings, "raw": generation.text, "usage": usage_of(generation)}
    )
