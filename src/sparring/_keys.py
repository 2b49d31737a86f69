""" "Did you mean" for unknown keys of any file format backed by a Pydantic model.

``hint_unknown_keys`` rewrites the ``unknown key`` problems of ``_yaml.validation_problems``
with the closest key the section takes (``difflib``, cutoff 0.6), or the list of the keys
it takes when none is close. The section's keys are read from the model: field names and
aliases, descending through nested models (lists and optionals included).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel

from sparring.errors import Problem

_UNKNOWN = "unknown key"


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The Pydantic model inside ``annotation`` (``M``, ``list[M]``, ``M | None``), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _nested_model(argument)
        if found is not None:
            return found
    return None


def model_keys(model: type[BaseModel], extra: Collection[str] = ()) -> list[str]:
    """The keys ``model`` accepts: field names, their aliases, and ``extra``."""
    keys = list(extra)
    for name, info in model.model_fields.items():
        keys.append(info.alias or name)
        if info.alias and name not in keys and not name.endswith("_"):
            keys.append(name)
    return keys


def section_model(model: type[BaseModel], path: list[str]) -> type[BaseModel] | None:
    """The model of the section at ``path`` (field names; list indices removed)."""
    current: type[BaseModel] | None = model
    for part in path:
        if current is None:
            return None
        fields = {info.alias or name: info for name, info in current.model_fields.items()}
        fields.update(current.model_fields)
        info = fields.get(part)
        current = _nested_model(info.annotation) if info is not None else None
    return current


def hint_unknown_keys(
    problems: list[Problem],
    model: type[BaseModel],
    sections: dict[str, type[BaseModel]] | None = None,
    extra: dict[str, Collection[str]] | None = None,
) -> list[Problem]:
    """``problems`` with each ``unknown key`` message given a "did you mean" hint.

    ``model`` is the root model; ``sections`` overrides the model of a section by its
    dotted path (e.g. ``params`` → the connector's params model); ``extra`` adds keys a
    section accepts beyond its fields (aliases a validator renames)."""
    return [
        _hinted(p, model, sections or {}, extra or {}) if p.message == _UNKNOWN else p
        for p in problems
    ]


def _hinted(
    problem: Problem,
    model: type[BaseModel],
    sections: dict[str, type[BaseModel]],
    extra: dict[str, Collection[str]],
) -> Problem:
    parts = [p for p in re.sub(r"\[\d+\]", "", problem.key).split(".") if p]
    if not parts:
        return problem
    *parent, last = parts
    dotted = ".".join(parent)
    section = sections.get(dotted) or section_model(model, parent)
    if section is None:
        return problem
    keys = model_keys(section, extra.get(dotted, ()))
    close = difflib.get_close_matches(last, keys, n=1, cutoff=0.6)
    if close:
        message = f"unknown key '{last}' (did you mean '{close[0]}'?)"
    else:
        message = f"unknown key '{last}'; this section takes: {', '.join(keys)}"
    return dataclasses.replace(problem, message=message)
