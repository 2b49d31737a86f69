"""sparring.personas: generating persona files for a chatbot (ChatChecker's standard,
challenging and adversarial personas, and one tester persona per breakdown type).

    personas = await generate_personas(config.info, "challenging", 5, model, seed=0)
    write_personas(personas, "personas/")          # personas/challenging-<name>.yaml

``generate_persona_files(chatbot_yaml, kind, out, model, n=…)`` is ``sparring personas
generate`` (reads the chatbot, generates, writes; its options are ``PersonaSettings``).
The file format is ``sparring.profiles.PersonaFile`` (docs/personas.md); simulating with
personas is ``sparring simulate --persona FILE`` (``sparring.simulate``).
"""

from sparring.personas._generation import (
    BATCH_SIZE,
    MODULE,
    GeneratedKind,
    generate_personas,
    offline_tester,
    slug,
    tester_personas,
    write_personas,
)
from sparring.personas._job import GeneratedPersonas, PersonaKind, generate_persona_files
from sparring.personas._prompts import PersonaDraft, PersonaDrafts
from sparring.personas._settings import PersonaSettings

__all__ = [
    "BATCH_SIZE",
    "MODULE",
    "GeneratedKind",
    "GeneratedPersonas",
    "PersonaDraft",
    "PersonaDrafts",
    "PersonaKind",
    "PersonaSettings",
    "generate_persona_files",
    "generate_personas",
    "offline_tester",
    "slug",
    "tester_personas",
    "write_personas",
]
