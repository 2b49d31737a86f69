"""Loading and validating profile files; every problem is reported with file, line, key.

Besides release 1.1.5's syntax, the loader reads forms found in published profiles, with
a warning for each:

- ``user.ask_about`` — the name ``goals`` had in SENSEI's first releases;
- ``conversation`` written as a list of one-key mappings (``- number: 4``), which SENSEI
  rejects; the mappings are merged;
- a context line ``'personality: personalities/x-user'`` written as a quoted string (as
  TRACER writes it), read as a personality reference;
- SENSEI's early flat layout (the wild bots' profiles): ``role``, ``context``,
  ``ask_about``, ``language`` at the top level (read under ``user``), ``is_starter``,
  ``fallback``, ``output`` (under ``chatbot``), ``temperature`` (under ``llm``) and
  ``conversations`` (as ``conversation``);
- the same early keys at the top level of a file that has the sections (``temperature``,
  ``is_starter``, ``fallback`` beside ``user`` and ``chatbot``), and ``conversations`` for
  ``conversation`` there (SENSEI's own pizza evaluation profiles);
- SENSEI's pre-paper variables, a bare list (``- size: [small, big]``), read as
  ``{function: random(), type: …, data: [small, big]}`` (one value per conversation; the
  type is ``int``/``float`` when every value is one, else ``string``).

``llm.format`` ``speech`` is refused: sparring runs text conversations only, and would
otherwise run a speech profile as text without a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sparring._files import user_files
from sparring._policy import current_policy
from sparring._yaml import KeyPath, LineMap, format_key, load_yaml_with_lines, validation_problems
from sparring.errors import ConfigError, Problem
from sparring.profiles._checks import Findings, check_goals
from sparring.profiles._data import FunctionData
from sparring.profiles._messages import explain_unknown_keys
from sparring.profiles._model import PersonalityRef, Profile
from sparring.profiles._persona_files import PersonaFile, load_persona_file
from sparring.profiles._personas import ResolvedPersona, outside_project, resolve_persona
from sparring.profiles._types import load_custom_types, parse_output_type, read_output_type

_PERSONALITY_LINE = re.compile(r"^\s*personality\s*:\s*(\S.*?)\s*$")
_SKIPPED_FOLDERS = {"personalities", "personas", "types"}


class AliasedLines(LineMap):
    """A ``LineMap`` that also answers for key paths the loader renamed.

    ``aliases`` maps a new path prefix (``("user", "goals")``) to where it is written in
    the file (``("user", "ask_about")``).
    """

    def __init__(self, inner: LineMap, aliases: dict[KeyPath, KeyPath]) -> None:
        super().__init__()
        self._inner = inner
        self._aliases = aliases

    def _to_file(self, path: Sequence[str | int]) -> KeyPath:
        path = tuple(path)
        for new, old in self._aliases.items():
            if path[: len(new)] == new:
                return (*old, *path[len(new) :])
        return path

    def __contains__(self, path: object) -> bool:
        return isinstance(path, tuple) and self._to_file(path) in self._inner

    def __len__(self) -> int:
        return len(self._inner)

    def get(self, path: Sequence[str | int]) -> int | None:
        return self._inner.get(self._to_file(path))

    def resolve(
        self, loc: Sequence[str | int], *, missing: bool = False
    ) -> tuple[KeyPath, int | None]:
        _, line = self._inner.resolve(self._to_file(loc), missing=missing)
        matched: KeyPath = ()
        for element in loc:  # report the key under its new name
            if (*matched, element) in self:
                matched = (*matched, element)
        if missing and loc and (not matched or matched[-1] != loc[-1]):
            matched = (*matched, loc[-1])
        return matched, line


@dataclass
class ProfileCheck:
    """The outcome of checking one file: the profile (``None`` when it has errors)."""

    path: Path
    profile: Profile | None = None
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def load_profile(path: Path | str) -> Profile:
    """Read, check and return the profile in ``path``.

    Personas and custom types are resolved relative to the file; ``profile.warnings``
    lists non-fatal findings. Raises ``ConfigError`` listing every problem of the file
    (file, line, key), not only the first.
    """
    check = check_profile(path)
    if check.profile is None:
        raise ConfigError(check.errors)
    return check.profile


def check_profile(path: Path | str) -> ProfileCheck:
    """Like ``load_profile`` but returns errors and warnings instead of raising."""
    path = Path(path)
    result = ProfileCheck(path)
    try:
        document, lines = load_yaml_with_lines(path)
    except ConfigError as exc:
        result.errors = exc.problems
        return result
    if not isinstance(document, dict):
        result.errors = [
            Problem(str(path), 1, "", "a profile is a mapping with user, chatbot and conversation")
        ]
        return result
    findings = Findings(path, lines)
    document, flat = _nest_flat_layout(document)
    findings.lines = AliasedLines(lines, flat)
    _warn_early_layout(flat, findings)
    document, aliased = _read_legacy_forms(document, findings)
    findings.lines = AliasedLines(lines, _compose(aliased, flat))
    custom_types, type_warnings = load_custom_types(path)
    findings.warnings += type_warnings
    profile: Profile | None = None
    personas: list[ResolvedPersona] = []
    persona_file: tuple[Path, PersonaFile] | None = None
    try:
        profile = Profile.model_validate(document, context={"custom_types": custom_types})
    except ValidationError as exc:
        findings.errors += explain_unknown_keys(validation_problems(path, exc, findings.lines))
    check_goals(document, findings)
    if profile is not None:
        _police_generators(profile, findings)
        personas = _resolve_personas(profile, findings)
        persona_file = _persona_file(profile, findings)
        _check_outputs(profile, custom_types, findings)
    result.errors = sorted(findings.errors, key=lambda p: (p.line or 0, p.key))
    result.warnings = sorted(findings.warnings, key=lambda p: (p.line or 0, p.key))
    if profile is not None and not result.errors:
        from sparring.profiles._planner import plan_size_problems  # it imports this module

        profile._source = path
        profile._lines = findings.lines
        result.errors = plan_size_problems(profile)
    if profile is not None and not result.errors:
        profile._personas = personas
        profile._persona_file = persona_file
        profile._custom_types = custom_types
        profile._warnings = result.warnings
        profile._lines = findings.lines
        result.profile = profile
    return result


def _police_generators(profile: Profile, findings: Findings) -> None:
    """A problem at each ``data: {file: …}`` generator when the execution policy refuses
    code (decided on the typed variables, whatever the YAML spelling)."""
    policy = current_policy()
    for variable in profile.variables:
        if isinstance(variable.data, FunctionData):
            key = ("user", "goals", variable.goal_index, variable.name, "data", "file")
            where = findings.lines.line_of(key)
            feature = "a generator function (data: {file, function_name})"
            problem = policy.code_problem(feature, str(findings.path), where, format_key(key))
            if problem is not None:
                findings.errors.append(problem)


_FLAT_SECTIONS: dict[str, tuple[str, ...]] = {
    "user": ("language", "role", "context", "ask_about", "goals"),
    "chatbot": ("is_starter", "fallback", "output"),
    "llm": ("temperature",),
}
_EARLY_KEYS: dict[str, str] = {"temperature": "llm", "is_starter": "chatbot", "fallback": "chatbot"}
"""Top-level keys of SENSEI's early releases that 1.1.5 reads inside a section."""


