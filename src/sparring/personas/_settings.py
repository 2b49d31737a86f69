"""The settings of ``sparring personas generate`` (and the dashboard's form for it)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from sparring.jobs import JobSettings
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.personas._job import PersonaKind


class PersonaSettings(JobSettings):
    """What ``generate_persona_files`` is asked: the ``chatbot`` whose ``info`` describes
    the bot, the ``kind`` of persona, how many (``n``; not for ``tester``: one per
    breakdown type of ``breakdowns``), the folder ``out``, the ``seed`` of the variety
    asked of the model and the model (``None``: only ``tester`` personas can be written)."""

    chatbot: Path = Field(description="chatbot.yaml (its info describes the bot).")
    kind: PersonaKind = Field("standard", description="Kind of persona.")
    n: int = Field(3, ge=1, description="How many personas (not for tester).")
    out: Path = Field(Path("personas"), description="Folder to write them to.")
    breakdowns: Path | None = Field(
        None, description="tester: YAML of breakdown types (name: description), one tester each."
    )
    seed: int = Field(0, description="Seed for the variety asked of the model.")
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
