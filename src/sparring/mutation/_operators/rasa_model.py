"""Text edits the Rasa operators make (the project is read by ``sparring.rasa_project``):
lines deleted with their comment and one blank separator, a line or a span replaced,
names numbered, so that each mutant's unified diff shows one change and keeps comments,
order and formatting.
"""

from __future__ import annotations

from collections.abc import Iterable

from sparring.rasa_project import indent_of, is_blank


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
