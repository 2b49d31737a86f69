"""Personas in conversation specs: a persona with a profile's conversations, or alone.

A persona (``sparring.profiles.PersonaFile``) plays the user of a planned conversation:
the LLM simulator is given its description, traits and task (``_persona_simulator``); the
offline agenda simulator acts out its behaviours (``PersonaFile.offline_behaviours``):
``short_turns``, ``long_turns``, ``typos``, ``several_goals`` and ``weak_language``
become SENSEI interaction styles (``BEHAVIOUR_STYLES``); ``change_goal``,
``repeat_question`` and ``vague_answers`` are agenda behaviours (``AGENDA_BEHAVIOURS``).
A persona with no profile becomes one conversation whose goal is the persona's task,
ending after ``PERSONA_TURNS`` user turns or when the user ends it.
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sparring.profiles import PersonaFile
from sparring.simulate._spec import ConversationSpec, StopCondition

if TYPE_CHECKING:
    from sparring.connectors import ChatbotInfo

BEHAVIOUR_STYLES: dict[str, tuple[str, ...]] = {
    "short_turns": ("short phrases",),
    "long_turns": ("long phrases",),
    "typos": ("make spelling mistakes",),
    "several_goals": ("all questions",),
    "weak_language": ("make spelling mistakes", "short phrases"),
}
"""Persona behaviours the agenda simulator realises as SENSEI interaction styles."""

AGENDA_BEHAVIOURS = ("change_goal", "repeat_question", "vague_answers")
"""Persona behaviours the agenda simulator realises itself (``AgendaSimulator``)."""

PERSONA_TURNS = 10
"""User turns of a persona conversation with no profile (ChatChecker's default
``max_user_turns``); ``--max-turns`` caps it."""
TYPICAL_TURN_WORDS = 10
"""Words in a typical user turn, told to a persona-playing model (ChatChecker's
``typical_user_turn_length``)."""
MAX_TURN_WORDS = 30
"""Words a user turn must stay below, told to a persona-playing model (ChatChecker's
``max_user_turn_length``)."""


def persona_names(personas: list[tuple[Path, PersonaFile]]) -> list[str]:
    """A name per persona for conversation ids: the file stem (a ChatChecker run's
    ``persona_info.yaml``: its folder's name), with its folder's name before it when two
    personas share it (ChatChecker reuses persona ids and names across generation runs
    and simulation runs, whose personas must not merge), made unique."""
    stems = [_stem(path) for path, _ in personas]
    names: list[str] = []
    for (path, _), stem in zip(personas, stems, strict=True):
        folder = (path.parent.parent if path.name == PERSONA_INFO else path.parent).name
        base = f"{folder}.{stem}" if stems.count(stem) > 1 and folder else stem
        name, counter = base, 1
        while name in names:
            counter += 1
            name = f"{base}-{counter}"
        names.append(name)
    return names


PERSONA_INFO = "persona_info.yaml"
"""The file a ChatChecker run keeps its persona in, one folder per persona."""


def _stem(path: Path) -> str:
    return path.parent.name if path.name == PERSONA_INFO and path.parent.name else path.stem


def with_persona(
    spec: ConversationSpec,
    persona: PersonaFile,
    path: Path,
    name: str | None,
    *,
    seed: int,
    typical_words: int | None = TYPICAL_TURN_WORDS,
    max_words: int | None = MAX_TURN_WORDS,
    chatbot: ChatbotInfo | None = None,
) -> ConversationSpec:
    """``spec`` (one planned conversation of a profile) played by ``persona``, with the
    persona's behaviours added: id ``<profile>+<name>/<index>`` and its own seed, or, with
    ``name`` ``None`` (the profile's own ``user.persona``), the spec's id and seed."""
    styles, behaviours = persona_styles(persona, spec.interaction_styles)
    plan = spec.profile if name is None else f"{spec.profile}+{name}"
    return replace(
        spec,
        id=spec.id if name is None else f"{plan}/{spec.index}",
        seed=spec.seed if name is None else zlib.crc32(f"{seed}/{plan}/{spec.index}".encode()),
        interaction_styles=styles,
        persona=persona,
        persona_path=str(path),
        behaviours=behaviours,
        typical_turn_words=typical_words,
        max_turn_words=max_words,
        chatbot=chatbot or spec.chatbot,
    )


def persona_spec(
    persona: PersonaFile,
    path: Path,
    name: str,
    *,
    seed: int,
    typical_words: int | None = TYPICAL_TURN_WORDS,
    max_words: int | None = MAX_TURN_WORDS,
    chatbot: ChatbotInfo | None = None,
    turns: int = PERSONA_TURNS,
) -> ConversationSpec:
    """The one conversation of ``persona`` alone (id ``<name>/0``): its task is the goal,
    the chatbot may greet first, ``turns`` user turns at most (ChatChecker's
    ``max_user_turns``; default ``PERSONA_TURNS``)."""
    styles, behaviours = persona_styles(persona, ())
    about = chatbot.name or chatbot.description if chatbot is not None else None
    return ConversationSpec(
        id=f"{name}/0",
        profile=name,
        seed=zlib.crc32(f"{seed}/{name}/0".encode()),
        role=f"a user of {about}" if about else "a user of the chatbot",
        goals=(persona.task,),
        goal_templates=(persona.task,),
        interaction_styles=styles,
        is_starter=True,
        fallback=chatbot.fallback if chatbot is not None else None,
        stop=StopCondition("steps", steps=turns),
        persona=persona,
        persona_path=str(path),
        behaviours=behaviours,
        typical_turn_words=typical_words,
        max_turn_words=max_words,
        chatbot=chatbot,
    )


def persona_styles(
    persona: PersonaFile, styles: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[str, ...]]:
    """``styles`` (a profile's interaction styles) with the persona's style behaviours
    added, and the persona's agenda behaviours."""
    present = {s for s in styles if isinstance(s, str)}
    added: list[Any] = list(styles)
    behaviours: list[str] = []
    for behaviour in persona.offline_behaviours():
        if behaviour in AGENDA_BEHAVIOURS:
            behaviours.append(behaviour)
        for style in BEHAVIOUR_STYLES.get(behaviour, ()):
            if style not in present:
                present.add(style)
                added.append(style)
    return tuple(added), tuple(behaviours)