def _nest_flat_layout(document: dict[str, Any]) -> tuple[dict[str, Any], dict[KeyPath, KeyPath]]:
    """SENSEI's early flat layout as sections, with where each key is written; unchanged
    (and no aliases) when the document has any of the sections already."""
    if {"user", "chatbot", "conversation"} & set(document) or not (
        {"ask_about", "role", "conversations"} & set(document)
    ):
        return _early_keys(document)
    nested: dict[str, Any] = {}
    aliases: dict[KeyPath, KeyPath] = {}
    for key, value in document.items():
        section = next((s for s, keys in _FLAT_SECTIONS.items() if key in keys), None)
        if section is not None:
            nested.setdefault(section, {})[key] = value
            aliases[(section, key)] = (key,)
        elif key == "conversations":
            nested["conversation"] = value
            aliases[("conversation",)] = ("conversations",)
        elif isinstance(value, dict) and isinstance(nested.get(key), dict):
            nested[key] = {**value, **nested[key]}
        else:
            nested[key] = value
    return nested, aliases


def _warn_early_layout(flat: dict[KeyPath, KeyPath], findings: Findings) -> None:
    if any(new[0] == "user" for new in flat):
        findings.warn(
            (),
            "SENSEI's early layout (top-level role, ask_about or conversations); "
            "read as user, chatbot and conversation sections",
        )
        return
    for new, old in flat.items():
        modern = ".".join(str(k) for k in new)
        where = "" if len(new) == 1 else " at the top level"
        findings.warn(new, f"'{old[0]}'{where} is SENSEI's early spelling of '{modern}'")


