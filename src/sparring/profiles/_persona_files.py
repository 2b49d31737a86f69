"""Persona files: who a simulated user is, what they want and how they behave.

After ChatChecker (Mayr, Schimpf, Bohné, 2025, §3.1: generated standard and challenging
personas with demographics, a Big Five personality, an interaction style and a task,
written in the second person). Not to be confused with SENSEI's *personalities*
(``_personas.py``: a ``context:`` list of instructions a profile names). A persona file::

    name: Rosa Delgado
    type: challenging              # standard | challenging | adversarial | tester
    gender: female
    age: 67
    background:
      - You live alone and order food by phone most days.
    traits:                        # Big Five, each low | medium | high (default medium)
      openness: low
      conscientiousness: low
      extraversion: high
      agreeableness: medium
      neuroticism: high
    interaction_style:
      - You write long messages and forget to answer the question you were asked.
    behaviours: [long_turns, typos, repeat_question]   # optional (see below)
    task: Order a large pizza with mushrooms for delivery tonight.
    description: >-
      You are Rosa, a talkative retiree who is not at ease with computers ...

``behaviours`` are what the offline agenda simulator can act out: ``short_turns``,
``long_turns``, ``typos``, ``change_goal``, ``repeat_question``, ``vague_answers``,
``several_goals``, ``weak_language``. Left out, they are derived from the traits and the
interaction style text (``offline_behaviours``); written (even as ``[]``), they are
exactly those. ``targets`` names the breakdown type a ``tester`` persona tries to trigger.

ChatChecker's persona files and a ChatChecker run's ``persona_info.yaml`` are persona
files too, read as they are (``persona_from_chatchecker``).

``load_persona_file(path)`` reads one, reporting every problem with file, line and key
(an unknown key is an error); ``persona_files(paths)`` lists the files of folders;
``dump_persona(persona)`` writes the YAML back. The schema is ``sparring schema persona``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sparring._yaml import LineMap, format_key, load_yaml_model, load_yaml_with_lines
from sparring.errors import ConfigError, Problem
from sparring.profiles._chatchecker_personas import (
    ChatCheckerPersona,
    ChatCheckerPersonaProfile,
    is_chatchecker_persona,
    load_chatchecker_persona,
)
from sparring.schemas import register_schema

PersonaKind = Literal["standard", "challenging", "adversarial", "tester"]
"""ChatChecker's persona types, plus ``tester`` (one breakdown type to trigger)."""

TraitLevel = Literal["low", "medium", "high"]
"""How strongly a Big Five trait is expressed (ChatChecker's three-level scale)."""

Behaviour = Literal[
    "short_turns",
    "long_turns",
    "typos",
    "change_goal",
    "repeat_question",
    "vague_answers",
    "several_goals",
    "weak_language",
]
"""A behaviour the offline agenda simulator can act out (see docs/personas.md)."""

BEHAVIOURS: tuple[str, ...] = get_args(Behaviour)

TRAIT_BEHAVIOURS: dict[tuple[str, TraitLevel], Behaviour] = {
    ("extraversion", "high"): "long_turns",
    ("extraversion", "low"): "short_turns",
    ("conscientiousness", "low"): "typos",
    ("agreeableness", "low"): "vague_answers",
    ("neuroticism", "high"): "repeat_question",
    ("openness", "high"): "change_goal",
}
"""The behaviour a trait level implies when a persona writes no ``behaviours``."""

_STYLE_CUES: tuple[tuple[str, Behaviour], ...] = (
    (r"\b(typo|misspell|spelling)", "typos"),
    (r"\b(short|terse|brief|few words|curt)\b", "short_turns"),
    (r"\b(long|verbose|lengthy|rambl|elaborate)", "long_turns"),
    (r"\b(vague|unclear|ambiguous|evasive)", "vague_answers"),
    (r"\b(repeat|repetitive|ask(?:s|ing)? again)", "repeat_question"),
    (r"\b(change (?:your|their|his|her) mind|changes? (?:your|their|his|her) mind|"
     r"changing (?:your|their|his|her) mind|change (?:the|your) (?:request|order|goal))",
     "change_goal"),
    (r"\b(several|multiple) (?:goals|tasks|requests|things)", "several_goals"),
    (r"\b(broken|limited|weak|poor) (?:english|language|grammar)|non-native", "weak_language"),
)  # fmt: skip


class BigFive(BaseModel):
    """The Big Five personality traits (OCEAN), each ``low``, ``medium`` or ``high``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    openness: TraitLevel = "medium"
    conscientiousness: TraitLevel = "medium"
    extraversion: TraitLevel = "medium"
    agreeableness: TraitLevel = "medium"
    neuroticism: TraitLevel = "medium"


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    return [value] if isinstance(value, str) else value


class PersonaFile(BaseModel):
    """A persona file (see the module docstring). ``description`` is written to the user
    in the second person ("You are …"); ``prompt_text()`` is what a model is shown."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    type: PersonaKind = "standard"
    gender: str | None = None
    age: int | None = Field(default=None, ge=0, le=130)
    background: list[str] = Field(default_factory=list)
    traits: BigFive = Field(default_factory=BigFive)
    interaction_style: list[str] = Field(default_factory=list)
    behaviours: list[Behaviour] | None = None
    task: str = Field(min_length=1)
    targets: str | None = None
    description: str | None = None

    _lists = field_validator("background", "interaction_style", mode="before")(_as_list)

    def offline_behaviours(self) -> list[Behaviour]:
        """``behaviours`` as written; without them, those implied by ``traits``
        (``TRAIT_BEHAVIOURS``) and cue words of ``interaction_style``, in ``BEHAVIOURS``
        order. ``long_turns`` gives way to ``short_turns`` when both are implied."""
        if self.behaviours is not None:
            return list(dict.fromkeys(self.behaviours))
        found: set[Behaviour] = set()
        for trait, level in self.traits.model_dump().items():
            implied = TRAIT_BEHAVIOURS.get((trait, level))
            if implied is not None:
                found.add(implied)
        style = " ".join(self.interaction_style).lower()
        found |= {behaviour for cue, behaviour in _STYLE_CUES if re.search(cue, style)}
        if {"short_turns", "long_turns"} <= found:
            found.discard("long_turns")
        return [b for b in get_args(Behaviour) if b in found]

    def prompt_text(self) -> str:
        """The persona as a model reads it: description, who, traits, style and task."""
        lines = [f"Name: {self.name}"]
        if self.description:
            lines.insert(0, self.description.strip())
        who = ", ".join(x for x in (self.gender, f"{self.age} years old" if self.age else "") if x)
        if who:
            lines.append(f"You are {who}.")
        lines += [f"Background: {b}" for b in self.background]
        traits = ", ".join(f"{k} {v}" for k, v in self.traits.model_dump().items())
        lines.append(f"Personality (Big Five): {traits}.")
        lines += [f"Interaction style: {s}" for s in self.interaction_style]
        if self.targets:
            lines.append(f"You try to make the chatbot show this breakdown: {self.targets}.")
        lines.append(f"Your task: {self.task.strip()}")
        return "\n".join(lines)


