"""Value types: the ``type`` of goal variables and of the chatbot's output data, and the
custom types users define in ``types/*.yml`` (SENSEI 1.1.5 format).

A custom type file::

    name: phone_number            # the name profiles use (SENSEI keys types by it)
    type_description: a phone number with area code
    format: '^\\d{3}-\\d{7}$'      # a Python regular expression; r"..." / r'...' allowed
    extraction: str               # or {component: {type, description}, ...}

Custom types are looked up in ``types/`` beside the profile, then in ``types/`` of the
folder above (SENSEI's project layout: ``profiles/``, ``types/``, ``personalities/``),
then among the built-in types shipped with sparring (``currency``, ``phone_number``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Literal

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sparring._fields import check_regex
from sparring._regex import compile_pattern, fullmatch
from sparring._yaml import load_yaml_with_lines, validation_problems
from sparring.errors import ConfigError, Problem

VARIABLE_TYPES = ("string", "int", "float", "date")
"""Built-in variable types; anything else must be a custom type."""

OutputKind = Literal[
    "int", "float", "money", "string", "bool", "time", "date", "email", "phone", "list", "custom"
]

_BASIC_OUTPUTS: dict[str, OutputKind] = {
    "int": "int",
    "float": "float",
    "money": "money",
    "string": "string",
    "str": "string",
    "bool": "bool",
    "time": "time",
    "date": "date",
}
"""SENSEI 1.1.5's output types: a profile may use them without a warning."""

_READ_AS: dict[str, OutputKind] = {
    "integer": "int",
    "number": "float",
    "decimal": "float",
    "price": "money",
    "currency": "money",
    "text": "string",
    "boolean": "bool",
    "email": "email",
    "e-mail": "email",
    "phone": "phone",
    "telephone": "phone",
    "telefono": "phone",
    "teléfono": "phone",
}
"""Names beyond SENSEI's that sparring still reads as a kind (lower case)."""

_FORMATTED = re.compile(r"^\s*(time|date)\s*\((.*)\)\s*$", re.IGNORECASE)
_LIST = re.compile(r"^\s*(list)\s*\[\s*(.*?)\s*\]\s*$", re.IGNORECASE)


class ExtractionField(BaseModel):
    """One component of a structured custom type: its ``type`` and ``description``."""

    model_config = ConfigDict(extra="forbid")

    type: str
    description: str = ""


FORMAT_TIMEOUT = 0.5
"""Seconds a custom type's ``format`` may run on one value (a value is short: a sound
pattern takes microseconds; ``^(\\w|\\s|\\w\\w|\\w\\s)*\\d$`` ran for ever on 47 characters)."""


