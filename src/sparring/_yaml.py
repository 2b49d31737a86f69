"""YAML files with line numbers, and their validation errors as located ``Problem``s.

Every user file (``chatbot.yaml``, profiles, rules, personas) is read here, so that each
problem the CLI prints names file, line and key (``sparring.errors.Problem``):

- ``load_yaml_with_lines(path)`` → plain Python data (dicts, lists, str, int, float, bool,
  None, dates) and a ``LineMap`` from key paths to 1-based line numbers. YAML syntax
  errors, duplicate keys and unreadable files raise ``ConfigError``.
- ``validation_problems(path, exc, lines)`` turns a ``pydantic.ValidationError`` raised on
  that data into ``Problem``s, locating each error at the deepest key of its ``loc`` that
  exists in the file (a missing key is reported at its parent's line).
- ``yaml_error_problem(path, exc)`` turns a ruamel ``YAMLError`` into a ``Problem``.
- ``load_yaml_model(path, Model)`` does all of it for a file that is one mapping.

The files are parsed by ruamel.yaml as YAML 1.2 (``yes``/``no``/``on`` are strings, not
booleans, unlike PyYAML's YAML 1.1).

Files come from anywhere, so every read is bounded before anything is built from it
(``read_yaml_text`` and ``check_yaml_limits``, which other YAML readers call too): at most
``MAX_FILE_BYTES`` bytes, collections nested at most ``MAX_DEPTH`` deep, and at most
``MAX_NODES`` nodes once every alias is expanded (an 8-line "billion laughs" alias bomb
would otherwise grow without end); a file read with its line numbers, by ruamel.yaml's
pure-Python parser, at most ``MAX_LINED_BYTES`` and ``MAX_LINED_NODES`` nodes (8 MiB took
it a minute and more). A folder or a symbolic-link loop where a file is
expected, a NUL byte, and a file over a limit raise ``ConfigError`` naming the file and
the line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pydantic
import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.scalarbool import ScalarBoolean

from sparring._files import read_user_text
from sparring.errors import ConfigError, Problem

KeyPath = tuple[str | int, ...]

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Largest YAML file read, in bytes (8 MiB; the largest real file seen is under 1 MiB)."""
MAX_DEPTH = 100
"""Deepest nesting of mappings and lists in a YAML document (real files use under 10)."""
MAX_NODES = 1_000_000
"""Most nodes (scalars, mappings, lists) in one file once every alias is expanded."""
MAX_LINED_BYTES = 2 * 1024 * 1024
"""Largest file read with its line numbers (``load_yaml_with_lines``: profiles, rules,
``chatbot.yaml``, personas, types …), in bytes. ruamel.yaml's round-trip parser is pure
Python: ~0.7 s of CPU per MiB of long text, ~3.7 s per MiB of short values (an 8 MiB file
took 60-250 s on a loaded machine); the largest real file seen is 73 KB."""
MAX_LINED_NODES = 50_000
"""Most nodes written in a file read with its line numbers (aliases not expanded): about
half a MiB of short values, ~2 s of CPU for ruamel.yaml. A Rasa project's YAML files are
held to it too (``sparring.rasa_project``), without ``MAX_LINED_BYTES``: their cost is per
value, and NLU examples are one block scalar per intent."""

_MESSAGES = {
    "extra_forbidden": "unknown key",
    "missing": "required key is missing",
}


class LineMap:
    """1-based line numbers of the keys (and list items) of one YAML document.

    A path is a tuple of mapping keys (``str``) and list indexes (``int``), e.g.
    ``("user", "goals", 2, "size")``; the empty path is the document itself.
    """

    def __init__(self, lines: dict[KeyPath, int] | None = None) -> None:
        self._lines: dict[KeyPath, int] = dict(lines or {})

    def __contains__(self, path: object) -> bool:
        return path in self._lines

    def __len__(self) -> int:
        return len(self._lines)

    def get(self, path: Sequence[str | int]) -> int | None:
        """The line of exactly ``path``, or ``None`` when it is not in the file."""
        return self._lines.get(tuple(path))

    def resolve(
        self, loc: Sequence[str | int], *, missing: bool = False
    ) -> tuple[KeyPath, int | None]:
        """Match a pydantic error ``loc`` against the file.

        Returns the key path as the user wrote it and the line of its deepest element
        present in the file (``None`` if none is). Elements absent from the file are
        pydantic's union/tag members (``"function-after[...]"``, a model's name) and are
        dropped, except the last one of a ``missing`` error: the key the user left out.
        """
        matched: KeyPath = ()
        line = self._lines.get(())
        for element in loc:
            candidate = (*matched, element)
            if candidate in self._lines:
                matched = candidate
                line = self._lines[candidate]
        if missing and loc and (not matched or matched[-1] != loc[-1]):
            return (*matched, loc[-1]), line
        return matched, line

    def line_of(self, loc: Sequence[str | int]) -> int | None:
        """The line of the deepest element of ``loc`` present in the file."""
        return self.resolve(loc)[1]


