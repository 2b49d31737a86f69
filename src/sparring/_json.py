"""JSON from outside, parsed within bounds (issue 36: huge JSON payloads).

A chatbot's reply body and a file someone hands in (a run's records, an imported
conversation, a DBDC dialogue, a Rasa training file) may hold what ``json.loads`` turns
into a crash rather than an error: nesting past Python's recursion limit
(``RecursionError``), an integer of more than 4,300 digits (``ValueError``: Python refuses
to convert it), or nesting shallow enough to parse but deep enough to break every
recursive walk after it (redaction, validation). And a file may be a FIFO or a link to
``/dev/zero``.

- ``loads_bounded(data, max_depth)`` parses ``data`` (bytes or text) and raises
  ``JsonLimitError`` (a ``ValueError``, with the ``line`` where known) for text that is
  not JSON or not UTF-8, nesting deeper than ``max_depth`` lists and objects, or a number
  Python cannot read.
- Lone UTF-16 surrogates (``"\\ud800"``, valid in a JSON escape, or their bytes, which
  ``json.loads`` lets through) are replaced with U+FFFD in every string, keys too
  (``replace_surrogates``; a chatbot's reply is cleaned so in ``connectors._boundary``):
  no text read from JSON can fail to be written again as UTF-8.
- ``read_user_json(path)`` reads a regular file of at most ``MAX_JSON_FILE_BYTES``
  (``sparring._files.read_user_bytes``: no FIFO, device or ``/dev/zero`` link) and parses
  it so; ``ConfigError`` naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sparring._files import read_user_bytes
from sparring.errors import ConfigError, Problem

MAX_JSON_FILE_BYTES = 64 * 1024 * 1024
"""Largest JSON file read (64 MiB: a record of 64 turns of 1 MB replies)."""
MAX_JSON_DEPTH = 100
"""Deepest nesting of lists and objects in a JSON file (a record with a 64-deep reply
payload inside is about 70)."""


class JsonLimitError(ValueError):
    """JSON that cannot be read within bounds; ``line`` is 1-based where known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def loads_bounded(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value of ``data`` (UTF-8, -16 or -32 bytes, or text). Raises
    ``JsonLimitError`` for data that is not JSON or not text, nested deeper than
    ``max_depth`` lists and objects, or holding a number Python cannot read."""
    too_deep = f"nested deeper than {max_depth} levels of lists and objects"
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        raise JsonLimitError(f"invalid JSON: {exc.msg}", exc.lineno) from exc
    except UnicodeDecodeError as exc:
        raise JsonLimitError(f"not UTF-8 text: {exc.reason}") from exc
    except RecursionError as exc:
        raise JsonLimitError(too_deep) from exc
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise JsonLimitError(f"a number that cannot be read: {exc}") from exc
    if nesting_depth(value, max_depth) > max_depth:
        raise JsonLimitError(too_deep)
    if _may_hold_surrogates(data):
        value = replace_surrogates(value, [])
    return value


def _may_hold_surrogates(data: bytes | str) -> bool:
    """Whether ``data`` may hold a lone surrogate (searched at C speed, so that the walk
    of ``replace_surrogates`` runs only then): escaped, or as UTF-8 bytes (CESU), or in
    text or bytes of another encoding."""
    if isinstance(data, str):
        raw = not data.isascii() and _SURROGATE.search(data) is not None
        return raw or bool(_ESCAPED_SURROGATE.search(data))
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and 0 in data[:4]):
        return True  # UTF-16 or -32: json.loads decodes it with surrogatepass
    return bool(_ESCAPED_SURROGATE_BYTES.search(data) or _SURROGATE_BYTES.search(data))


_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPED_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf]")


def replace_surrogates(value: Any, found: list[bool]) -> Any:
    """``value`` with lone surrogates replaced with U+FFFD in every string (keys too);
    ``True`` is appended to ``found`` for each string changed. Recursive: call it on a
    value whose nesting is bounded (``nesting_depth``)."""
    if isinstance(value, str):
        if value.isascii() or _SURROGATE.search(value) is None:  # isascii: C speed
            return value
        found.append(True)
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, Mapping):
        return {
            replace_surrogates(k, found): replace_surrogates(v, found) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [replace_surrogates(v, found) for v in value]
    return value


def nesting_depth(value: Any, stop: int) -> int:
    """Levels of lists, tuples and mappings in ``value`` (0 for a scalar), counted up to
    ``stop + 1``. Iterative: any depth is safe."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > stop:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_user_json(path: Path | str, limit: int = MAX_JSON_FILE_BYTES) -> Any:
    """The JSON value of the regular file ``path`` (see ``loads_bounded``). Raises
    ``ConfigError`` naming the file (and the line, where known) when it cannot be read
    (``read_user_bytes``: missing, special, over ``limit`` bytes) or parsed within bounds."""
    data = read_user_bytes(path, limit)
    try:
        return loads_bounded(data)
    except JsonLimitError as exc:
        raise ConfigError(Problem(str(path), exc.line, "", str(exc))) from exc
