"""Where an LLM chatbot's system prompt lives, its parts, and how a changed prompt is
written back.

A prompt project is a folder with a ``chatbot.yaml`` whose ``connector: openai`` has
``params.system_prompt``, and/or a prompt text file (``system_prompt.txt``,
``system_prompt.md``, ``prompt.txt``, ``prompt.md``) for a bot that reads its prompt
itself. The prompt's *units* are its instructions: a bullet or numbered line is one unit,
other lines are split into sentences. A unit is a *fact* when it gives a value: its
first number, else, for a ``label: value`` line, the text after the colon (a *named
value*).

In ``chatbot.yaml`` the prompt's scalar is rewritten in place: a literal block (``|``)
keeps its header and indentation, so only the changed lines differ; a plain or quoted
scalar stays in its style when the new text allows it, else becomes double-quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.nodes import Node, ScalarNode

from sparring.mutation._operators.taskyto_yaml import (
    Edit,
    compose,
    content_end,
    get,
    line_of,
    scalar,
)

PROMPT_FILES = ("system_prompt.txt", "system_prompt.md", "prompt.txt", "prompt.md")
"""Prompt text files read from the project folder, besides ``chatbot.yaml``."""

NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?")
_BULLET = re.compile(r"(?:[-*•]|\d+[.)])\s+\S")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“])")
_LABELLED = re.compile(r"^(?:(?:[-*•]|\d+[.)])\s+)?[^:\n]{1,60}?:\s+(\S.*)$")


@dataclass(frozen=True)
class Prompt:
    """One prompt: the file it is in, the file's text, the prompt's text, and the YAML
    scalar holding it (``None`` for a prompt text file)."""

    file: str
    source: str
    text: str
    node: Node | None

    def line(self, offset: int) -> int:
        """The file's 1-based line of the prompt's character ``offset`` (the scalar's
        first line unless it is a literal block)."""
        if self.node is None:
            return self.text.count("\n", 0, offset) + 1
        if isinstance(self.node, ScalarNode) and self.node.style == "|":
            return line_of(self.node) + self.text.count("\n", 0, offset) + 1
        return line_of(self.node)

    def rewrite(self, new: str) -> Edit:
        """The edit of the file that makes the prompt ``new``."""
        if self.node is None:
            return Edit(0, len(self.source), new)
        return Edit(
            int(self.node.start_mark.index), content_end(self.source, self.node), self._render(new)
        )

    def _render(self, new: str) -> str:
        node = self.node
        assert isinstance(node, ScalarNode)
        start = int(node.start_mark.index)
        if node.style == "|":
            header_end = self.source.index("\n", start)
            body = self.source[header_end + 1 : content_end(self.source, node)]
            first = next((line for line in body.splitlines() if line.strip()), "  ")
            indent = first[: len(first) - len(first.lstrip())]
            lines = new[:-1].split("\n") if new.endswith("\n") else new.split("\n")
            rendered = "\n".join(indent + line if line else "" for line in lines)
            return self.source[start:header_end] + "\n" + rendered
        if "\n" not in new and not node.style and _plain_safe(new):
            return new
        if "\n" not in new and node.style == "'":
            return "'" + new.replace("'", "''") + "'"
        return json.dumps(new, ensure_ascii=False)


def _plain_safe(text: str) -> bool:
    """Whether ``text`` reads back as itself written as a plain scalar."""
    try:
        return bool(yaml.safe_load(f"k: {text}") == {"k": text})
    except yaml.YAMLError:
        return False


def prompts(project: Path) -> Iterator[Prompt]:
    """The project's prompts: ``chatbot.yaml``'s ``system_prompt`` (for an ``openai``
    bot), then the prompt text files present."""
    config = project / "chatbot.yaml"
    if config.is_file():
        source = config.read_text(encoding="utf-8")
        root = compose(source)
        node = get(get(root, "params"), "system_prompt")
        text = scalar(node)
        if scalar(get(root, "connector")) == "openai" and node is not None and text:
            yield Prompt("chatbot.yaml", source, text, node)
    for name in PROMPT_FILES:
        path = project / name
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            yield Prompt(name, text, text, None)


@dataclass(frozen=True)
class Unit:
    """An instruction: its span in the prompt, and for a fact the span of its value."""

    start: int
    end: int
    whole_line: bool
    value: tuple[int, int] | None


def units(text: str) -> list[Unit]:
    """The prompt's instructions, in order (see the module docstring)."""
    found: list[Unit] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        stripped = body.strip()
        lead = offset + len(body) - len(body.lstrip())
        offset += len(line)
        if not stripped:
            continue
        if _BULLET.match(stripped) or _LABELLED.match(stripped):
            pieces = [(lead, lead + len(stripped))]
        else:
            cuts = [lead, *(lead + m.end() for m in _SENTENCE_BREAK.finditer(stripped))]
            ends = [lead + m.start() for m in _SENTENCE_BREAK.finditer(stripped)]
            pieces = list(zip(cuts, [*ends, lead + len(stripped)], strict=True))
        for start, end in pieces:
            found.append(Unit(start, end, len(pieces) == 1, _value(text, start, end)))
    return found


def _value(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A fact's value: its first number, else the value of a ``label: value`` unit."""
    number = NUMBER.search(text, start, end)
    if number:
        return number.span()
    labelled = _LABELLED.match(text[start:end])
    return (start + labelled.start(1), start + labelled.end(1)) if labelled else None


def without(text: str, unit: Unit) -> str:
    """``text`` with ``unit`` deleted: its whole line when it is alone on it, else with
    the space that separated it from its neighbour."""
    if unit.whole_line:
        line_start = text.rfind("\n", 0, unit.start) + 1
        line_end = text.find("\n", unit.end)
        return text[:line_start] + ("" if line_end < 0 else text[line_end + 1 :])
    end = unit.end
    while end < len(text) and text[end] in " \t":
        end += 1
    start = unit.start
    if end == unit.end or text[end : end + 1] in {"\n", ""}:
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    return text[:start] + text[end:]
