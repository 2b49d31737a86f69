"""A chatbot's own definition, read to seed the exploration (``--project DIR``, issue 20).

For users who own the bot: its definition says what it understands, so every intent and
every form slot can be tried with real example utterances and values. Read formats:

- **Rasa 1.x** (``data/*.md``: ``## intent:name`` with ``- example [value](entity)``
  items, ``## story`` sections with ``* intent`` and ``  - action`` steps) and **Rasa 2/3
  YAML** (``nlu:``, ``stories:``, ``rules:``), with ``domain.yml`` (intents, slots,
  ``responses`` or 1.x ``templates``, forms), read by ``sparring.rasa_project`` (the
  reader mutation and the adversarial scan use too);
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from sparring._files import read_user_text, user_files
from sparring._yaml import check_yaml_limits, read_yaml_text, safe_load
from sparring.errors import UserInputError
from sparring.rasa_project import (
    dialogues,
    entity_values,
    find_project,
    forms,
    intent_examples,
    load_project,
    plain_example,
    responses,
    synonyms,
)
from sparring.values import states_value

DefinitionKind = Literal["rasa", "taskyto", "aiml"]
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
    carried: dict[str, list[str]] = field(default_factory=dict)
    """Example utterance → the entities it carries a value of (Rasa)."""
    form_slots: dict[str, list[str]] = field(default_factory=dict)
    """Form → the slots it asks for (Rasa 1.x ``required_slots`` in ``actions.py``, Rasa
    2/3 ``required_slots`` in the domain)."""
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    """Entity value → the words the bot's NLU maps to it (Rasa's entity synonyms): the
    profiles carry those of their values (``synonyms_for``), so a confirmation in the
    bot's own word ("physical examination" for "check-up") is not taken for a wrong one."""

    def unreachable(self) -> dict[str, str]:
        """Intents no user input can reach, each with the reason: an intent without any
        example utterance (declared in the domain only) is never predicted by the bot's
        NLU, whatever the user says."""
        in_flows = {s for steps in self.flows.values() for s in steps}
        return {
            intent: "no NLU example"
            + ("" if f"intent:{intent}" in in_flows else ", no story or rule")
            for intent, examples in self.intents.items()
            if not examples
        }

    def values_for(self, question: str | None) -> list[str]:
        """Example values of the slot the bot asks for with ``question`` (its
        ``utter_ask_<slot>`` text, digits and case ignored), the most frequent in the NLU
        data first; for a question that names several slots ("the date, time and
        service"), one answer with the first example of each, then partial answers that
        leave one slot out each (so the form asks for every slot); empty when none
        matches."""
        if not question:
            return []
        asked = _normal(question)
        for slot, text in self.questions.items():
            said = _normal(text)
            if said and (said in asked or asked in said):
                return list(self.slots.get(slot, []))
        places = {
            values[0]: found.start()
            for slot, values in self.slots.items()
            if values and (found := re.search(rf"\b{re.escape(_normal(slot))}\b", asked))
        }
        named = sorted(places, key=places.__getitem__)  # in the question's order
        if len(named) < 2:
            return named
        partial = [" ".join(named[:i] + named[i + 1 :]) for i in range(len(named))]
        return [" ".join(named), *partial]


def read_definition(folder: Path | str) -> Definition:
    """The definition in ``folder`` (Rasa, Taskyto or AIML; see the module docstring).
    Raises ``UserInputError`` when the folder holds none of them or a file does not parse."""
    root = Path(folder)
    if not root.is_dir():
        raise UserInputError(f"{root}: --project must be a folder with the bot's definition")
    if find_project(root) is not None:
        return _rasa(root)
    aiml = user_files(root, (".aiml",))
    if aiml:
        return _aiml(root, aiml)
    modules = [p for p in user_files(root, (".yml", ".yaml")) if _is_taskyto(_load(p))]
    if modules:
        return _taskyto(root, modules)
    raise UserInputError(
        f"{root}: no Rasa (domain.yml), Taskyto (YAML modules) or AIML (*.aiml) definition found"
    )


def _load(path: Path) -> Any:
    text = read_yaml_text(path)  # bounded: size, NUL bytes, folders (sparring._yaml)
    check_yaml_limits(path, text)
    try:
        return safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UserInputError(f"{path}{line}: not valid YAML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise UserInputError(f"{path}: not UTF-8 text") from exc


def _rasa(root: Path) -> Definition:
    project = load_project(find_project(root) or root)  # the one Rasa reader
    found = Definition("rasa", root)
    for intent, examples in intent_examples(project).items():
        found.intents[intent] = [_note_entities(found, e) for e in examples]
    for name, texts in responses(project).items():
        found.responses[name] = list(texts)
        if name.startswith("utter_ask_") and texts:
            found.questions[name[len("utter_ask_") :]] = texts[0]
    for form, slots in forms(project).items():
        found.forms.append(form)
        if slots:
            found.form_slots[form] = list(slots)
    for _, dialogue in dialogues(project):
        steps = found.flows.setdefault(dialogue.name, [])
        for step in dialogue.steps:
            if step.kind in ("intent", "action"):
                steps.append(f"{step.kind}:{step.name}")
            elif step.kind == "or":
                steps += [f"intent:{name}" for name in step.names]
    for slot, values in list(found.slots.items()):
        if slot not in found.questions:
            del found.slots[slot]
        else:  # the most frequent value first ("Monday" said 5 times before "Saturday")
            said = Counter(v.lower() for v in values)
            unique = list({v.lower(): v for v in reversed(values)}.values())[::-1]
            found.slots[slot] = sorted(unique, key=lambda v: -said[v.lower()])
    for slot in found.questions:
        found.slots.setdefault(slot, [])
    found.synonyms = synonyms(project)
    return found


def synonyms_for(known: dict[str, list[str]], said: list[str]) -> dict[str, list[str]]:
    """The entries of ``known`` (value → its synonyms) whose value or a synonym one of the
    texts ``said`` states (a profile's goals and values, ``sparring.values.states_value``):
    the vocabulary a profile needs, not the bot's whole."""
    return {
        value: list(words)
        for value, words in known.items()
        if any(states_value(word, text) for word in (value, *words) for text in said)
    }


def _note_entities(found: Definition, example: str) -> str:
    plain = plain_example(example)
    marked = entity_values(example)
    found.entities[plain] = len(marked)
    for value, entity in marked:
        found.carried.setdefault(plain, []).append(entity)
        found.slots.setdefault(entity, []).append(value)  # counted in _rasa
    return plain


def _aiml(root: Path, files: list[Path]) -> Definition:
    found = Definition("aiml", root)
    category = re.compile(r"<category>(.*?)</category>", re.S | re.I)
    pattern = re.compile(r"<pattern>(.*?)</pattern>", re.S | re.I)
    template = re.compile(r"<template>(.*?)</template>", re.S | re.I)
    for path in files:
        text = read_user_text(path, errors="replace")
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
