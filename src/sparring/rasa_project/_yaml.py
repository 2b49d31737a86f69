"""Rasa 2.x/3.x YAML files (training data, domain, config) located in their text (the
domain of Rasa 1.x is YAML too).

The files are *composed* by ruamel.yaml (not loaded): every node keeps the marks where it
starts and ends, so each block, step, response and list entry is known by its lines and
characters, and an operator can cut or rewrite exactly those.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sparring._yaml import yaml_error_problem
from sparring.errors import ConfigError
from sparring.rasa_project._model import (
    Dialogue,
    Entry,
    Example,
    Form,
    NluBlock,
    Payload,
    Response,
    Slot,
    Span,
    Step,
    TrainingFile,
    YamlFile,
    is_blank,
    line_offsets,
    trim_end,
)

NLU_KINDS = ("intent", "synonym", "regex", "lookup")
_STEP_KINDS = {"intent": "intent", "user": "intent", "action": "action", "bot": "action"}
_ITEM = re.compile(r"^\s*-\s+(.*?)\s*$")


def compose(path: str, text: str) -> Node | None:
    """The node tree of ``text`` (``None`` when empty); ``ConfigError`` if invalid."""
    try:
        node: Node | None = YAML(typ="rt").compose(text)
    except YAMLError as exc:
        raise ConfigError(yaml_error_problem(path, exc, text)) from exc
    return node


def get(node: Any, key: str) -> Any:
    """The value node of ``key`` in a mapping node, else ``None``."""
    if isinstance(node, MappingNode):
        for key_node, value in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value == key:
                return value
    return None


def items(node: Any) -> list[Any]:
    """The item nodes of a sequence node (``[]`` for anything else)."""
    return list(node.value) if isinstance(node, SequenceNode) else []


def scalar(node: Any) -> str | None:
    return str(node.value) if isinstance(node, ScalarNode) else None


def lines_of(node: Node, lines: list[str]) -> tuple[int, int]:
    """The whole lines of a block node: from its first line to its last content line."""
    start = node.start_mark.line
    mark = node.end_mark
    end = mark.line
    if end < len(lines) and not is_blank(lines[end][: mark.column]):
        end += 1
    return start, trim_end(lines, start, max(end, start + 1))


def _first_key(node: Any, keys: tuple[str, ...] | dict[str, str]) -> tuple[str, Any] | None:
    if isinstance(node, MappingNode):
        for key_node, value in node.value:
            if isinstance(key_node, ScalarNode) and key_node.value in keys:
                return str(key_node.value), value
    return None


def _examples(node: Any, lines: list[str]) -> tuple[Example, ...]:
    """The ``- example`` lines of a literal ``examples: |`` block."""
    if not isinstance(node, ScalarNode) or node.style not in ("|", ">"):
        return ()
    found: list[Example] = []
    for number in range(node.start_mark.line + 1, lines_of(node, lines)[1]):
        match = _ITEM.match(lines[number])
        if match:
            found.append(Example(number, match.start(1), match.group(1)))
    return tuple(found)


def read_training(path: str, text: str) -> TrainingFile:
    """The NLU blocks, stories and rules of a YAML training-data file."""
    root = compose(path, text)
    lines = text.splitlines(keepends=True)
    blocks: list[NluBlock] = []
    for item in items(get(root, "nlu")):
        head = _first_key(item, NLU_KINDS)
        name = scalar(head[1]) if head else None
        if head and name is not None:
            start, end = lines_of(item, lines)
            examples = _examples(get(item, "examples"), lines)
            blocks.append(NluBlock(head[0], name, start, end, examples))
    dialogues: list[Dialogue] = []
    for section, kind in (("stories", "story"), ("rules", "rule")):
        for item in items(get(root, section)):
            name = scalar(get(item, kind))
            if name is None:
                continue
            steps = [_step(step, lines) for step in items(get(item, "steps"))]
            condition = next(
                (
                    scalar(get(c, "active_loop"))
                    for c in items(get(item, "condition"))
                    if scalar(get(c, "active_loop"))
                ),
                None,
            )
            where = lines_of(item, lines)
            dialogues.append(Dialogue(kind, name, *where, tuple(steps), condition))
    dialogues.sort(key=lambda dialogue: dialogue.start)
    return TrainingFile(path, text, tuple(blocks), tuple(dialogues))


def _step(step: Node, lines: list[str]) -> Step:
    head = _first_key(step, _STEP_KINDS)
    if head is not None:
        return Step(_STEP_KINDS[head[0]], scalar(head[1]) or "", *lines_of(step, lines))
    loop = get(step, "active_loop")
    if loop is not None:
        return Step("active_loop", scalar(loop) or "null", *lines_of(step, lines))
    alternatives = [scalar(get(o, "intent")) for o in items(get(step, "or"))]
    names = tuple(a for a in alternatives if a)
    if names:
        return Step("or", names[0], *lines_of(step, lines), names=names)
    return Step("other", "", *lines_of(step, lines))


def plain(node: Any) -> Any:
    """The plain Python value of a node (mappings, lists, strings)."""
    if isinstance(node, MappingNode):
        return {str(plain(k)): plain(v) for k, v in node.value}
    if isinstance(node, SequenceNode):
        return [plain(v) for v in node.value]
    return scalar(node)


def _response(key: Node, value: Node, text: str, lines: list[str]) -> Response:
    offsets = line_offsets(text)
    block = value.start_mark.line > key.start_mark.line and not getattr(value, "flow_style", False)
    if block:
        start, end = lines_of(value, lines)
        body = Span(offsets[start], offsets[end], start)
    else:
        body = Span(value.start_mark.index, value.end_mark.index, value.start_mark.line)
    texts: list[tuple[int, Span]] = []
    payloads: list[tuple[int, int, Payload]] = []
    for variation, item in enumerate(items(value), start=1):
        node = get(item, "text")
        if isinstance(node, ScalarNode):
            texts.append((variation, _span(node)))
        for button, entry in enumerate(items(get(item, "buttons")), start=1):
            payload = get(entry, "payload")
            if isinstance(payload, ScalarNode):
                style = payload.style if payload.style in ('"', "'") else None
                payloads.append((variation, button, Payload(_span(payload), payload.value, style)))
    values = tuple(str(scalar(get(item, "text")) or "").strip() for item in items(value))
    return Response(
        str(key.value), key.start_mark.line, body, block, tuple(texts), tuple(payloads),
        tuple(v for v in values if v),
    )  # fmt: skip


def _span(node: Node) -> Span:
    return Span(node.start_mark.index, node.end_mark.index, node.start_mark.line)


def _entries(root: Node | None, section: str, lines: list[str]) -> tuple[Entry, ...]:
    """The names listed in ``section`` (``- name`` or ``- name: {…}``)."""
    found: list[Entry] = []
    for item in items(get(root, section)):
        name = scalar(item)
        if name is None and isinstance(item, MappingNode) and item.value:
            name = scalar(item.value[0][0])
        if name is not None:
            found.append(Entry(section, name, *lines_of(item, lines)))
    return tuple(found)


def _pairs(root: Node | None, section: str) -> list[tuple[Node, Node]]:
    node = get(root, section)
    return list(node.value) if isinstance(node, MappingNode) else []


def _forms(root: Node | None, lines: list[str]) -> tuple[Form, ...]:
    """Rasa 2/3 forms (name → ``required_slots``, a list or slot → mappings); Rasa 1.x
    lists form names only (their slots are in ``actions.py``)."""
    listed = _entries(root, "forms", lines)
    if listed:
        return tuple(Form(e.name, e.start, e.end) for e in listed)
    found: list[Form] = []
    for key, spec in _pairs(root, "forms"):
        required = get(spec, "required_slots")
        if isinstance(required, MappingNode):
            slots = [scalar(k) for k, _ in required.value]
        else:
            slots = [scalar(s) for s in items(required)]
        start, end = key.start_mark.line, lines_of(spec, lines)[1] if spec else key.end_mark.line
        found.append(Form(str(key.value), start, end, tuple(s for s in slots if s)))
    return tuple(found)


def read_domain(path: str, text: str) -> YamlFile:
    """The intents, entities, slots (with their mappings), forms, responses
    (``responses``, or Rasa 1.x ``templates``) and actions of a domain."""
    root = compose(path, text)
    lines = text.splitlines(keepends=True)
    responses: list[Response] = []
    for section in ("responses", "templates"):
        for key, value in _pairs(root, section):
            responses.append(_response(key, value, text, lines))
    slots: list[Slot] = []
    for key, spec in _pairs(root, "slots"):
        mappings = tuple(m for m in plain(get(spec, "mappings")) or [] if isinstance(m, dict))
        end = lines_of(spec, lines)[1] if spec is not None else key.start_mark.line + 1
        slots.append(Slot(str(key.value), key.start_mark.line, end, mappings))
    return YamlFile(
        path,
        text,
        _entries(root, "intents", lines),
        tuple(responses),
        entities=_entries(root, "entities", lines),
        slots=tuple(slots),
        forms=_forms(root, lines),
        actions=_entries(root, "actions", lines),
    )


def read_config(path: str, text: str) -> YamlFile:
    """The named pipeline components and policies of ``config.yml``, with the settings
    naming fallback actions."""
    root = compose(path, text)
    lines = text.splitlines(keepends=True)
    entries: list[Entry] = []
    settings: dict[str, str] = {}
    for section in ("pipeline", "policies"):
        for item in items(get(root, section)):
            name = scalar(get(item, "name"))
            if name is None:
                continue
            entries.append(Entry(section, name, *lines_of(item, lines)))
            for key, value in item.value:
                if str(key.value).endswith("fallback_action_name") and scalar(value):
                    settings[str(key.value)] = str(value.value)
    return YamlFile(path, text, entries=tuple(entries), settings=settings)
