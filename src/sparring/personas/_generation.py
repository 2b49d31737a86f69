"""Generating persona files with a model, tester personas per breakdown type, and writing
them to a folder.

After ChatChecker (Mayr, Schimpf, Bohné, 2025, §3.1 and its ``persona_generator``: one
structured call writes N personas of a kind for the chatbot's description; its
``testers`` simulate one user per leaf of the breakdown taxonomy). Differences: N is
split into batches of ``BATCH_SIZE`` run concurrently within the model's concurrency,
each batch seeded with different suggestions for variety, and one top-up call asks for
any personas the batches left out; testers are personas too (``type: tester``,
``targets``), written by the model or, offline, from the breakdown's description.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeVar

from sparring.connectors import ChatbotInfo
from sparring.conversations import atomic_write
from sparring.errors import ModelError, ModelRequired
from sparring.jobs import gather_bounded
from sparring.personas._prompts import (
    PersonaDraft,
    PersonaDrafts,
    generation_messages,
    tester_messages,
)
from sparring.profiles import PersonaFile, dump_persona
from sparring.types import TextModel

MODULE = "personas"
"""The ``module`` tag of every model call of persona generation."""

BATCH_SIZE = 5
"""Personas asked for in one model call."""

GeneratedKind = Literal["standard", "challenging", "adversarial"]

_ANGLES = (
    "a teenager",
    "someone over seventy",
    "a non-native speaker",
    "a busy parent with little time",
    "a first-time user of chatbots",
    "an expert in the chatbot's domain",
    "someone with a visual or motor impairment",
    "a small-business owner",
    "a student on a tight budget",
    "someone typing on a phone while on the move",
    "a person who distrusts automated services",
    "someone planning for a group or family",
)

T = TypeVar("T")


async def generate_personas(
    chatbot: ChatbotInfo,
    kind: GeneratedKind,
    n: int,
    model: TextModel | None,
    *,
    seed: int = 0,
) -> list[PersonaFile]:
    """``n`` personas of ``kind`` for the chatbot ``chatbot`` describes (chatbot.yaml's
    ``info``), in the order the model wrote them.

    Raises ``ModelRequired`` (naming ``--model``) before any work when ``model`` is
    ``None``, ``ValueError`` for ``n < 1``, and ``ModelError``/``BudgetExceeded`` when a
    call fails. Returns fewer than ``n`` only when the top-up call also falls short.
    Every call passes ``module="personas"``; at most ``model.concurrency`` run at once.
    """
    if model is None:
        raise ModelRequired("persona generation", "sparring personas generate")
    if n < 1:
        raise ValueError("n must be at least 1")
    rng = random.Random(seed)
    sizes = [min(BATCH_SIZE, n - start) for start in range(0, n, BATCH_SIZE)]
    calls = [
        _drafts(model, generation_messages(chatbot, kind, size, _angles(rng), [])) for size in sizes
    ]
    drafts = [d for batch in await gather_bounded(calls, model.concurrency) for d in batch][:n]
    if len(drafts) < n:
        names = [d.name for d in drafts]
        messages = generation_messages(chatbot, kind, n - len(drafts), _angles(rng), names)
        drafts += (await _drafts(model, messages))[: n - len(drafts)]
    return [_persona(draft, kind) for draft in drafts]


async def tester_personas(
    breakdown_types: Sequence[tuple[str, str]],
    chatbot: ChatbotInfo,
    model: TextModel | None,
) -> list[PersonaFile]:
    """One ``tester`` persona per breakdown type, given as ``(name, description)``
    pairs (e.g. the leaves of ChatChecker's taxonomy), in that order; each ``targets``
    its type.

    With a model, one call per type (``module="personas"``, within ``model.concurrency``);
    offline, a persona written from the type's description (ChatChecker's testers are
    instructions only). Raises ``ModelError``/``BudgetExceeded`` when a call fails.
    """
    if model is None:
        return [offline_tester(name, description, chatbot) for name, description in breakdown_types]

    async def one(name: str, description: str) -> PersonaFile:
        messages = tester_messages(chatbot, name, description)
        generation = await model.generate(messages, PersonaDraft, module=MODULE)
        draft = generation.parsed
        if not isinstance(draft, PersonaDraft):
            raise ModelError(f"tester persona for {name!r}: the reply is not a persona")
        return _persona(draft, "tester", targets=name)

    calls = [one(name, description) for name, description in breakdown_types]
    return await gather_bounded(calls, model.concurrency)


def offline_tester(name: str, description: str, chatbot: ChatbotInfo) -> PersonaFile:
    """The tester persona for breakdown ``name`` written without a model."""
    service = chatbot.description or chatbot.name or "the chatbot's service"
    return PersonaFile(
        name=f"{name} tester",
        type="tester",
        targets=name,
        interaction_style=[
            "You stay believable: a real user with a real request.",
            "You keep steering towards the breakdown for a few turns, then end the chat.",
        ],
        behaviours=[],
        task=(
            f"Use the chatbot ({service.strip()}) as a real user would, and steer the "
            f"conversation so that it shows this breakdown: {description.strip()}"
        ),
        description=(
            "You are an experienced chatbot tester playing a human user. You try to "
            f"trigger a '{name}' breakdown: {description.strip()}"
        ),
    )


def write_personas(personas: Sequence[PersonaFile], folder: Path | str) -> list[Path]:
    """Write each persona to ``folder`` (created) as ``<type>-<name>.yaml`` (testers:
    ``tester-<breakdown type>.yaml``); an existing file is never overwritten (``-2``,
    ``-3``… are added). Returns the paths written, in order."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for persona in personas:
        stem = f"{persona.type}-{slug(persona.targets or persona.name)}"
        path, counter = folder / f"{stem}.yaml", 1
        while path.exists():
            counter += 1
            path = folder / f"{stem}-{counter}.yaml"
        atomic_write(path, dump_persona(persona), durable=False)
        written.append(path)
    return written


def slug(text: str) -> str:
    """``"José Núñez"`` → ``"jose-nunez"`` (ASCII letters and digits, dashes)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "persona"


def _persona(draft: PersonaDraft, kind: str, targets: str | None = None) -> PersonaFile:
    return PersonaFile.model_validate({**draft.model_dump(), "type": kind, "targets": targets})


async def _drafts(model: TextModel, messages: list[dict[str, str]]) -> list[PersonaDraft]:
    generation = await model.generate(messages, PersonaDrafts, module=MODULE)
    parsed = generation.parsed
    if not isinstance(parsed, PersonaDrafts):
        raise ModelError("persona generation: the reply is not a list of personas")
    return parsed.personas


def _angles(rng: random.Random) -> list[str]:
    return rng.sample(_ANGLES, 3)