def format_key(path: Sequence[str | int]) -> str:
    """Dotted key path as users read it.

    ``("user", "goals", 2, "size")`` → ``"user.goals[2].size"``.
    """
    out = ""
    for element in path:
        if isinstance(element, int):
            out += f"[{element}]"
        else:
            out += f".{element}" if out else str(element)
    return out


_PLAIN_WITH_COLON = re.compile(r"^\s*(?:-\s+)?([\w-]+):\s+([^'\"|>\s].*:\s.*)$")
"""``key: value`` whose unquoted value holds ``": "`` (``yields: f"price: {price}"``)."""


def _colon_hint(text: str | None, line: int | None) -> str:
    """Advice for the most common YAML mistake: an unquoted value containing ``": "``."""
    if text is None or line is None:
        return ""
    lines = text.splitlines()
    for number in (line, line - 1):  # ruamel marks the colon's line, or the next one
        match = _PLAIN_WITH_COLON.match(lines[number - 1]) if 0 < number <= len(lines) else None
        if match:
            return (
                f' (the value of `{match.group(1)}` contains ": ": quote the whole value, '
                f"e.g. '{match.group(2).strip()}', or write it as a `|` block)"
            )
    return ""


def yaml_error_problem(path: Path | str, exc: YAMLError, text: str | None = None) -> Problem:
    """A located ``Problem`` for a YAML syntax error (or duplicate key) in ``path``;
    ``text`` (the file's content) lets it explain an unquoted value with ``": "``."""
    line: int | None = None
    message = str(exc)
    if isinstance(exc, ReaderError) and text is not None:  # marks a character, not a line
        line = text.count("\n", 0, exc.position) + 1
        message = f"{exc.reason} (character {exc.character!r})"
    if isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line = None if mark is None else mark.line + 1
        parts = [p for p in (exc.context, exc.problem) if p]
        message = "; ".join(parts) if parts else message
        if "mapping values are not allowed" in message:
            message += _colon_hint(text, line)
    return Problem(file=str(path), line=line, key="", message=f"invalid YAML: {message}")


def read_yaml_text(path: Path | str) -> str:
    """The text of the YAML file ``path``, checked before it is parsed.

    Raises ``ConfigError`` naming the file when it is missing, a folder, a FIFO, device or
    socket (or a link to one), a symbolic-link loop, larger than ``MAX_FILE_BYTES`` (read
    up to the limit, whatever ``stat()`` says), not UTF-8, or holds a NUL byte (with its
    line). ``sparring._files.read_user_text`` reads it.
    """
    text = read_user_text(path, MAX_FILE_BYTES)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ConfigError(Problem(str(path), line, "", "NUL byte (\\0): not a text file"))
    return text


def check_yaml_limits(path: Path | str, text: str, max_written: int | None = None) -> None:
    """Raise ``ConfigError`` at the offending line when ``text`` (the YAML in ``path``, any
    number of documents) nests deeper than ``MAX_DEPTH``, expands to more than
    ``MAX_NODES`` nodes through its aliases, or (given ``max_written``) writes more nodes
    than that; YAML syntax errors are left to the loader.

    Reads the parser's events only (memory stays proportional to the text), with libyaml
    where PyYAML has it (fast on pathological nesting) and ruamel.yaml otherwise or when
    libyaml rejects the text; an anchored node's expanded size is counted once and added
    at each alias of it.
    """
    if yaml.__with_libyaml__:
        try:
            _count_nodes(path, yaml.parse(text, Loader=yaml.CSafeLoader), max_written)
            return
        except yaml.YAMLError:
            pass
    try:
        _count_nodes(path, YAML(typ="rt").parse(text), max_written)
    except YAMLError:
        return


def _count_nodes(path: Path | str, events: Iterable[Any], max_written: int | None) -> None:
    """Walk PyYAML's or ruamel's parser ``events`` (same class names) within the limits."""
    sizes: dict[str, int] = {}
    starts: list[tuple[int, str | None]] = []  # (nodes counted before it, anchor)
    nodes = written = 0
    for event in events:
        kind = type(event).__name__
        if kind in ("MappingStartEvent", "SequenceStartEvent", "ScalarEvent"):
            written += 1
            if max_written is not None and written > max_written:
                raise _limit(path, event, _too_many_to_locate(max_written))
        if kind in ("MappingStartEvent", "SequenceStartEvent"):
            starts.append((nodes, event.anchor))
            nodes += 1
            if len(starts) > MAX_DEPTH:
                raise _limit(path, event, f"nested deeper than {MAX_DEPTH} levels")
        elif kind in ("MappingEndEvent", "SequenceEndEvent"):
            before, anchor = starts.pop()
            if anchor is not None:
                sizes[anchor] = nodes - before
        elif kind == "AliasEvent":
            nodes += sizes.get(event.anchor, 1)
        elif kind == "ScalarEvent":
            nodes += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        if nodes > MAX_NODES:
            raise _limit(path, event, f"expands to more than {MAX_NODES:,} values (an alias bomb?)")


def _too_many_to_locate(limit: int) -> str:
    return (
        f"holds more than {limit:,} values: a file read with the line of each key (profile, "
        "rules, chatbot.yaml, persona, types, a Rasa project's YAML) holds at most that many "
        "(split it)"
    )