class CustomType(BaseModel):
    """A user-defined value type (``types/<name>.yml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    type_description: str = ""
    format: str
    extraction: str | dict[str, ExtractionField] = "str"

    @field_validator("format")
    @classmethod
    def _regex(cls, value: str) -> str:
        return check_regex(strip_raw_marker(value))

    @cached_property
    def pattern(self) -> regex.Pattern[str]:
        """The compiled ``format`` (the time-limited matcher, ``sparring._regex``); a value
        belongs to the type when it fully matches."""
        return compile_pattern(self.format, ignore_case=False)

    def matches(self, value: object) -> bool:
        """True when ``value`` is a string that fully matches ``format``. Raises
        ``PatternTimeout`` (a ``ValueError``) when the match runs longer than
        ``FORMAT_TIMEOUT`` seconds (a pattern that backtracks catastrophically)."""
        if not isinstance(value, str):
            return False
        return fullmatch(self.pattern, value.strip(), FORMAT_TIMEOUT) is not None


def strip_raw_marker(pattern: str) -> str:
    """``r"^\\d+$"`` or ``r'^\\d+$'`` → ``^\\d+$`` (SENSEI writes regexes as Python literals)."""
    text = pattern.strip()
    if len(text) >= 3 and text[0] == "r" and text[1] in "\"'" and text[-1] == text[1]:
        return text[2:-1]
    return text


@dataclass(frozen=True)
class OutputType:
    """A parsed output ``type``.

    ``kind`` is the base type; ``format`` the free-text format of ``time(...)`` /
    ``date(...)`` (a strftime format for extraction); ``item`` the element type of
    ``list[...]``; ``name`` the type as written (the custom type's name for ``custom``).
    ``email`` and ``phone`` come only from ``read_output_type``.
    """

    kind: OutputKind
    name: str
    format: str | None = None
    item: OutputType | None = None

    @property
    def is_list(self) -> bool:
        """True for ``list[...]``."""
        return self.kind == "list"

    @property
    def element(self) -> OutputType:
        """The type of each value: ``item`` for a list, else the type itself."""
        return self.item if self.item is not None else self


def value_kind(otype: OutputType) -> str:
    """The kind of each value of ``otype`` (its item's for a list), as
    ``sparring.values.find_values`` names kinds; custom types and unknown names are read
    as ``string``, which ``find_values`` does not search."""
    kind = otype.element.kind
    return "string" if kind == "custom" else kind


def parse_output_type(text: str, custom: Mapping[str, CustomType]) -> OutputType | None:
    """Parse an output ``type`` as SENSEI 1.1.5 knows it (``int``, ``float``, ``money``,
    ``string``/``str``, ``bool``, ``time``/``date`` with an optional ``(format)``,
    ``list[<type>]``, a custom type's name); ``None`` when it names none of them.

    SENSEI extracts an unknown type as a string; the loader warns and extraction uses
    ``read_output_type``.
    """
    return _parse(text, custom, lenient=False)


def read_output_type(text: str, custom: Mapping[str, CustomType] | None = None) -> OutputType:
    """How sparring reads any output ``type``: as ``parse_output_type``, then also in any
    letter case and with sparring's extra names (``email``, ``phone``/``telefono``, and
    ``integer``, ``number``, ``price``, ``text``, ``boolean``…); anything else — nested
    lists included — is a ``string`` named as written. Never raises.
    """
    parsed = _parse(text, custom or {}, lenient=True)
    return parsed or OutputType(kind="string", name=text.strip())


def _parse(text: str, custom: Mapping[str, CustomType], *, lenient: bool) -> OutputType | None:
    name = text.strip()
    if name in _BASIC_OUTPUTS:
        return OutputType(kind=_BASIC_OUTPUTS[name], name=name)
    formatted = _FORMATTED.match(name)
    if formatted and (lenient or formatted.group(1) in ("time", "date")):
        kind: OutputKind = "time" if formatted.group(1).lower() == "time" else "date"
        return OutputType(kind=kind, name=name, format=formatted.group(2).strip() or None)
    listed = _LIST.match(name)
    if listed and (lenient or listed.group(1) == "list"):
        item = _parse(listed.group(2), custom, lenient=lenient) if listed.group(2) else None
        if item is None or item.kind == "list":
            return None
        return OutputType(kind="list", name=name, item=item)
    if name in custom:
        return OutputType(kind="custom", name=name)
    if lenient:
        lowered = name.lower()
        kind_read = _BASIC_OUTPUTS.get(lowered) or _READ_AS.get(lowered)
        return OutputType(kind=kind_read, name=name) if kind_read else None
    return None


def builtin_types() -> dict[str, CustomType]:
    """The custom types shipped with sparring (``currency``, ``phone_number``)."""
    found: dict[str, CustomType] = {}
    folder = resources.files("sparring.profiles") / "types"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yml", ".yaml")):
            with resources.as_file(entry) as path:
                custom, _ = _read_type_file(path)
            if custom is not None:
                found[custom.name] = custom
    return found


def load_custom_types(profile_path: Path) -> tuple[dict[str, CustomType], list[Problem]]:
    """Custom types visible from ``profile_path`` (see module docstring), nearest first.

    Returns the types by name and warnings for type files that could not be read (they
    are skipped, as SENSEI skips them).
    """
    found = builtin_types()
    warnings: list[Problem] = []
    folder = profile_path.resolve().parent
    for types_dir in (folder.parent / "types", folder / "types"):  # nearer overrides
        if not types_dir.is_dir():
            continue
        for path in sorted(types_dir.iterdir()):
            if path.suffix not in (".yml", ".yaml"):
                continue
            custom, problems = _read_type_file(path)
            warnings += problems
            if custom is not None:
                found[custom.name] = custom
    return found, warnings


def _read_type_file(path: Path) -> tuple[CustomType | None, list[Problem]]:
    try:
        data, lines = load_yaml_with_lines(path)
    except ConfigError as exc:
        return None, exc.problems
    try:
        return CustomType.model_validate(data), []
    except ValidationError as exc:
        return None, validation_problems(path, exc, lines)
