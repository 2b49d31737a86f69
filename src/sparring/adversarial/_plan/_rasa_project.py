"""The adversarial scan's view of a Rasa project (no Rasa needed), built from the one
reader every part shares (``sparring.rasa_project``): names with the file and 1-based line
where each is declared, slot mappings, forms and their slots, NLU examples, rules and
stories as steps, the pipeline, and the names the actions' Python files mention."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring._files import read_user_text, user_files
from sparring.rasa_project import (
    dialogues,
    entity_values,
    is_rasa_project,
    load_project,
    plain_example,
)

DEFAULT_ACTIONS = frozenset(
    {
        "action_listen",
        "action_restart",
        "action_session_start",
        "action_default_fallback",
        "action_deactivate_loop",
        "action_revert_fallback_events",
        "action_default_ask_affirmation",
        "action_default_ask_rephrase",
        "action_two_stage_fallback",
        "action_unlikely_intent",
        "action_back",
        "action_extract_slots",
    }
)
"""Rasa's built-in actions: used without being declared."""

EVIDENCE = 3
"""NLU examples kept as a finding's evidence at most."""
BUILTIN_INTENTS = frozenset({"nlu_fallback", "restart", "back", "session_start"})
UNHAPPY_INTENTS = frozenset({"nlu_fallback", "out_of_scope", "deny", "stop", "chitchat"})
_STRING = re.compile(r"""["']([A-Za-z_][\w]*)["']""")

__all__ = [
    "BUILTIN_INTENTS",
    "DEFAULT_ACTIONS",
    "EVIDENCE",
    "UNHAPPY_INTENTS",
    "Flow",
    "RasaProject",
    "Use",
    "is_rasa_project",
    "read_project",
]


@dataclass
class Use:
    """Where a name is used: file and line."""

    file: str
    line: int | None


@dataclass
class RasaProject:
    root: Path
    domain_file: str = "domain.yml"
    intents: dict[str, Use] = field(default_factory=dict)
    entities: set[str] = field(default_factory=set)
    slots: dict[str, tuple[Use, list[dict[str, Any]]]] = field(default_factory=dict)
    forms: dict[str, tuple[Use, list[str]]] = field(default_factory=dict)
    responses: dict[str, Use] = field(default_factory=dict)
    actions: dict[str, Use] = field(default_factory=dict)
    examples: dict[str, Use] = field(default_factory=dict)
    example_entities: dict[str, set[str]] = field(default_factory=dict)
    example_texts: dict[str, list[str]] = field(default_factory=dict)
    flows: list[Flow] = field(default_factory=list)
    pipeline: list[str] = field(default_factory=list)
    code_strings: set[str] = field(default_factory=set)
    stories_file: str | None = None
    files: int = 0
    """YAML and Markdown files read."""


@dataclass
class Flow:
    """A rule or story: its steps as ``(kind, name, line)``; ``condition`` the active
    loop it needs (rules)."""

    kind: str
    name: str
    use: Use
    steps: list[tuple[str, str, int | None]]
    condition: str | None = None


def read_project(folder: Path) -> RasaProject:
    """The project in ``folder`` (``ConfigError`` with file and line for a YAML file that
    does not parse)."""
    read = load_project(folder)
    project = RasaProject(root=folder)
    for domain in read.domains:
        project.domain_file = domain.path
        for entry in domain.intents:
            project.intents[entry.name] = Use(domain.path, entry.start + 1)
        project.entities |= {e.name for e in domain.entities}
        for slot in domain.slots:
            project.slots[slot.name] = (Use(domain.path, slot.start + 1), list(slot.mappings))
        for form in domain.forms:
            project.forms[form.name] = (Use(domain.path, form.start + 1), list(form.required))
        for response in domain.responses:
            project.responses[response.name] = Use(domain.path, response.line + 1)
        for entry in domain.actions:
            project.actions[entry.name] = Use(domain.path, entry.start + 1)
    for file in read.training:
        for block in (b for b in file.nlu if b.kind == "intent"):
            project.examples.setdefault(block.name, Use(file.path, block.start + 1))
            entities = {entity for e in block.examples for _, entity in entity_values(e.text)}
            project.example_entities.setdefault(block.name, set()).update(entities)
            texts = project.example_texts.setdefault(block.name, [])
            texts += [plain_example(e.text) for e in block.examples]
    for file, dialogue in dialogues(read):
        kind = "rules" if dialogue.kind == "rule" else "stories"
        if kind == "stories":
            project.stories_file = project.stories_file or file.path
        steps: list[tuple[str, str, int | None]] = []
        for step in dialogue.steps:
            names = step.names if step.kind == "or" else (step.name,)
            kind_of = "intent" if step.kind == "or" else step.kind
            if kind_of in ("intent", "action", "active_loop"):
                steps += [(kind_of, name, step.start + 1) for name in names]
        use = Use(file.path, dialogue.start + 1)
        project.flows.append(Flow(kind, dialogue.name, use, steps, dialogue.condition))
    if read.config is not None:
        project.pipeline = [e.name for e in read.config.entries if e.section == "pipeline"]
    project.files = sum(
        1
        for path in folder.rglob("*")
        if path.suffix in (".yml", ".yaml")
        and path.is_file()
        and not set(path.relative_to(folder).parts) & {"models", ".rasa", "tests", "results"}
    )
    for path in user_files(folder, (".py",)):
        text = read_user_text(path, errors="replace")
        project.code_strings |= set(_STRING.findall(text))
    return project
