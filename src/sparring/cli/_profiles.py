"""``sparring validate PATH…`` and ``sparring schema NAME``.

``validate`` checks every file format users write — profiles, rule files, persona files
and ``chatbot.yaml`` — telling them apart by their top-level keys.

``schema`` prints the JSON Schema of a file format users write, looked up in the
library's registry (``sparring.schemas``: the packages register their formats,
third-party packages add theirs through the ``sparring.schemas`` entry-point group).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sparring._terminal import escape
from sparring._yaml import load_yaml_with_lines
from sparring.cli._app import (
    EXIT_USER_ERROR,
    TrustFunctionsOption,
    app,
    console,
    err_console,
)
from sparring.cli._cross_checks import connector_problems, rule_variable_problems
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.profiles import (
    Profile,
    check_profiles,
    is_chatchecker_persona,
    load_persona_file,
    profile_files,
)
from sparring.schemas import json_schema

_RULE_KEYS = frozenset({"oracle", "then", "if", "when", "yields", "on-error", "rules"})
_PROFILE_KEYS = frozenset({"test_name", "llm", "user", "chatbot", "conversation"})
_CHATCHECKER_OUTPUT = frozenset({"chatbot_id"})
"""A key of the files ChatChecker writes into a run (statistics, simulation_run_info.yaml),
which are results, not user input: ``validate`` skips them (``import-chatchecker`` reads
the run)."""


def _kind(path: Path) -> str:
    """``chatbot``, ``rules``, ``persona``, ``profile`` or ``unknown``, from the top-level
    keys."""
    try:
        data, _ = load_yaml_with_lines(path)
    except ConfigError:
        return "profile"  # the profile loader reports the problem with its line
    from sparring.connectors import is_chatbot_file

    items = data if isinstance(data, list) else [data]
    keys = {k for item in items if isinstance(item, dict) for k in item}
    if _CHATCHECKER_OUTPUT & keys or {"dialogue_id", "chat_history"} <= keys:
        return "ChatChecker run output"
    if is_chatbot_file(data):
        return "chatbot"
    if keys & _RULE_KEYS:
        return "rules"
    if ("task" in keys and not keys & _PROFILE_KEYS) or is_chatchecker_persona(data):
        return "persona"
    return "profile" if keys & _PROFILE_KEYS or not keys else "unknown"


def _other_problems(path: Path, kind: str, trust_functions: bool) -> list[Problem]:
    """Problems of a rule file or chatbot.yaml (imported lazily: only when there is one)."""
    if kind == "unknown":
        message = "not a profile, rule file or chatbot.yaml (none of their top-level keys)"
        return [Problem(str(path), None, "", message)]
    if kind == "persona":
        try:
            load_persona_file(path)
        except ConfigError as exc:
            return exc.problems
        return []
    try:
        from sparring.check import load_rules

        load_rules([path], trust_functions=trust_functions)
    except ConfigError as exc:
        return exc.problems
    return []


@app.command("validate")
def validate(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Profiles, rule files or chatbot.yaml; folders are searched."),
    ],
    trust_functions: TrustFunctionsOption = False,
) -> None:
    """Check user files; print every problem (file:line \\[key]) or OK per file.

    Connectors are built (a python module is imported); with profiles given, rule
    variables are checked against the names the profiles define.
    """
    files = profile_files(paths)
    if not files:
        raise UserInputError(f"no YAML files found in {', '.join(map(str, paths))}")
    kinds = {path: _kind(path) if path.is_file() else "profile" for path in files}
    results: dict[Path, tuple[list[Problem], list[Problem]]] = {}
    profiles = [p for p in files if kinds[p] == "profile"]
    loaded: list[Profile] = []
    for check in check_profiles(profiles) if profiles else []:
        results[check.path] = (check.errors, check.warnings)
        loaded += [check.profile] if check.profile is not None else []
    for path in files:
        if kinds[path] == "chatbot":
            results[path] = connector_problems(path)
        elif kinds[path] == "ChatChecker run output":
            results[path] = ([], [])
        elif kinds[path] != "profile":
            errors = _other_problems(path, kinds[path], trust_functions)
            if kinds[path] == "rules" and loaded and not errors:
                errors = rule_variable_problems(path, loaded, trust_functions=trust_functions)
            results[path] = (errors, [])
    failed = False
    for path in files:
        errors, warnings = results.get(path, ([], []))
        for warning in warnings:
            err_console.print(
                f"[yellow]warning[/]: {escape(str(warning))}", highlight=False, soft_wrap=True
            )
        for error in errors:
            err_console.print(
                f"[bold red]error[/]: {escape(str(error))}", highlight=False, soft_wrap=True
            )
        failed = failed or bool(errors)
        if kinds[path] == "ChatChecker run output":
            console.print(f"skipped {kinds[path]} {escape(str(path))}", highlight=False)
        elif not errors:
            console.print(f"OK {kinds[path]} {escape(str(path))}", highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(EXIT_USER_ERROR)


@app.command("schema")
def schema(name: Annotated[str, typer.Argument(help="Which file format, e.g. profile.")]) -> None:
    """Print the JSON Schema of a file format (for editors and CI)."""
    typer.echo(json.dumps(json_schema(name), indent=2, ensure_ascii=False))