def _early_keys(document: dict[str, Any]) -> tuple[dict[str, Any], dict[KeyPath, KeyPath]]:
    """A sectioned file's early top-level keys moved into their sections (a key the
    section also sets stays where it is, so the unknown-key error names it)."""
    nested = dict(document)
    aliases: dict[KeyPath, KeyPath] = {}
    for key, section in _EARLY_KEYS.items():
        target = nested.get(section, {})
        if key in nested and isinstance(target, dict) and key not in target:
            nested[section] = {**target, key: nested.pop(key)}
            aliases[(section, key)] = (key,)
    if "conversations" in nested and "conversation" not in nested:
        nested["conversation"] = nested.pop("conversations")
        aliases[("conversation",)] = ("conversations",)
    return nested, aliases


def _compose(
    aliases: dict[KeyPath, KeyPath], flat: dict[KeyPath, KeyPath]
) -> dict[KeyPath, KeyPath]:
    """The aliases of the legacy forms, written-in-file paths mapped through ``flat``;
    the most specific first (``AliasedLines`` takes the first prefix that matches)."""

    def to_file(path: KeyPath) -> KeyPath:
        for new, old in flat.items():
            if path[: len(new)] == new:
                return (*old, *path[len(new) :])
        return path

    composed = {new: to_file(old) for new, old in aliases.items()}
    for new, old in flat.items():
        composed.setdefault(new, old)
    return dict(sorted(composed.items(), key=lambda item: -len(item[0])))


def _read_legacy_forms(
    document: dict[str, Any], findings: Findings
) -> tuple[dict[str, Any], dict[KeyPath, KeyPath]]:
    document = dict(document)
    aliases: dict[KeyPath, KeyPath] = {}
    user = document.get("user")
    if isinstance(user, dict) and "ask_about" in user and "goals" not in user:
        user = {("goals" if k == "ask_about" else k): v for k, v in user.items()}
        document["user"] = user
        aliases[("user", "goals")] = ("user", "ask_about")
        findings.warn(
            ("user", "ask_about"),
            "'ask_about' is the old name of 'goals' (SENSEI 1.1.5 rejects it)",
        )
    conversation = document.get("conversation")
    if isinstance(conversation, list) and all(isinstance(i, dict) for i in conversation):
        merged: dict[str, Any] = {}
        for index, item in enumerate(conversation):
            for key, value in item.items():
                merged[key] = value
                aliases[("conversation", key)] = ("conversation", index, key)
        document["conversation"] = merged
        findings.warn(
            ("conversation",),
            "conversation is written as a list of one-key items; read as one mapping "
            "(SENSEI rejects this form)",
        )
    if isinstance(user, dict) and isinstance(user.get("goals"), list):
        written = aliases.get(("user", "goals"), ("user", "goals"))
        user = {**user, "goals": _bare_list_variables(user["goals"], written, findings)}
        document["user"] = user
    _refuse_speech(document, findings)
    if isinstance(user, dict) and isinstance(user.get("context"), list):
        user = dict(user)
        user["context"] = [
            _personality_line(item, i, findings) for i, item in enumerate(user["context"])
        ]
        document["user"] = user
    return document, aliases


def _bare_list_variables(goals: list[Any], written: KeyPath, findings: Findings) -> list[Any]:
    """SENSEI's pre-paper variables (``- size: [small, big]``) as 1.1.5 variables."""
    read: list[Any] = []
    for index, item in enumerate(goals):
        if not (isinstance(item, dict) and len(item) == 1):
            read.append(item)
            continue
        [(name, value)] = item.items()
        if not isinstance(value, list) or not value:
            read.append(item)
            continue
        kind = _value_type(value)
        read.append({name: {"function": "random()", "type": kind, "data": value}})
        findings.warn(
            (*written, index, name),
            f"variable '{name}' is a bare list (SENSEI's pre-paper layout); read as "
            f"{{function: random(), type: {kind}, data: [...]}}: one value per conversation",
        )
    return read


def _value_type(values: list[Any]) -> str:
    if all(type(v) is int for v in values):
        return "int"
    if all(type(v) in (int, float) for v in values):
        return "float"
    return "string"


