"""From profile files to conversation specs: load, plan, translate.

The only module of ``sparring.simulate`` that knows the profile format; everything after
it reads ``ConversationSpec``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sparring.errors import ConfigError, Problem
from sparring.profiles import (
    PersonaFile,
    PlannedConversation,
    Profile,
    check_profiles,
    is_any_item,
    load_persona_files,
    plan_conversations,
    profile_files,
)
from sparring.simulate._persona_plan import (
    MAX_TURN_WORDS,
    PERSONA_TURNS,
    TYPICAL_TURN_WORDS,
    persona_names,
    persona_spec,
    with_persona,
)
from sparring.simulate._spec import ConversationSpec, OutputSpec, StopCondition
from sparring.values import Synonyms

if TYPE_CHECKING:
    from sparring.connectors import ChatbotInfo
    from sparring.llm import Model


def load_profiles(paths: Iterable[Path | str]) -> list[Profile]:
    """Load every profile named by ``paths`` (files or folders).

    Raises ``ConfigError`` listing every problem of every file before anything runs.
    """
    paths = list(paths)
    problems: list[Problem] = []
    profiles: list[Profile] = []
    for check in check_profiles(profile_files(paths)):
        problems.extend(check.errors)
        if check.profile is not None:
            profiles.append(check.profile)
    if problems:
        raise ConfigError(problems)
    if not profiles:
        given = ", ".join(str(path) for path in paths)
        raise ConfigError([Problem(given, None, "", "no profile files found (*.yaml, *.yml)")])
    return profiles


PlanInputs = tuple[list[Profile], list[tuple[Path, PersonaFile]]]
"""The profiles and the persona files (with their paths) a run plays."""


def load_plan_inputs(paths: Iterable[Path | str], personas: Iterable[Path | str]) -> PlanInputs:
    """Read and check the profile files or folders ``paths`` (none read when only
    personas are given) and the persona files or folders ``personas``. Raises
    ``ConfigError`` listing every problem (file, line, key) before returning any."""
    loaded = load_persona_files(personas)
    paths = list(paths)
    return (load_profiles(paths) if paths or not loaded else []), loaded


async def plan_run(
    paths: Iterable[Path | str],
    *,
    seed: int,
    model: Model | None = None,
    chatbot: ChatbotInfo | None = None,
    personas: Iterable[Path | str] = (),
    turn_words: tuple[int | None, int | None] = (TYPICAL_TURN_WORDS, MAX_TURN_WORDS),
    persona_turns: int = PERSONA_TURNS,
    inputs: PlanInputs | None = None,
) -> tuple[list[ConversationSpec], list[Path]]:
    """Load and plan every profile; return the specs (ids ``<profile>/<index>``) and the
    profile files. Two profiles with the same ``test_name`` get their file stem added.
    ``chatbot`` is chatbot.yaml's ``info`` (its fallback serves profiles that set none).

    ``personas`` (persona files or folders) play every planned conversation of every
    profile (ids ``<profile>+<persona>/<index>``), replacing a profile's own
    ``user.persona`` (which plays its conversations under their usual ids); with no
    profiles, each persona is one conversation of its own (``<persona>/0``, see
    ``_persona_plan``). ``turn_words`` is the typical and maximum user turn length in
    words told to a persona-playing model and ``persona_turns`` the most user turns of a
    persona playing alone (ChatChecker's ``user_simulation_config``).
    Every file is checked before planning: ``ConfigError`` lists every problem.
    ``inputs`` is what ``load_plan_inputs(paths, personas)`` returned (read again when
    ``None``)."""
    profiles, loaded = inputs if inputs is not None else load_plan_inputs(paths, personas)
    names = [p.name for p in profiles]
    typical, longest = turn_words
    specs: list[ConversationSpec] = []
    for position, profile in enumerate(profiles):
        name = profile.name
        if names.count(name) > 1 and profile.source is not None:
            name = f"{name}-{profile.source.stem}"
        players = _players(profile, loaded)
        for planned in await plan_conversations(profile, seed=seed + position * 7919, model=model):
            spec = spec_from_plan(profile, planned, name=name, seed=seed, chatbot=chatbot)
            specs += [
                with_persona(spec, persona, path, player, seed=seed, chatbot=chatbot,
                             typical_words=typical, max_words=longest)
                for path, persona, player in players
            ] or [spec]  # fmt: skip
    if not profiles:
        for (path, persona), name in zip(loaded, persona_names(loaded), strict=True):
            specs.append(
                persona_spec(persona, path, name, seed=seed, chatbot=chatbot,
                             typical_words=typical, max_words=longest, turns=persona_turns)
            )  # fmt: skip
    files = [p.source for p in profiles if p.source is not None]
    return specs, files


def _players(
    profile: Profile, loaded: list[tuple[Path, PersonaFile]]
) -> list[tuple[Path, PersonaFile, str | None]]:
    """Who plays ``profile``'s conversations: every ``--persona`` (with its name for the
    ids), else the profile's own ``user.persona`` (no name: the ids stay), else nobody."""
    if loaded:
        return [(p, f, n) for (p, f), n in zip(loaded, persona_names(loaded), strict=True)]
    if profile.persona_file is not None:
        return [(*profile.persona_file, None)]
    return []


