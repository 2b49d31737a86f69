"""A Rasa project as read from its files, whatever their format (Rasa 1.x/2.x Markdown or
2.x/3.x YAML): training-data blocks (``intent``, ``synonym``, ``regex``, ``lookup``) with
their examples, stories and rules with their steps, the domain (intents, entities, slots
with their mappings, forms with their required slots, responses with their texts,
actions), ``config.yml``'s pipeline and policies, and the forms Rasa 1.x declares in
``actions.py``.

Everything is located in the file's text (0-based line ranges, end exclusive, and
character offsets): mutation operators edit the text itself and keep its formatting, the
adversarial scan reports file and line, and explore reads the examples, responses and
forms to seed its exploration — one reader for all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Example:
    """One training example (or regex pattern, synonym value): ``line`` (0-based) and
    ``col`` where its text starts, and the ``text``."""

    line: int
    col: int
    text: str


@dataclass(frozen=True)
class NluBlock:
    """``kind`` (``intent``, ``synonym``, ``regex``, ``lookup``) and ``name`` of one
    training-data block occupying lines ``start``–``end`` (end exclusive)."""

    kind: str
    name: str
    start: int
    end: int
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True)
class Step:
    """One step of a story or rule: ``kind`` ``intent`` (a user turn), ``action`` (a bot
    turn), ``active_loop`` (a form started or stopped: ``name`` the form, or ``null``),
    ``or`` (alternative intents: ``names``) or ``other`` (``slot_was_set``, a checkpoint,
    a ``form{…}`` event), the intent, action or form ``name``, and its lines."""

    kind: str
    name: str
    start: int
    end: int
    names: tuple[str, ...] = ()
    """The intents of an ``or`` step."""


@dataclass(frozen=True)
class Dialogue:
    """A ``story`` or ``rule`` (``kind``) named ``name`` on lines ``start``–``end``."""

    kind: str
    name: str
    start: int
    end: int
    steps: tuple[Step, ...] = ()
    condition: str | None = None
    """The form a rule's ``condition`` needs active (``active_loop``), if any."""


@dataclass(frozen=True)
class TrainingFile:
    """One file under ``data/``: its relative POSIX ``path``, ``text``, blocks and
    dialogues in file order."""

    path: str
    text: str
    nlu: tuple[NluBlock, ...] = ()
    dialogues: tuple[Dialogue, ...] = ()


@dataclass(frozen=True)
class Span:
    """Characters ``start``–``end`` of a file's text, on 0-based ``line``."""

    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Payload:
    """A button's payload: where it is written, its value and YAML quoting ``style``
    (``'"'``, ``"'"`` or ``None`` for plain)."""

    span: Span
    value: str
    style: str | None


@dataclass(frozen=True)
class Response:
    """A domain response: ``name``, the line of its key, the ``body`` (its value: whole
    lines when ``block``, else the characters after the key), the ``texts`` of its
    variations and the ``payloads`` of their buttons as ``(variation, button, payload)``
    (1-based)."""

    name: str
    line: int
    body: Span
    block: bool
    texts: tuple[tuple[int, Span], ...] = ()
    payloads: tuple[tuple[int, int, Payload], ...] = ()
    values: tuple[str, ...] = ()
    """The texts of its variations, as the bot says them."""


@dataclass(frozen=True)
class Entry:
    """A named entry on whole lines: a domain intent, entity or action, a config pipeline
    component or policy (``name``), in ``section`` (``intents``, ``entities``,
    ``actions``, ``pipeline``, ``policies``)."""

    section: str
    name: str
    start: int
    end: int


@dataclass(frozen=True)
class Slot:
    """A domain slot on lines ``start``–``end`` and its ``mappings`` (plain data, Rasa 3;
    none in 1.x, whose forms map slots in ``actions.py``)."""

    name: str
    start: int
    end: int
    mappings: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Form:
    """A form on lines ``start``–``end`` (of the domain, or of ``actions.py`` for a Rasa
    1.x ``FormAction``) and the slots it requires, in order."""

    name: str
    start: int
    end: int
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class YamlFile:
    """A domain or config file: path, text, intents, responses and list entries, and a
    domain's entities, slots, forms and actions."""

    path: str
    text: str
    intents: tuple[Entry, ...] = ()
    responses: tuple[Response, ...] = ()
    entries: tuple[Entry, ...] = ()
    settings: dict[str, str] = field(default_factory=dict)
    """String settings of config entries (``core_fallback_action_name`` …)."""
    entities: tuple[Entry, ...] = ()
    slots: tuple[Slot, ...] = ()
    forms: tuple[Form, ...] = ()
    actions: tuple[Entry, ...] = ()


@dataclass(frozen=True)
class CodeForms:
    """The Rasa 1.x forms of one Python file (``actions.py``): its relative ``path`` and
    each ``FormAction``'s name and required slots."""

    path: str
    forms: tuple[Form, ...] = ()


@dataclass(frozen=True)
class JsonTrainingFile:
    """A Rasa 1.x JSON training-data file: its relative ``path`` and ``synonyms``, each
    entity value with the words the data maps to it (``entity_synonyms`` and the
    annotated examples that type another word for the value)."""

    path: str
    synonyms: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class RasaProject:
    """A whole project: ``root``, the files under ``data/`` (YAML and Markdown located,
    JSON read for its synonyms), the domain file(s), ``config.yml`` and the forms of its
    action code (``sparring.rasa_project`` reads
    them; ``_views`` gives the names, examples and texts across files)."""

    root: Path
    training: tuple[TrainingFile, ...] = ()
    domains: tuple[YamlFile, ...] = ()
    config: YamlFile | None = None
    code: tuple[CodeForms, ...] = ()
    json: tuple[JsonTrainingFile, ...] = ()
    """The Rasa 1.x JSON training files under ``data/`` (their synonyms)."""


# -- text helpers the readers share ------------------------------------------------------


def indent_of(line: str) -> int:
    """Leading spaces of ``line``."""
    return len(line) - len(line.lstrip(" "))


def is_blank(line: str) -> bool:
    return not line.strip()


def trim_end(lines: list[str], start: int, end: int) -> int:
    """``end`` moved back over trailing blank lines and comments no deeper than line
    ``start`` (those belong to what follows)."""
    base = indent_of(lines[start]) if start < len(lines) else 0
    while end > start + 1:
        previous = lines[end - 1]
        comment = previous.lstrip().startswith("#") and indent_of(previous) <= base
        if not (is_blank(previous) or comment):
            break
        end -= 1
    return end


def line_offsets(text: str) -> list[int]:
    """The character offset where each line starts (one more for the end)."""
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets
