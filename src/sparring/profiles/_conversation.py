"""The ``conversation`` section: how many conversations, when each ends (goal style) and
how the simulated user writes (interaction styles).

Source: de Lara et al., "Automated End-to-End Testing for Conversational Agents", §3–4,
and SENSEI 1.1.5 ``RoleData.get_conversation_number`` / ``pick_goal_style`` /
``pick_interaction_style``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from random import Random
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializerFunctionWrapHandler,
    Tag,
    WithJsonSchema,
    field_validator,
    model_serializer,
    model_validator,
)

StyleName = Literal[
    "default",
    "long phrases",
    "short phrases",
    "change your mind",
    "make spelling mistakes",
    "single question",
    "all questions",
    "off topic when asked",
]
STYLE_NAMES: tuple[str, ...] = get_args(StyleName)
"""Interaction styles written as a plain name (``change language`` and ``random`` take a list)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


@dataclass(frozen=True)
class Combinations:
    """``number`` given as a share of the value combinations.

    ``matrix`` is which combinations count: ``forward`` (nested ``forward()`` chains),
    ``pairwise`` or ``any`` (the larger of the two); ``fraction`` (0 < f ≤ 1) scales the
    count, rounded as Python's ``round`` (SENSEI's rule); ``text`` is what was written.
    """

    fraction: float
    matrix: Literal["any", "forward", "pairwise"]
    text: str

    def count(self, forward: int, pairwise: int) -> int:
        """Conversations for the given combination counts (SENSEI's rule)."""
        base = {"forward": forward, "pairwise": pairwise, "any": max(forward, pairwise)}
        return round(base[self.matrix] * self.fraction)

    def __str__(self) -> str:
        return self.text


MAX_PLANNED = 10_000
"""Most conversations one profile may plan (real profiles plan 1 to 10; a profile of a
million combinations would hold gigabytes before its first conversation)."""

_SAMPLE = re.compile(r"^sample\(\s*([0-9.]+)\s*\)$")
_COMBINATIONS = re.compile(
    r"^combinations(?:\(\s*(?:([0-9.]+)\s*(?:,\s*(forward|pairwise)\s*)?|(forward|pairwise))\s*\))?$"
)
NUMBER_FORMS = (
    "a whole number ≥ 1, all_combinations, sample(fraction), combinations, "
    "combinations(fraction), combinations(fraction, forward|pairwise)"
)