def spec_from_plan(
    profile: Profile,
    planned: PlannedConversation,
    *,
    name: str | None = None,
    seed: int = 0,
    chatbot: ChatbotInfo | None = None,
) -> ConversationSpec:
    """The ``ConversationSpec`` of one planned conversation of ``profile``; ``chatbot``
    (chatbot.yaml's ``info``) gives what the profile leaves out (``fallback_of``)."""
    name = name or profile.name
    style = planned.goal_style
    if style.kind == "all_answered":
        limit = style.all_answered.limit if style.all_answered is not None else None
        stop = StopCondition("all_answered", limit=limit, max_cost=style.max_cost)
    else:
        stop = StopCondition("steps", steps=style.steps, max_cost=style.max_cost)
    return ConversationSpec(
        id=f"{name}/{planned.index}",
        profile=name,
        index=planned.index,
        seed=zlib.crc32(f"{seed}/{name}/{planned.index}".encode()),
        profile_path=str(profile.source) if profile.source else None,
        language=profile.language,
        role=profile.role,
        context=tuple(profile.context_texts()),
        goals=tuple(planned.goals),
        goal_templates=tuple(profile.goal_templates),
        variables=dict(planned.variables),
        alternatives=_alternatives(profile),
        interaction_styles=tuple(planned.interaction_styles),
        is_starter=profile.is_starter,
        fallback=fallback_of(profile, chatbot),
        synonyms=Synonyms.of(profile.chatbot.synonyms),
        outputs=_outputs(profile),
        stop=stop,
        settings=profile.conversation.model_dump(
            mode="json", by_alias=True, exclude_none=True, warnings=False
        ),
        run_max_cost=profile.conversation.max_cost,
    )


def fallback_of(profile: Profile, chatbot: ChatbotInfo | None) -> str | None:
    """The chatbot's fallback phrase for ``profile``'s conversations: the profile's
    ``chatbot.fallback`` where it sets one, else chatbot.yaml's ``info.fallback``."""
    return profile.fallback or (chatbot.fallback if chatbot is not None else None) or None


def _outputs(profile: Profile) -> tuple[OutputSpec, ...]:
    """The profile's output data items with their type as written (``money``, ``time(%H:%M)``)."""
    return tuple(
        OutputSpec(name, spec.type, spec.description)
        for item in profile.chatbot.output
        for name, spec in item.items()
    )


def _alternatives(profile: Profile) -> dict[str, list[Any]]:
    """Each list-valued variable's literal options (``any(...)`` items left out)."""
    out: dict[str, list[Any]] = {}
    for variable in profile.variables:
        if isinstance(variable.data, list):
            out[variable.name] = [v for v in variable.data if not is_any_item(v)]
    return out
