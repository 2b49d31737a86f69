"""Paths into a chatbot's JSON reply: SENSEI's dot paths and JSONPath (jsonpath-ng).

SENSEI's custom connector writes ``response_path`` as a dot path (``data.text``,
``messages.0.content``, ``results.-1.value``: numbers index lists, negatives from the
end). Anything starting with ``$`` or using ``[``/``*`` is read as JSONPath with
jsonpath-ng's extended syntax (filters such as ``$.messages[?(@.type == 'text')].text``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

_JSONPATH_MARKS = re.compile(r"^\$|[\[\]*?@]")
_INDEX = re.compile(r"^-?\d+$")


def to_jsonpath(path: str) -> str:
    """The JSONPath text for ``path`` (a SENSEI dot path is converted; JSONPath kept)."""
    path = path.strip()
    if _JSONPATH_MARKS.search(path):
        return path
    parts = ["$"]
    for segment in path.split("."):
        if _INDEX.match(segment):
            parts.append(f"[{segment}]")
        else:
            parts.append("." + json.dumps(segment))
    return "".join(parts)


@lru_cache(maxsize=256)
def compile_path(path: str) -> Any:
    """Compile ``path`` (dot path or JSONPath). Raises ``ValueError`` when it is invalid."""
    from jsonpath_ng.ext.parser import parse

    try:
        return parse(to_jsonpath(path))
    except Exception as exc:  # jsonpath-ng's lexer and parser raise unrelated types
        raise ValueError(f"invalid path {path!r}: {exc}") from exc


def find_all(path: str, data: Any) -> list[Any]:
    """Every value ``path`` selects in ``data`` (in document order; empty when none)."""
    return [match.value for match in compile_path(path).find(data)]


def check_path(path: str | None) -> str | None:
    """Pydantic validator helper: ``path`` unchanged, or ``ValueError`` when invalid."""
    if path:
        compile_path(path)
    return path
