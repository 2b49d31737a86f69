"""Text-span edits of YAML files, for operators whose diffs must stay small.

A file is composed with PyYAML (``yaml.compose``: nodes carrying their start and end
offsets in the text), and each mutation is a few ``Edit``\\ s — replace ``text[start:end]``
— so everything outside the changed element, comments and layout included, stays as it
was. ``SpanOperator`` is the operator built on that: it lists ``Candidate``\\ s (a location,
its edits, a sentence) and applies the one whose location matches. Used by the Taskyto
and prompt operators.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sparring.mutation._model import Location, ProjectKind

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` with ``new``."""

    start: int
    end: int
    new: str = ""


def apply_edits(text: str, edits: tuple[Edit, ...]) -> str:
    """``text`` with non-overlapping ``edits`` applied (in any order)."""
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


@dataclass(frozen=True)
class Candidate:
    """One mutant an operator can make: where, the edits to ``location.file``, and what it
    does in one sentence."""

    location: Location
    edits: tuple[Edit, ...]
    description: str


class SpanOperator:
    """An operator made of ``found(project)``: its candidates in a stable order (``None``
    for a place whose layout the edits do not handle, skipped). ``locations`` lists them,
    ``apply`` rebuilds the one at ``location`` (``ValueError`` when it is gone)."""

    name: str
    kind: ProjectKind
    description: str

    def found(self, project: Path) -> Iterator[Candidate | None]:
        raise NotImplementedError

    def candidates(self, project: Path) -> Iterator[Candidate]:
        return (candidate for candidate in self.found(project) if candidate is not None)

    def locations(self, project: Path) -> list[Location]:
        return [candidate.location for candidate in self.candidates(project)]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        tag = location.tag()
        for candidate in self.candidates(project):
            if candidate.location.tag() == tag:
                text = (project / location.file).read_text(encoding="utf-8")
                return {location.file: apply_edits(text, candidate.edits)}, candidate.description
        raise ValueError(f"{self.name} does not apply at {tag}")


def compose(text: str) -> Node | None:
    """The node tree of ``text``'s first document (``None`` when empty or not YAML)."""
    try:
        node: Node | None = yaml.compose(text, Loader=_Loader)
        return node
    except yaml.YAMLError:
        return None


def line_of(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_mark.line) + 1


def scalar(node: Node | None) -> str | None:
    """A scalar node's value, else ``None``."""
    return node.value if isinstance(node, ScalarNode) else None


def pairs(node: Node | None) -> list[tuple[Node, Node]]:
    """A mapping node's (key, value) pairs; ``[]`` for anything else."""
    return list(node.value) if isinstance(node, MappingNode) else []


def items(node: Node | None) -> list[Node]:
    """A sequence node's items; ``[]`` for anything else."""
    return list(node.value) if isinstance(node, SequenceNode) else []


def pair_index(mapping: Node | None, key: str) -> int | None:
    """Index of the pair whose key is ``key`` in ``mapping``."""
    for index, (k, _) in enumerate(pairs(mapping)):
        if scalar(k) == key:
            return index
    return None


def get(mapping: Node | None, key: str) -> Node | None:
    """The value of ``key`` in ``mapping`` (``None`` when absent)."""
    index = pair_index(mapping, key)
    return None if index is None else pairs(mapping)[index][1]


def content_end(text: str, node: Node) -> int:
    """End offset of ``node`` without the blank lines and spaces PyYAML counts in it."""
    start, end = int(node.start_mark.index), int(node.end_mark.index)
    return start + len(text[start:end].rstrip())


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, index: int) -> int:
    newline = text.find("\n", index)
    return len(text) if newline < 0 else newline + 1


def _blank_before(text: str, index: int) -> bool:
    return not text[_line_start(text, index) : index].strip()


def _dash(text: str, item: Node) -> int:
    """Offset of the ``-`` that opens a block-sequence item."""
    index = int(item.start_mark.index) - 1
    while index > 0 and text[index] in " \t\r\n":
        index -= 1
    return index


def delete_item(text: str, key: Node | None, sequence: Node, index: int) -> Edit | None:
    """Delete item ``index`` of ``sequence`` (the value of ``key``, when in a mapping). The
    last remaining item leaves ``key: []``. ``None`` when the layout is not one handled."""
    members = items(sequence)
    item = members[index]
    if isinstance(sequence, SequenceNode) and sequence.flow_style:
        if len(members) == 1:
            return Edit(int(item.start_mark.index), content_end(text, item))
        if index + 1 < len(members):
            return Edit(int(item.start_mark.index), int(members[index + 1].start_mark.index))
        return Edit(content_end(text, members[index - 1]), content_end(text, item))
    dash = _dash(text, item)
    if len(members) == 1:
        if key is None or not _blank_before(text, dash):
            return None
        return Edit(int(key.end_mark.index), content_end(text, item), ": []")
    if _blank_before(text, dash):
        return Edit(_line_start(text, dash), _after_line(text, content_end(text, item)))
    if index + 1 < len(members):
        return Edit(dash, _dash(text, members[index + 1]))
    return None


def delete_pair(text: str, mapping: Node, index: int) -> Edit | None:
    """Delete pair ``index`` of a block ``mapping`` (``None`` when it is its only pair, or
    the mapping is in flow style)."""
    members = pairs(mapping)
    if len(members) < 2 or (isinstance(mapping, MappingNode) and mapping.flow_style):
        return None
    key, value = members[index]
    start = int(key.start_mark.index)
    if _blank_before(text, start):
        return Edit(_line_start(text, start), _after_line(text, content_end(text, value)))
    if index + 1 < len(members):
        return Edit(start, int(members[index + 1][0].start_mark.index))
    return None


def insert_pair(text: str, mapping: Node, after: int, line: str) -> Edit | None:
    """Insert ``line`` (``key: value``) as a new pair after pair ``after`` of a block
    ``mapping``, at its keys' indentation."""
    if not isinstance(mapping, MappingNode) or mapping.flow_style:
        return None
    indent = " " * int(pairs(mapping)[0][0].start_mark.column)
    at = _after_line(text, content_end(text, pairs(mapping)[after][1]))
    prefix = "" if at == 0 or text[at - 1] == "\n" else "\n"
    return Edit(at, at, f"{prefix}{indent}{line}\n")


def replace_node(text: str, node: Node, new: str) -> Edit:
    """Replace ``node``'s text with ``new``."""
    return Edit(int(node.start_mark.index), content_end(text, node), new)


def swap_nodes(text: str, first: Node, second: Node) -> tuple[Edit, Edit]:
    """Swap the texts of two nodes (at the same indentation, or the result may not parse)."""
    a = (int(first.start_mark.index), content_end(text, first))
    b = (int(second.start_mark.index), content_end(text, second))
    return Edit(a[0], a[1], text[b[0] : b[1]]), Edit(b[0], b[1], text[a[0] : a[1]])


def yaml_files(project: Path) -> Iterator[tuple[str, str, Node]]:
    """``(relative path, text, root node)`` of the project folder's own ``*.yaml`` files
    (not its subfolders), by name; files that are not YAML are left out."""
    for path in sorted(project.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        root = compose(text)
        if root is not None:
            yield path.relative_to(project).as_posix(), text, root