def _refuse_speech(document: dict[str, Any], findings: Findings) -> None:
    llm = document.get("llm")
    written = llm.get("format") if isinstance(llm, dict) else None
    kind = written.get("type") if isinstance(written, dict) else written
    if kind == "speech":
        key = ("llm", "format", "type") if isinstance(written, dict) else ("llm", "format")
        findings.error(
            key,
            "speech conversations are not supported: sparring runs text conversations only "
            "(remove llm.format or write type: text)",
        )


def _personality_line(item: Any, index: int, findings: Findings) -> Any:
    match = _PERSONALITY_LINE.match(item) if isinstance(item, str) else None
    if match is None:
        return item
    findings.warn(
        ("user", "context", index),
        "a quoted 'personality: ...' line is read as a personality reference "
        "(SENSEI would pass it to the user simulator as plain text)",
    )
    return {"personality": match.group(1).strip("'\"")}


def _resolve_personas(profile: Profile, findings: Findings) -> list[ResolvedPersona]:
    resolved: list[ResolvedPersona] = []
    for index, item in enumerate(profile.user.context):
        if not isinstance(item, PersonalityRef):
            continue
        key = ("user", "context", index, "personality")
        try:
            resolved.append(resolve_persona(item.personality, findings.path.parent))
        except LookupError as exc:
            findings.error(key, str(exc))
        except ConfigError as exc:
            findings.errors += exc.problems
    return resolved


def _persona_file(profile: Profile, findings: Findings) -> tuple[Path, PersonaFile] | None:
    """The persona file ``user.persona`` names, relative to the profile (sparring's
    extension); a missing or invalid file is an error at ``user.persona``."""
    reference = profile.user.persona
    if reference is None:
        return None
    outside = outside_project(Path(reference).expanduser(), findings.path.parent)
    if outside is not None:
        findings.error(("user", "persona"), f"persona file {reference}: {outside}")
        return None
    path = findings.path.parent / Path(reference).expanduser()
    if not path.is_file():
        findings.error(("user", "persona"), f"persona file not found: {path}")
        return None
    try:
        return path, load_persona_file(path)
    except ConfigError as exc:
        count = len(exc.problems)
        findings.error(("user", "persona"), f"persona file {path} has {count} problem(s)")
        findings.errors += exc.problems
        return None


def _check_outputs(profile: Profile, custom_types: dict[str, Any], findings: Findings) -> None:
    for index, item in enumerate(profile.chatbot.output):
        for name, spec in item.items():
            if parse_output_type(spec.type, custom_types) is None:
                read = read_output_type(spec.type, custom_types)
                findings.warn(
                    ("chatbot", "output", index, name, "type"),
                    f"unknown output type '{spec.type}': SENSEI extracts it as a string, "
                    f"sparring as {read.element.kind}{' list' if read.is_list else ''} "
                    "(types: int, float, money, string, bool, time, date, list[...], custom)",
                )


def profile_files(paths: Iterable[Path | str]) -> list[Path]:
    """The profile files named by ``paths``: files as given; folders searched recursively
    for ``*.yml``/``*.yaml``, skipping ``personalities/``, ``personas/`` and ``types/``.

    A path that does not exist is kept, so that checking it reports the problem. Raises
    ``ConfigError`` naming a file in a folder that is a FIFO, device or socket (or a link
    to one) or a link that leads out of the folder (``sparring._files.user_files``).
    """
    found: list[Path] = []
    for entry in map(Path, paths):
        if not entry.is_dir():
            found.append(entry)
            continue
        found += user_files(entry, (".yml", ".yaml"), lambda d: d in _SKIPPED_FOLDERS)
    return found


def check_profiles(paths: Iterable[Path | str]) -> list[ProfileCheck]:
    """``check_profile`` for every file ``profile_files(paths)`` finds."""
    return [check_profile(path) for path in profile_files(paths)]


def validate_profiles(paths: Iterable[Path | str]) -> list[Problem]:
    """Every error in the profile files named by ``paths`` (files or folders); empty when
    all load. Warnings are left out (see ``check_profiles``)."""
    return [problem for check in check_profiles(paths) for problem in check.errors]


def locate(profile: Profile, key: KeyPath, message: str) -> Problem:
    """A ``Problem`` at ``key`` of the profile's file (used when planning fails)."""
    lines = profile._lines
    line = lines.line_of(key) if lines is not None else None
    return Problem(str(profile.source or ""), line, format_key(key), message)
