"""What ``validate`` checks beyond each file's own format, so that ``simulate`` and
``check`` do not reject later what it passed: a connector that cannot be built (a
``python`` module that does not import, a bad parameter) and rule variables that none of
the profiles given defines (misspellings, with "did you mean")."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sparring.errors import ConfigError, Problem
from sparring.profiles import Profile


def connector_problems(path: Path, *, build: bool = True) -> tuple[list[Problem], list[Problem]]:
    """Errors and warnings of building the connector ``path`` describes (its ``python``
    module is imported; no network is used; ``build=False``: the file is only read).
    Unset ``${ENV}`` variables are warnings: CI often validates without the secrets; so
    is where a SENSEI or TRACER connector file is read differently from its own tool."""
    from sparring.connectors import create_connector, load_chatbot_config

    try:
        config = load_chatbot_config(path)
        connector = create_connector(config) if build else None
    except ConfigError as exc:
        unset = [p for p in exc.problems if "environment variable" in p.message]
        return [p for p in exc.problems if p not in unset], unset
    if connector is not None:
        asyncio.run(connector.aclose())
    return [], config.warnings


def rule_variable_problems(
    path: Path, profiles: list[Profile], *, trust_functions: bool = False
) -> list[Problem]:
    """Variables the rules of ``path`` read that none of ``profiles`` defines."""
    from sparring.check import load_rules, profile_names, undefined_names

    try:
        rules = load_rules([path], trust_functions=trust_functions)
    except ConfigError:
        return []  # reported by the rule file's own check
    names = profile_names(profiles)
    structural, undefined = undefined_names(rules.active, names, "no profile given defines it")
    return [*structural, *(p for problems in undefined.values() for p in problems)]
