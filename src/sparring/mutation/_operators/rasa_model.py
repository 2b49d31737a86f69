"""What the Rasa operators see of a project, whatever its format: training-data blocks
(``intent``, ``synonym``, ``regex``, ``lookup``), stories and rules with their steps, the
domain's intents and responses, and the fallback entries of ``config.yml``.

Everything is located in the file's text (0-based line ranges, end exclusive, and
character offsets), so that an operator edits the text itself and its unified diff stays
small: comments, order and formatting are kept. ``rasa_yaml`` reads Rasa 2.x/3.x YAML,
``rasa_markdown`` Rasa 1.x/2.x Markdown; ``load_project`` reads a whole project.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


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
    turn) or ``other`` (``active_loop``, ``slot_was_set``, a checkpoint, a ``form{…}``
    event), the intent or action ``name``, and its lines."""

    kind: str
    name: str
    start: int
    end: int


@dataclass(frozen=True)
class Dialogue:
    """A ``story`` or ``rule`` (``kind``) named ``name`` on lines ``start``–``end``."""

    kind: str
    name: str
    start: int
    end: int
    steps: tuple[Step, ...] = ()


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


@dataclass(frozen=True)
class Entry:
    """A list entry on whole lines: a domain intent, a config pipeline component or
    policy (``name``), in ``section`` (``intents``, ``pipeline``, ``policies``)."""

    section: str
    name: str
    start: int
    end: int


@dataclass(frozen=True)
class YamlFile:
    """A domain or config file: path, text, intents, responses and list entries."""

    path: str
    text: str
    intents: tuple[Entry, ...] = ()
    responses: tuple[Response, ...] = ()
    entries: tuple[Entry, ...] = ()
    settings: dict[str, str] = field(default_factory=dict)
    """String settings of config entries (``core_fallback_action_name`` …)."""


@dataclass(frozen=True)
class RasaProject:
    """The parts of a Rasa project the operators mutate."""

    root: Path
    training: tuple[TrainingFile, ...] = ()
    domains: tuple[YamlFile, ...] = ()
    config: YamlFile | None = None


# -- text helpers ------------------------------------------------------------------------


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


def _is_comment(line: str) -> bool:
    """A YAML comment line (not a Markdown ``##`` header)."""
    return line.lstrip().startswith("#") and not line.startswith("##")


def _with_comment_above(lines: list[str], start: int) -> int:
    """``start`` moved up over the comment lines written just above it, at its indent
    (a YAML element's own comment; a Markdown ``##`` header has none)."""
    if lines[start].lstrip().startswith("#"):
        return start
    while start > 0:
        above = lines[start - 1]
        if not (above.lstrip().startswith("#") and indent_of(above) == indent_of(lines[start])):
            break
        start -= 1
    return start


def delete_lines(text: str, start: int, end: int) -> str:
    """``text`` without lines ``start``–``end`` (with the comment just above them) and
    one of the blank separators around them: the following ones, or the preceding ones
    when the deleted lines end their list (what follows is less indented, starts
    differently, or is nothing)."""
    lines = text.splitlines(keepends=True)
    start = _with_comment_above(lines, start)
    after = end
    while after < len(lines) and is_blank(lines[after]):
        after += 1
    probe = after  # the next element, past comments (a Markdown header is one)
    while probe < len(lines) and (is_blank(lines[probe]) or _is_comment(lines[probe])):
        probe += 1
    last = (
        probe == len(lines)
        or indent_of(lines[probe]) < indent_of(lines[start])
        or lines[probe].lstrip()[:1] != lines[start].lstrip()[:1]
    )
    if not last:
        end = after
    else:
        while start > 0 and is_blank(lines[start - 1]):
            start -= 1
    return "".join(lines[:start] + lines[end:])


def cut_lines(text: str, start: int, end: int) -> str:
    """``text`` without lines ``start``–``end``, nothing else."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[:start] + lines[end:])


def replace_line(text: str, number: int, col: int, old: str, new: str) -> str:
    """``text`` with ``old`` (found at ``col`` of line ``number``) replaced by ``new``."""
    lines = text.splitlines(keepends=True)
    line = lines[number]
    if line[col : col + len(old)] != old:
        raise ValueError(f"line {number + 1} no longer reads {old!r}")
    lines[number] = line[:col] + new + line[col + len(old) :]
    return "".join(lines)


def delete_each(text: str, ranges: Iterable[tuple[int, int]]) -> str:
    """``text`` without several line ranges (each as ``delete_lines``)."""
    for start, end in sorted(ranges, reverse=True):
        text = delete_lines(text, start, end)
    return text


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def line_offsets(text: str) -> list[int]:
    """The character offset where each line starts (one more for the end)."""
    offsets = [0]
    for line in text.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def plural(count: int, noun: str) -> str:
    """``1 example``, ``3 examples``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def numbered(names: Iterable[str]) -> list[str]:
    """Names made unique in order: a repeated ``name`` becomes ``name (2)``, …"""
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out