def parse_number(value: object) -> int | Combinations:
    """Parse ``conversation.number`` (both the paper's and SENSEI 1.1.5's forms)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"number must be {NUMBER_FORMS}")
    if isinstance(value, int):
        if value < 1:
            raise ValueError("number must be at least 1")
        if value > MAX_PLANNED:
            raise ValueError(f"number {value:,} is over the limit of {MAX_PLANNED:,} per profile")
        return value
    text = value.strip()
    fraction, matrix = _fraction_and_matrix(text)
    if not 0 < fraction <= 1:
        raise ValueError(f"'{text}': the fraction must be greater than 0 and at most 1")
    return Combinations(fraction=fraction, matrix=matrix, text=text)


def _fraction_and_matrix(text: str) -> tuple[float, Literal["any", "forward", "pairwise"]]:
    if text == "all_combinations":
        return 1.0, "any"
    sample = _SAMPLE.match(text)
    match = _COMBINATIONS.match(text)
    try:
        if sample:
            return float(sample.group(1)), "any"
        if match:
            fraction = float(match.group(1)) if match.group(1) else 1.0
            matrix = match.group(2) or match.group(3) or "any"
            return fraction, matrix  # type: ignore[return-value]
    except ValueError:
        pass
    raise ValueError(f"'{text}' is not a conversation number; expected {NUMBER_FORMS}")


ConversationNumber = Annotated[
    int | Combinations,
    PlainValidator(parse_number),
    PlainSerializer(lambda v: v if isinstance(v, int) else str(v)),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {
                    "type": "string",
                    "pattern": r"^(all_combinations|sample\([0-9.]+\)|combinations(\(.*\))?)$",
                },
            ],
            "description": f"How many conversations: {NUMBER_FORMS}.",
        }
    ),
]


class AllAnswered(_Strict):
    """End when every goal is answered, or after ``limit`` turns (default 30); ``export``
    writes the per-goal answer table."""

    export: bool = False
    limit: int = Field(default=30, ge=1)


class GoalStyle(_Strict):
    """When a conversation ends: exactly one of ``steps``, ``random steps`` (1…n, n < 20,
    drawn per conversation), ``all_answered`` or ``default`` (all_answered with its
    defaults); ``max_cost`` (US dollars) also ends a conversation that costs more."""

    steps: int | None = Field(default=None, ge=1)
    random_steps: int | None = Field(default=None, alias="random steps", ge=1, lt=20)
    all_answered: AllAnswered | None = None
    default: None = Field(
        default=None, exclude=True, description="Same as all_answered with its defaults."
    )
    max_cost: float | None = Field(default=None, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):  # goal_style: default
            return {value: None}
        if isinstance(value, dict) and "all_answered" in value and value["all_answered"] is None:
            return {**value, "all_answered": {}}
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> GoalStyle:
        given = [
            k for k in ("steps", "random_steps", "all_answered") if getattr(self, k) is not None
        ]
        if "default" in self.model_fields_set:
            given.append("default")
        if len(given) != 1:
            found = ", ".join(given) if given else "none"
            raise ValueError(
                f"give exactly one of steps, random steps, all_answered or default (found: {found})"
            )
        if "default" in self.model_fields_set:
            self.all_answered = AllAnswered()
        return self

    @model_serializer(mode="wrap")
    def _set_keys_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if value is not None}

    @property
    def kind(self) -> Literal["steps", "random steps", "all_answered"]:
        """Which ending rule applies."""
        if self.steps is not None:
            return "steps"
        if self.random_steps is not None:
            return "random steps"
        return "all_answered"

    def resolve(self, rng: Random) -> GoalStyle:
        """This goal style for one conversation: ``random steps: n`` becomes ``steps``."""
        if self.random_steps is None:
            return self
        return GoalStyle(steps=rng.randint(1, self.random_steps), max_cost=self.max_cost)


class ChangeLanguage(_Strict):
    """``change language: [italian, …]`` — the user switches to one of these languages."""

    languages: list[str] = Field(alias="change language", min_length=1)


def _style_form(value: Any) -> str | None:
    if isinstance(value, str):
        return "name"
    if isinstance(value, RandomStyles) or (isinstance(value, dict) and "random" in value):
        return "random"
    if isinstance(value, ChangeLanguage) or (
        isinstance(value, dict) and "change language" in value
    ):
        return "change_language"
    return None


_STYLE_ERROR = (
    f"an interaction style is one of: {', '.join(STYLE_NAMES)}, "
    "'change language: [languages]' or 'random: [styles]'"
)

SimpleStyle = Annotated[
    Annotated[StyleName, Tag("name")] | Annotated[ChangeLanguage, Tag("change_language")],
    Discriminator(
        lambda v: _style_form(v) if _style_form(v) != "random" else None,
        custom_error_type="interaction_style",
        custom_error_message=_STYLE_ERROR.replace(" or 'random: [styles]'", ""),
    ),
]


class RandomStyles(_Strict):
    """``random: [styles]`` — each conversation uses a random non-empty subset."""

    random: list[SimpleStyle] = Field(min_length=1)

    def pick(self, rng: Random) -> list[SimpleStyle]:
        """A random number (1…n) of distinct styles, as SENSEI's ``choice_styles``."""
        count = rng.randint(1, len(self.random))
        chosen: list[SimpleStyle] = rng.sample(self.random, count)
        return chosen


InteractionStyle = Annotated[
    Annotated[StyleName, Tag("name")]
    | Annotated[ChangeLanguage, Tag("change_language")]
    | Annotated[RandomStyles, Tag("random")],
    Discriminator(
        _style_form, custom_error_type="interaction_style", custom_error_message=_STYLE_ERROR
    ),
]


def style_value(style: SimpleStyle) -> str | dict[str, list[str]]:
    """A style as written in YAML: a name, or ``{"change language": [...]}``."""
    if isinstance(style, ChangeLanguage):
        return {"change language": list(style.languages)}
    return style


def _default_styles() -> list[InteractionStyle]:
    return ["default"]


class Conversation(_Strict):
    """The ``conversation`` section."""

    number: ConversationNumber
    max_cost: float | None = Field(default=None, gt=0, description="US dollars for the run.")
    goal_style: GoalStyle
    interaction_style: list[InteractionStyle] = Field(default_factory=lambda: _default_styles())

    @field_validator("interaction_style", mode="before")
    @classmethod
    def _none_is_default(cls, value: Any) -> Any:
        if value is None:
            return ["default"]
        return value if isinstance(value, list) else [value]

    @field_validator("interaction_style")
    @classmethod
    def _random_alone(cls, styles: list[InteractionStyle]) -> list[InteractionStyle]:
        if len(styles) > 1 and any(isinstance(s, RandomStyles) for s in styles):
            raise ValueError("'random' must be the only interaction style item")
        return styles

    def styles_for(self, rng: Random) -> list[str | dict[str, list[str]]]:
        """The interaction styles of one conversation (``random`` resolved by ``rng``)."""
        chosen: list[SimpleStyle] = []
        for style in self.interaction_style:
            chosen += style.pick(rng) if isinstance(style, RandomStyles) else [style]
        return [style_value(s) for s in chosen]