def _check_lined_size(path: Path | str, text: str) -> None:
    """Raise ``ConfigError`` at the line where ``text`` passes ``MAX_LINED_BYTES``."""
    if len(text) <= MAX_LINED_BYTES // 4:  # UTF-8: at most 4 bytes a character
        return
    data = text.encode("utf-8", errors="surrogateescape")
    if len(data) > MAX_LINED_BYTES:
        line = data.count(b"\n", 0, MAX_LINED_BYTES) + 1
        message = (
            f"larger than {MAX_LINED_BYTES // (1024 * 1024)} MiB ({len(data):,} bytes): a file "
            "read with the line of each key (profile, rules, chatbot.yaml, persona, types) "
            "is at most that large (split it)"
        )
        raise ConfigError(Problem(str(path), line, "", message))


def _limit(path: Path | str, event: Any, message: str) -> ConfigError:
    mark = event.start_mark
    return ConfigError(Problem(str(path), None if mark is None else mark.line + 1, "", message))


SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader on libyaml where PyYAML has it (same data, ~6× faster: 0.37 s of
CPU per MiB of short values instead of 2.0 s)."""


def safe_load(text: str) -> Any:
    """The first YAML document of ``text`` as plain data (PyYAML's safe loader, YAML 1.1),
    for readers that need no line numbers; call ``read_yaml_text`` and
    ``check_yaml_limits`` first. Raises ``yaml.YAMLError``."""
    return yaml.load(text, Loader=SAFE_LOADER)


def load_yaml_with_lines(path: Path | str) -> tuple[Any, LineMap]:
    """Read one YAML document as plain Python data with the line of every key.

    An empty file gives ``None``. Raises ``ConfigError`` (with the line where known) when
    the file cannot be read, is not valid YAML, repeats a key or exceeds a limit
    (``read_yaml_text``, ``check_yaml_limits``; ``MAX_LINED_BYTES`` and ``MAX_LINED_NODES``,
    checked before ruamel.yaml builds anything).
    """
    path = Path(path)
    text = read_yaml_text(path)
    _check_lined_size(path, text)
    check_yaml_limits(path, text, MAX_LINED_NODES)
    try:
        document = YAML(typ="rt").load(text)
    except YAMLError as exc:
        raise ConfigError(yaml_error_problem(path, exc, text)) from exc
    lines: dict[KeyPath, int] = {(): 1}
    return _plain(document, (), lines), LineMap(lines)


def _plain(node: Any, path: KeyPath, lines: dict[KeyPath, int]) -> Any:
    """Convert ruamel's round-trip nodes to plain data, recording key lines."""
    if isinstance(node, CommentedMap):
        result: dict[Any, Any] = {}
        for key, value in node.items():
            plain_key = _plain_scalar(key)
            child = (*path, plain_key)
            position = (node.lc.data or {}).get(key)  # a key merged through ``<<`` has none
            lines[child] = lines[path] if position is None else position[0] + 1
            result[plain_key] = _plain(value, child, lines)
        return result
    if isinstance(node, CommentedSeq):
        items: list[Any] = []
        for index, value in enumerate(node):
            child = (*path, index)
            position = node.lc.item(index)  # an item of a tagged sequence has none
            lines[child] = lines[path] if position is None else position[0] + 1
            items.append(_plain(value, child, lines))
        return items
    return _plain_scalar(node)


def _plain_scalar(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, ScalarBoolean):  # an anchored boolean
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def validation_problems(
    path: Path | str, exc: pydantic.ValidationError, lines: LineMap
) -> list[Problem]:
    """One located ``Problem`` per error of ``exc`` (raised validating ``path``'s data).

    ``key`` is the dotted key path (``user.goals[2].size``); ``line`` is where that key,
    or its deepest existing parent, is written. Messages for unknown and missing keys are
    reworded for users; the rest are pydantic's.
    """
    problems: list[Problem] = []
    for error in exc.errors(include_url=False):
        key, line = lines.resolve(error["loc"], missing=error["type"] == "missing")
        message = _MESSAGES.get(error["type"], error["msg"])
        problems.append(Problem(file=str(path), line=line, key=format_key(key), message=message))
    return problems


M = TypeVar("M", bound=pydantic.BaseModel)


def load_yaml_model(
    path: Path | str,
    model: type[M],
    expected: str = "a mapping",
    coerce: Callable[[Any], Any] | None = None,
) -> M:
    """Read the YAML mapping in ``path`` into ``model``: the one way a user file becomes a
    typed object. ``coerce`` may rewrite the plain data first (a shorthand form of the
    file); ``expected`` says what the file should hold when it is not a mapping. Raises
    ``ConfigError`` with one located problem (file, line, key) per error: unreadable
    file, bad YAML, not a mapping, unknown or missing key, bad value."""
    data, lines = load_yaml_with_lines(path)
    if coerce is not None:
        data = coerce(data)
    if not isinstance(data, dict):
        raise ConfigError(Problem(str(path), 1, "", f"expected {expected}"))
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise ConfigError(validation_problems(path, exc, lines)) from exc