def load_persona_file(path: Path | str) -> PersonaFile:
    """Read and check one persona file: sparring's, a ChatChecker persona file or a
    ChatChecker run's ``persona_info.yaml`` (``persona_from_chatchecker``). Raises
    ``ConfigError`` with every problem located (file, line, key), e.g.
    ``persona.yaml:4 [hobby]: unknown key``."""
    data, lines = load_yaml_with_lines(path)
    if is_chatchecker_persona(data):
        persona = load_chatchecker_persona(path)
        try:
            return persona_from_chatchecker(persona)
        except ValidationError as exc:  # ChatChecker's file allows what a persona may not
            inner = ("persona",) if "persona_id" not in data else ()
            raise ConfigError(_chatchecker_problems(path, exc, lines, inner)) from exc
    return load_yaml_model(path, PersonaFile, "a persona file: a mapping (name, task, …)")


_CHATCHECKER_KEYS: dict[str, tuple[str, ...]] = {
    "name": ("profile", "name"),
    "gender": ("profile", "gender"),
    "age": ("profile", "age"),
    "background": ("profile", "background_info"),
    "traits": ("profile", "personality"),
    "interaction_style": ("profile", "interaction_style"),
    "description": ("profile",),
}
"""Where each field of a persona file comes from in a ChatChecker persona file."""


def _chatchecker_problems(
    path: Path | str, exc: ValidationError, lines: LineMap, inner: tuple[str, ...]
) -> list[Problem]:
    """The errors of a ChatChecker persona turned into a persona file, located at the
    ChatChecker keys they come from (``profile.age``, ``task``…)."""
    problems = []
    for error in exc.errors(include_url=False):
        field, *rest = list(error["loc"]) or [""]
        where = (*inner, *_CHATCHECKER_KEYS.get(str(field), (str(field),)), *rest)
        key, line = lines.resolve(where, missing=False)
        message = f"not usable as a persona: {error['msg']}"
        problems.append(Problem(str(path), line, format_key(key), message))
    return problems


def persona_from_chatchecker(persona: ChatCheckerPersona) -> PersonaFile:
    """A ChatChecker persona as a persona file: its profile's name, gender, age,
    ``background_info`` (as ``background``), Big Five ``personality`` (as ``traits``) and
    interaction style, its type and task; a hand-written profile (text or any mapping)
    becomes the ``description``. ChatChecker's ``persona_id`` is kept in the
    description's first line when the profile has a name of its own."""
    profile = persona.profile
    if isinstance(profile, ChatCheckerPersonaProfile):
        return PersonaFile(
            name=profile.name,
            type=persona.type.value,
            gender=profile.gender,
            age=profile.age,
            background=profile.background_info,
            traits=BigFive.model_validate(profile.personality.model_dump(mode="json")),
            interaction_style=profile.interaction_style,
            task=persona.task,
        )
    text = profile if isinstance(profile, str) else yaml.safe_dump(profile, sort_keys=False)
    return PersonaFile(
        name=persona.name,
        type=persona.type.value,
        task=persona.task,
        description=text.strip() or None,
    )


def load_persona_files(paths: Iterable[Path | str]) -> list[tuple[Path, PersonaFile]]:
    """Every persona of ``persona_files(paths)`` with its file. Raises ``ConfigError``
    listing every problem of every file (and a missing path) before returning any."""
    problems: list[Problem] = []
    loaded: list[tuple[Path, PersonaFile]] = []
    for path in persona_files(paths):
        if not path.is_file():
            problems.append(Problem(str(path), None, "", "no such persona file"))
            continue
        try:
            loaded.append((path, load_persona_file(path)))
        except ConfigError as exc:
            problems += exc.problems
    if problems:
        raise ConfigError(problems)
    return loaded


def persona_files(paths: Iterable[Path | str]) -> list[Path]:
    """Files as given; folders give their ``*.yaml``/``*.yml`` files (not recursive),
    sorted. A path that does not exist is kept so that loading reports it."""
    found: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            found += sorted(p for p in entry.iterdir() if p.suffix in (".yaml", ".yml"))
        else:
            found.append(entry)
    return found


def dump_persona(persona: PersonaFile) -> str:
    """The persona as YAML text in the file format (keys in field order, unset ones out)."""
    data = persona.model_dump(mode="json", exclude_none=True)
    if persona.behaviours is None:
        data.pop("behaviours", None)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


register_schema("persona", PersonaFile)
