"""``sparring personas generate`` as a library function the CLI and the dashboard call:
read the chatbot's description, generate the personas asked for, write them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sparring.connectors import load_chatbot_config
from sparring.errors import ModelRequired, UserInputError
from sparring.personas._breakdown_types import load_breakdown_types
from sparring.personas._generation import generate_personas, tester_personas, write_personas
from sparring.types import TextModel

PersonaKind = Literal["standard", "challenging", "adversarial", "tester"]
"""What ``personas generate`` writes: ChatChecker's standard, challenging and adversarial
personas (a model writes them), or one tester persona per breakdown type (offline)."""


@dataclass(frozen=True)
class GeneratedPersonas:
    """The persona files written (``paths``, in the order generated) and how many were
    asked for (``asked``; ``None`` for tester personas, one per breakdown type)."""

    paths: list[Path]
    asked: int | None

    @property
    def short(self) -> bool:
        """The model wrote fewer personas than asked for."""
        return self.asked is not None and len(self.paths) < self.asked


async def generate_persona_files(
    chatbot: Path,
    kind: PersonaKind,
    out: Path,
    model: TextModel | None,
    *,
    n: int = 3,
    breakdowns: Path | None = None,
    seed: int = 0,
) -> GeneratedPersonas:
    """Generate ``n`` personas of ``kind`` for the chatbot ``chatbot`` (a chatbot.yaml,
    whose ``info`` describes the bot) and write them into the folder ``out`` (existing
    files are never overwritten; see ``write_personas``).

    ``tester`` writes one persona per breakdown type of ``breakdowns`` (YAML, ``name:
    description``), offline without a model (ChatChecker's tester personas, Sec. 3.3);
    the other kinds need ``model``. Raises ``UserInputError`` (located) for a bad
    chatbot.yaml or breakdown file, for ``tester`` without ``breakdowns`` and for a kind
    that needs a model without one; ``ModelError`` when the model fails."""
    info = load_chatbot_config(chatbot).info
    if kind == "tester":
        if breakdowns is None:
            raise UserInputError("--type tester needs --breakdowns FILE (breakdown types)")
        personas = await tester_personas(load_breakdown_types(breakdowns), info, model)
        return GeneratedPersonas(write_personas(personas, out), None)
    try:
        personas = await generate_personas(info, kind, n, model, seed=seed)
    except ModelRequired as exc:
        raise UserInputError(str(exc)) from exc
    return GeneratedPersonas(write_personas(personas, out), n)
