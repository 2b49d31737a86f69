"""``validate``: every problem of the files users write, located (file, line, key).

One function serves the CLI (``sparring validate``), the dashboard's file editor and
tests: ``validate_files`` tells the formats apart by their top-level keys (profiles, rule
files, persona files, probe suites, ``chatbot.yaml``), loads each with its own public
loader and, with profiles given, checks rule variables against the names they define.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from sparring._yaml import load_yaml_with_lines
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.profiles import Profile, check_profiles, is_chatchecker_persona, profile_files
from sparring.validation._cross_checks import (
    connector_problems,
    rule_variable_problems,
    run_size_problem,
)

FileKind = Literal["chatbot", "profile", "rules", "persona", "probes", "results", "unknown"]
"""What a user file is: ``results`` are files ChatChecker writes into a run (skipped)."""

_RULE_KEYS = frozenset({"oracle", "then", "if", "when", "yields", "on-error", "rules"})
_PROFILE_KEYS = frozenset({"test_name", "llm", "user", "chatbot", "conversation"})
_CHATCHECKER_OUTPUT = frozenset({"chatbot_id"})
"""A key of the files ChatChecker writes into a run (statistics, simulation_run_info.yaml),
which are results, not user input (``import-chatchecker`` reads the run)."""
_PROBE_KEYS = frozenset({"suite", "probes"})


@dataclass(frozen=True)
class FileCheck:
    """One file checked: its ``path``, its ``kind``, the ``errors`` that stop a job from
    reading it and the ``warnings`` that do not (each a ``Problem``: file, 1-based line or
    ``None``, dotted key, message)."""

    path: Path
    kind: FileKind
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No error (warnings allowed)."""
        return not self.errors


def file_kind(path: Path) -> FileKind:
    """What ``path`` holds, from its top-level keys; a file that does not parse is read as
    a profile (whose loader reports the problem with its line)."""
    if not path.is_file():
        return "profile"
    try:
        data, _ = load_yaml_with_lines(path)
    except ConfigError:
        return "profile"
    from sparring.connectors import is_chatbot_file

    items = data if isinstance(data, list) else [data]
    keys = {k for item in items if isinstance(item, dict) for k in item}
    if _CHATCHECKER_OUTPUT & keys or {"dialogue_id", "chat_history"} <= keys:
        return "results"
    if is_chatbot_file(data):
        return "chatbot"
    if keys & _RULE_KEYS:
        return "rules"
    if keys >= _PROBE_KEYS:
        return "probes"
    if ("task" in keys and not keys & _PROFILE_KEYS) or is_chatchecker_persona(data):
        return "persona"
    return "profile" if keys & _PROFILE_KEYS or not keys else "unknown"


def validate_file(
    path: Path,
    kind: FileKind | None = None,
    *,
    trust_functions: bool = False,
    build_connector: bool = True,
) -> FileCheck:
    """Check one file read as ``kind`` (``None``: told by ``file_kind``).

    ``build_connector`` builds a ``chatbot.yaml``'s connector (a ``python`` connector's
    module is imported; no network is used) — a server validating untrusted files passes
    ``False`` and only the file is read. ``trust_functions`` lets rule files import their
    ``functions:``. Never raises for the file's problems: they are in the result."""
    kind = kind or file_kind(path)
    if kind == "profile":
        [check] = check_profiles([path])
        return FileCheck(path, kind, check.errors, check.warnings)
    if kind == "chatbot":
        errors, warnings = connector_problems(path, build=build_connector)
        return FileCheck(path, kind, errors, warnings)
    if kind == "results":
        return FileCheck(path, kind)
    if kind == "unknown":
        message = "not a profile, rule file, persona, probe suite or chatbot.yaml"
        return FileCheck(path, kind, [Problem(str(path), None, "", message)])
    try:
        _load(path, kind, trust_functions)
    except ConfigError as exc:
        return FileCheck(path, kind, exc.problems)
    return FileCheck(path, kind)


def _load(path: Path, kind: FileKind, trust_functions: bool) -> None:
    if kind == "rules":
        from sparring.check import load_rules

        load_rules([path], trust_functions=trust_functions)
    elif kind == "persona":
        from sparring.profiles import load_persona_file

        load_persona_file(path)
    else:
        from sparring.adversarial import load_probe_suite

        load_probe_suite(path)


def validate_files(
    paths: Iterable[Path],
    *,
    trust_functions: bool = False,
    build_connector: bool = True,
    repeat: int = 1,
) -> list[FileCheck]:
    """Check every file ``paths`` names (folders searched for ``*.yml``/``*.yaml``), one
    ``FileCheck`` each in the order found; with profiles among them, each rule file's
    variables are checked against the names the profiles define (misspellings, with "did
    you mean"), and the profile planning the most gets a warning when all of them, times
    ``repeat`` (``--repeat``), plan more conversations than one run may hold
    (``run_size_problem``). Raises ``UserInputError`` when no YAML file is found."""
    given = list(paths)
    files = profile_files(given)
    if not files:
        raise UserInputError(f"no YAML files found in {', '.join(map(str, given))}")
    kinds = {path: file_kind(path) for path in files}
    profiles = [path for path in files if kinds[path] == "profile"]
    checked = {c.path: c for c in check_profiles(profiles)} if profiles else {}
    loaded: list[Profile] = [c.profile for c in checked.values() if c.profile is not None]
    too_many = run_size_problem(loaded, repeat)
    checks: list[FileCheck] = []
    for path in files:
        if path in checked:
            warnings = list(checked[path].warnings)
            if too_many is not None and too_many.file == str(path):
                warnings.append(too_many)
            checks.append(FileCheck(path, "profile", checked[path].errors, warnings))
            continue
        check = validate_file(
            path, kinds[path], trust_functions=trust_functions, build_connector=build_connector
        )
        if check.kind == "rules" and check.ok and loaded:
            found = rule_variable_problems(path, loaded, trust_functions=trust_functions)
            check = FileCheck(path, check.kind, found, check.warnings)
        checks.append(check)
    return checks
