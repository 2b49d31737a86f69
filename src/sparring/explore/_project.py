"""A chatbot's own definition, read to seed the exploration (``--project DIR``, issue 20).

For users who own the bot: its definition says what it understands, so every intent and
every form slot can be tried with real example utterances and values. Read formats:

- **Rasa 1.x** (``data/*.md``: ``## intent:name`` with ``- example [value](entity)``
  items, ``## story`` sections with ``* intent`` and ``  - action`` steps) and **Rasa 2/3
  YAML** (``nlu:``, ``stories:``, ``rules:``), with ``domain.yml`` (intents, slots,
  ``responses`` or 1.x ``templates``, forms);
- **Taskyto** (YAML modules: a ``name``, ``kind``, ``presentation``/``description`` and
  ``data`` items with their ``values``);
- **AIML** (``*.aiml``: every ``<pattern>`` without wildcards is an utterance, each
  category's ``<template>`` text a response).

A *form slot* is a slot the bot asks for by a response ``utter_ask_<slot>`` (Rasa's
convention; Taskyto's data items); its example values come from the entity annotations of
the NLU examples (Rasa) or the item's ``values`` (Taskyto). ``UserInputError`` names the
folder when nothing readable is found, and the file and line when a file does not parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from sparring._yaml import check_yaml_limits, read_yaml_text
from sparring.errors import UserInputError

DefinitionKind = Literal["rasa", "taskyto", "aiml"]
_ENTITY = re.compile(r"\[([^\]]+)\]\s*(?:\(([^)]+)\)|\{[^}]*\"entity\"\s*:\s*\"([^\"]+)\"[^}]*\})")
_MD_INTENT = re.compile(r"^##\s*intent\s*:\s*(\S+)")
_MD_STORY = re.compile(r"^(?:##|>>)\s*(.+?)\s*$")
_MD_SECTION = re.compile(r"^##\s*(?:synonym|regex|lookup)\s*:")
_MD_ITEM = re.compile(r"^\s*[-*+]\s+(.+?)\s*$")
_MD_USER = re.compile(r"^\s*\*\s*([^{\s]+)")
_MD_BOT = re.compile(r"^\s+-\s*([A-Za-z_][\w.-]*)\s*$")
MAX_AIML_PATTERNS = 200
"""AIML sets are large (ALICE: ~98k categories): at most this many patterns are kept."""


@dataclass
class Definition:
    """What a bot's definition says it understands and answers.

    ``intents``: intent name → example utterances (entity markup removed); ``slots``:
    form slot → example values; ``questions``: form slot → the bot's question for it;
    ``forms``: form names; ``responses``: response name → texts; ``flows``: each story or
    rule as its steps (``intent:<name>`` and ``action:<name>``); ``source``: the folder.
    """

    kind: DefinitionKind
    source: Path
    intents: dict[str, list[str]] = field(default_factory=dict)
    slots: dict[str, list[str]] = field(default_factory=dict)
    questions: dict[str, str] = field(default_factory=dict)
    forms: list[str] = field(default_factory=list)
    responses: dict[str, list[str]] = field(default_factory=dict)
    flows: dict[str, list[str]] = field(default_factory=dict)
    entities: dict[str, int] = field(default_factory=dict)
    """Example utterance → how many entity values it carries (Rasa)."""
    form_slots: dict[str, list[str]] = field(default_factory=dict)
    """Form → the slots it asks for (Rasa 1.x ``required_slots`` in ``actions.py``, Rasa
    2/3 ``required_slots`` in the domain)."""

    def values_for(self, question: str | None) -> list[str]:
        """Example values of the slot the bot asks for with ``question`` (its
        ``utter_ask_<slot>`` text, digits and case ignored); for a question that names
        several slots ("the date, time and service"), one answer with the first example of
        each; empty when none matches."""
        if not question:
            return []
        asked = _normal(question)
        for slot, text in self.questions.items():
            said = _normal(text)
            if said and (said in asked or asked in said):
                return list(self.slots.get(slot, []))
        named = [
            values[0]
            for slot, values in self.slots.items()
            if values and re.search(rf"\b{re.escape(_normal(slot))}\b", asked)
        ]
        return [" ".join(named)] if len(named) >= 2 else named


def read_definition(folder: Path | str) -> Definition:
    """The definition in ``folder`` (Rasa, Taskyto or AIML; see the module docstring).
    Raises ``UserInputError`` when the folder holds none of them or a file does not parse."""
    root = Path(folder)
    if not root.is_dir():
        raise UserInputError(f"{root}: --project must be a folder with the bot's definition")
    if list(root.rglob("domain.yml")) or list(root.rglob("domain.yaml")):
        return _rasa(root)
    aiml = sorted(root.rglob("*.aiml"))
    if aiml:
        return _aiml(root, aiml)
    modules = [p for p in sorted(root.rglob("*.y*ml")) if _is_taskyto(_load(p))]
    if modules:
        return _taskyto(root, modules)
    raise UserInputError(
        f"{root}: no Rasa (domain.yml), Taskyto (YAML modules) or AIML (*.aiml) definition found"
    )


def _load(path: Path) -> Any:
    text = read_yaml_text(path)  # bounded: size, NUL bytes, folders (sparring._yaml)
    check_yaml_limits(path, text)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UserInputError(f"{path}{line}: not valid YAML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise UserInputError(f"{path}: not UTF-8 text") from exc


def _rasa(root: Path) -> Definition:
    found = Definition("rasa", root)
    for path in sorted([*root.rglob("domain.yml"), *root.rglob("domain.yaml")]):
        _rasa_domain(found, _load(path) or {})
    for path in sorted(root.rglob("*.md")):
        if "data" in path.relative_to(root).parts:  # training data, not tests/ or docs
            _rasa_markdown(found, path.read_text(encoding="utf-8", errors="replace"))
    for path in sorted(root.rglob("*.y*ml")):
        if "data" in path.relative_to(root).parts:
            _rasa_yaml(found, _load(path) or {})
    for path in sorted(root.rglob("actions*.py")):
        _form_actions(found, path.read_text(encoding="utf-8", errors="replace"))
    for slot in list(found.slots):
        if slot not in found.questions:
            del found.slots[slot]
    for slot in found.questions:
        found.slots.setdefault(slot, [])
    return found


def _rasa_domain(found: Definition, domain: dict[str, Any]) -> None:
    if not isinstance(domain, dict):
        return
    for intent in domain.get("intents") or []:
        name = next(iter(intent)) if isinstance(intent, dict) else str(intent)
        found.intents.setdefault(name, [])
    responses = domain.get("responses") or domain.get("templates") or {}
    for name, variants in responses.items() if isinstance(responses, dict) else []:
        texts = [str(v.get("text", "")) for v in variants or [] if isinstance(v, dict)]
        found.responses[str(name)] = [t.strip() for t in texts if t.strip()]
        if str(name).startswith("utter_ask_") and texts:
            found.questions[str(name)[len("utter_ask_") :]] = texts[0].strip()
    forms = domain.get("forms") or []
    found.forms += [str(f) for f in (forms if isinstance(forms, list) else list(forms))]
    for name, spec in forms.items() if isinstance(forms, dict) else []:
        required = spec.get("required_slots") if isinstance(spec, dict) else None
        if isinstance(required, list | dict):  # a list (Rasa 3) or slot → mappings (2.x)
            found.form_slots[str(name)] = [str(s) for s in required]


def _form_actions(found: Definition, code: str) -> None:
    """Rasa 1.x forms in ``actions.py``: each class's ``name()`` string and the list its
    ``required_slots`` returns."""
    for block in re.split(r"^class\s", code, flags=re.M)[1:]:
        name = re.search(r"def\s+name\b.*?return\s+[\"']([^\"']+)[\"']", block, re.S)
        slots = re.search(r"def\s+required_slots\b.*?return\s*\[([^\]]*)\]", block, re.S)
        if name and slots:
            found.form_slots[name.group(1)] = re.findall(r"[\"']([^\"']+)[\"']", slots.group(1))


def _note_entities(found: Definition, example: str) -> str:
    plain = _ENTITY.sub(lambda m: m.group(1), example).strip()
    found.entities[plain] = len(_ENTITY.findall(example))
    for match in _ENTITY.finditer(example):
        entity = match.group(2) or match.group(3) or ""
        entity = entity.split(":")[0].strip()
        values = found.slots.setdefault(entity, [])
        if match.group(1) not in values:
            values.append(match.group(1))
    return plain


def _rasa_markdown(found: Definition, text: str) -> None:
    intent: str | None = None
    story: list[str] | None = None
    for line in text.splitlines():
        header = _MD_INTENT.match(line)
        if header:
            intent, story = header.group(1), None
            found.intents.setdefault(intent, [])
            continue
        named = _MD_STORY.match(line)
        if named and _MD_SECTION.match(line):  # synonym, regex, lookup: no examples we use
            intent, story = None, None
            continue
        if named:
            intent, story = None, found.flows.setdefault(named.group(1), [])
            continue
        item = _MD_ITEM.match(line)
        if intent is not None and item:
            found.intents[intent].append(_note_entities(found, item.group(1)))
        elif story is not None:
            user, bot = _MD_USER.match(line), _MD_BOT.match(line)
            if user:
                story.append(f"intent:{user.group(1)}")
            elif bot:
                story.append(f"action:{bot.group(1)}")


def _rasa_yaml(found: Definition, data: dict[str, Any]) -> None:
    if not isinstance(data, dict):
        return
    for block in data.get("nlu") or []:
        if isinstance(block, dict) and "intent" in block:
            examples = str(block.get("examples") or "")
            items = [m.group(1) for m in map(_MD_ITEM.match, examples.splitlines()) if m]
            target = found.intents.setdefault(str(block["intent"]), [])
            target += [_note_entities(found, e) for e in items]
    for key, label in (("stories", "story"), ("rules", "rule")):
        for flow in data.get(key) or []:
            if not isinstance(flow, dict):
                continue
            steps = found.flows.setdefault(str(flow.get(label, f"{label} {len(found.flows)}")), [])
            for step in flow.get("steps") or []:
                if isinstance(step, dict) and "intent" in step:
                    steps.append(f"intent:{step['intent']}")
                elif isinstance(step, dict) and "action" in step:
                    steps.append(f"action:{step['action']}")


def _aiml(root: Path, files: list[Path]) -> Definition:
    found = Definition("aiml", root)
    category = re.compile(r"<category>(.*?)</category>", re.S | re.I)
    pattern = re.compile(r"<pattern>(.*?)</pattern>", re.S | re.I)
    template = re.compile(r"<template>(.*?)</template>", re.S | re.I)
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in category.finditer(text):
            said = pattern.search(match.group(1))
            if said is None or re.search(r"[*_^#<]", said.group(1)):
                continue
            utterance = said.group(1).strip().lower()
            answer = template.search(match.group(1))
            reply = re.sub(r"<[^>]+>", " ", answer.group(1)) if answer else ""
            found.intents[utterance] = [utterance]
            found.responses[utterance] = [" ".join(reply.split())] if reply.strip() else []
            if len(found.intents) >= MAX_AIML_PATTERNS:
                return found
    return found


def _is_taskyto(data: Any) -> bool:
    return isinstance(data, dict) and "name" in data and "kind" in data


def _taskyto(root: Path, files: list[Path]) -> Definition:
    found = Definition("taskyto", root)
    for path in files:
        module = _load(path)
        name = str(module.get("name"))
        said = [str(module.get(k)) for k in ("presentation", "description") if module.get(k)]
        found.intents[name] = [name.replace("_", " ")]
        found.responses[name] = said
        for item in module.get("data") or []:
            for slot, spec in item.items() if isinstance(item, dict) else []:
                spec = spec if isinstance(spec, dict) else {}
                values = [str(v) for v in spec.get("values") or []]
                found.slots[str(slot)] = values
                found.questions[str(slot)] = str(slot).replace("_", " ")
        if module.get("kind") == "data_gathering":
            found.forms.append(name)
    return found


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^a-z ]+", " ", text.lower()).split())
