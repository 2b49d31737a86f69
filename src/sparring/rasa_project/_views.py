"""What a read project says across its files: intents with their example utterances as a
user types them, the entity values the examples annotate, the entity synonyms, responses
with their texts, forms with their required slots, and the stories and rules.

NLU annotations are ``[value](entity)``, ``[value](entity:synonym)`` and
``[value]{"entity": "name", "value": "synonym"}`` (a space before the braces allowed, as
Rasa 1.x reads it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from sparring.rasa_project._model import Dialogue, RasaProject, TrainingFile

_ANNOTATION = re.compile(
    r"\[([^\]]+)\]\s*(?:\(([^)]+)\)|\{[^}]*\"entity\"\s*:\s*\"([^\"]+)\"[^}]*\})"
)


def plain_example(example: str) -> str:
    """An NLU example as a user types it: ``a [large](size) [coke]{"entity": "drink"}`` →
    ``a large coke``."""
    return _ANNOTATION.sub(lambda m: m.group(1), example).strip()


def entity_values(example: str) -> list[tuple[str, str]]:
    """``(value, entity)`` of each entity annotated in an NLU example, in order."""
    return [
        (m.group(1), (m.group(2) or m.group(3) or "").split(":")[0].strip())
        for m in _ANNOTATION.finditer(example)
    ]


_BRACES = re.compile(r"\[([^\]]+)\]\s*(\{[^}]*\})")
_SHORT = re.compile(r"\[([^\]]+)\]\(\s*[^):]+:\s*([^)]+?)\s*\)")


def synonyms(project: RasaProject) -> dict[str, list[str]]:
    """Entity value → the words the bot's NLU maps to it (Rasa's ``EntitySynonymMapper``):
    ``synonym:`` blocks (YAML and Markdown), examples annotated with another value
    (``[check-up]{"entity": "service", "value": "Physical examination"}``,
    ``[NYC](city:New York)``) and the JSON files' ``entity_synonyms``; each word once,
    in file order."""
    found: dict[str, list[str]] = {}

    def add(value: str, word: str) -> None:
        value, word = value.strip(), word.strip()
        if value and word and word.lower() != value.lower():
            words = found.setdefault(value, [])
            if word.lower() not in {w.lower() for w in words}:
                words.append(word)

    for file in project.training:
        for block in file.nlu:
            if block.kind == "synonym":
                for example in block.examples:
                    add(block.name, example.text)
            elif block.kind == "intent":
                for example in block.examples:
                    for word, value in _annotated_synonyms(example.text):
                        add(value, word)
    for json_file in project.json:
        for value, words in json_file.synonyms:
            for word in words:
                add(value, word)
    return found


def _annotated_synonyms(example: str) -> list[tuple[str, str]]:
    """``(words typed, value)`` of each annotation in ``example`` that names a value."""
    out = [(m.group(1), m.group(2)) for m in _SHORT.finditer(example)]
    for match in _BRACES.finditer(example):
        try:
            spec = json.loads(match.group(2))
        except json.JSONDecodeError:
            continue
        if isinstance(spec, dict) and isinstance(spec.get("value"), str):
            out.append((match.group(1), spec["value"]))
    return out


def intent_examples(project: RasaProject) -> dict[str, list[str]]:
    """Intent → its NLU examples as written (annotations kept): the domain's intents in
    order (an intent without examples maps to ``[]``), then intents only the NLU data
    has."""
    found: dict[str, list[str]] = {}
    for domain in project.domains:
        for entry in domain.intents:
            found.setdefault(entry.name, [])
    for file in project.training:
        for block in file.nlu:
            if block.kind == "intent":
                found.setdefault(block.name, []).extend(e.text for e in block.examples)
    return found


def responses(project: RasaProject) -> dict[str, tuple[str, ...]]:
    """Response name → the texts of its variations."""
    return {r.name: r.values for domain in project.domains for r in domain.responses}


def forms(project: RasaProject) -> dict[str, tuple[str, ...]]:
    """Form → its required slots: the domain's (Rasa 2/3), else the action code's
    ``FormAction`` (Rasa 1.x); a form declared with neither has ``()``."""
    found: dict[str, tuple[str, ...]] = {}
    for domain in project.domains:
        for form in domain.forms:
            found[form.name] = form.required
    for code in project.code:
        for form in code.forms:
            if not found.get(form.name):
                found[form.name] = form.required
    return found


def dialogues(project: RasaProject) -> Iterator[tuple[TrainingFile, Dialogue]]:
    """Every story and rule with the file it is in, in file order."""
    for file in project.training:
        for dialogue in file.dialogues:
            yield file, dialogue
