"""What ``validate`` checks beyond each file's own format, so that ``simulate`` and
``check`` do not reject later what it passed: a connector that cannot be built (a
``python`` module that does not import, a bad parameter) and rule variables that none of
the profiles given defines (misspellings, with "did you mean"), and profiles that plan
more conversations together than one run may hold (a warning: a run of fewer of them is
fine)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from sparring._yaml import load_yaml_with_lines
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


def run_size_problem(profiles: list[Profile], repeat: int = 1) -> Problem | None:
    """A warning when the conversations ``profiles`` plan together, times ``repeat``, are
    over the run cap (``sparring.simulate.run_conversation_cap``): ``simulate`` and ``run``
    would refuse the set. Located at ``conversation.number`` of the profile that plans the
    most; ``None`` under the cap. Counts as ``planned_count`` does (a lower bound where
    values come from a model or a generator)."""
    from sparring.profiles import planned_count
    from sparring.simulate import RUN_CAP_ENV, run_conversation_cap

    if not profiles:
        return None
    counts = [(planned_count(p), p) for p in profiles]
    total = sum(count for count, _ in counts) * max(1, repeat)
    cap = run_conversation_cap()
    if total <= cap:
        return None
    most, profile = max(counts, key=lambda pair: pair[0])
    source = profile.source
    line = None
    if source is not None:
        with contextlib.suppress(ConfigError):
            line = load_yaml_with_lines(source)[1].line_of(("conversation", "number"))
    times = f" × --repeat {repeat}" if repeat > 1 else ""
    message = (
        f"the {len(profiles)} profiles given plan {total:,} conversations together{times} "
        f"(this one {most:,}), over the limit of {cap:,} per run: simulate and run would "
        f"refuse them; lower conversation.number or --repeat, split the run, or raise the "
        f"limit with {RUN_CAP_ENV}"
    )
    return Problem(str(source or ""), line, "conversation.number", message)
