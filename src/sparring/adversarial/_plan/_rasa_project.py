"""Reading a Rasa 3.x project as YAML with line numbers (no Rasa needed): the domain
(one file or a ``domain/`` folder), NLU examples, rules, stories, the pipeline, and the
names the actions' Python files mention."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring._yaml import LineMap, load_yaml_with_lines

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
_ANNOTATION = re.compile(r"\]\((\w+)\)|\"entity\":\s*\"(\w+)\"")
"""An entity annotated in an NLU example: ``[coke](drink)`` or ``{"entity": "drink"}``."""


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


@dataclass
class Flow:
    """A rule or story: its steps as ``(kind, name, line)``; ``condition`` the active
    loop it needs (rules)."""

    kind: str
    name: str
    use: Use
    steps: list[tuple[str, str, int | None]]
    condition: str | None = None


def is_rasa_project(folder: Path) -> bool:
    """True when ``folder`` holds a Rasa domain (``domain.yml``/``.yaml`` or ``domain/``)."""
    return any((folder / name).exists() for name in ("domain.yml", "domain.yaml", "domain"))


def yaml_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".yml", ".yaml") and path.is_file():
            parts = set(path.relative_to(folder).parts)
            if not parts & {"models", ".rasa", "tests", "results"}:
                yield path


def read_project(folder: Path) -> RasaProject:
    project = RasaProject(root=folder)
    for path in yaml_files(folder):
        data, lines = load_yaml_with_lines(path)
        if not isinstance(data, dict):
            continue
        rel = path.relative_to(folder).as_posix()
        if rel.startswith("domain") or "intents" in data or "responses" in data:
            _read_domain(project, rel, data, lines)
        if isinstance(data.get("nlu"), list):
            _read_nlu(project, rel, data["nlu"], lines)
        for kind in ("rules", "stories"):
            if isinstance(data.get(kind), list):
                _read_flows(project, rel, kind, data[kind], lines)
        if isinstance(data.get("pipeline"), list):
            project.pipeline += [
                str(c.get("name")) for c in data["pipeline"] if isinstance(c, dict)
            ]
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        project.code_strings |= set(_STRING.findall(text))
    return project


def _name(item: Any) -> str:
    if isinstance(item, dict) and item:
        return str(next(iter(item)))
    return str(item)


def _read_domain(project: RasaProject, rel: str, data: dict[str, Any], lines: LineMap) -> None:
    project.domain_file = rel
    for index, item in enumerate(data.get("intents") or []):
        project.intents[_name(item)] = Use(rel, lines.get(("intents", index)))
    project.entities |= {_name(e) for e in data.get("entities") or []}
    for name, slot in (data.get("slots") or {}).items():
        mappings = slot.get("mappings") if isinstance(slot, dict) else None
        use = Use(rel, lines.get(("slots", name)))
        project.slots[str(name)] = (use, [m for m in mappings or [] if isinstance(m, dict)])
    for name, form in (data.get("forms") or {}).items():
        required = form.get("required_slots") if isinstance(form, dict) else None
        slots = [str(s) for s in required] if isinstance(required, list) else []
        project.forms[str(name)] = (Use(rel, lines.get(("forms", name))), slots)
    for name in data.get("responses") or {}:
        project.responses[str(name)] = Use(rel, lines.get(("responses", name)))
    for index, item in enumerate(data.get("actions") or []):
        project.actions[_name(item)] = Use(rel, lines.get(("actions", index)))


def _read_nlu(project: RasaProject, rel: str, items: list[Any], lines: LineMap) -> None:
    for index, item in enumerate(items):
        if isinstance(item, dict) and "intent" in item:
            intent = str(item["intent"])
            project.examples.setdefault(intent, Use(rel, lines.get(("nlu", index))))
            text = str(item.get("examples") or "")
            found = {a or b for a, b in _ANNOTATION.findall(text)}
            project.example_entities.setdefault(intent, set()).update(found)
            texts = project.example_texts.setdefault(intent, [])
            texts += [_plain_example(line) for line in text.splitlines() if line.strip()]


def _plain_example(line: str) -> str:
    """An NLU example as a user types it: ``- a [large](size) [coke](drink)`` → ``a large
    coke``."""
    text = re.sub(r"\[([^\]]*)\](\([^)]*\)|\{[^}]*\})", r"\1", line.strip())
    return text.removeprefix("-").strip()


def _read_flows(
    project: RasaProject, rel: str, kind: str, items: list[Any], lines: LineMap
) -> None:
    if kind == "stories" and items:
        project.stories_file = rel
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        name = str(item.get("rule") or item.get("story") or f"{kind}[{index}]")
        flow = Flow(kind, name, Use(rel, lines.get((kind, index))), [])
        for cond in item.get("condition") or []:
            if isinstance(cond, dict) and cond.get("active_loop"):
                flow.condition = str(cond["active_loop"])
        for s_index, step in enumerate(item.get("steps") or []):
            line = lines.get((kind, index, "steps", s_index))
            flow.steps += list(_step(step, line))
        project.flows.append(flow)


def _step(step: Any, line: int | None) -> Iterator[tuple[str, str, int | None]]:
    if not isinstance(step, dict):
        return
    for key in ("intent", "action", "active_loop"):
        if step.get(key) is not None:
            yield key, str(step[key]), line
    for option in step.get("or") or []:
        if isinstance(option, dict) and option.get("intent"):
            yield "intent", str(option["intent"]), line
