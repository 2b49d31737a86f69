"""Which variables a rule may read, and what to do with one nobody defines.

A rule reads names from a conversation's namespace (``_namespace.build_namespace``): goal
variables, output data, conversation settings and the fixed names. On a partial run (a few
profiles of a suite) a rule folder often reads a variable that no conversation *of this
run* defines; like SENSEI-check's ``when: x is not None`` idiom expects, its verdicts are
then *not applicable* (``check`` warns once per name). A name that no *profile* defines is
a mistake (usually a misspelling): ``validate`` and ``check`` (when the run's profiles are
known) report it as an error with the closest known name ("did you mean").
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterable, Sequence

from sparring.check._builtins import BUILTIN_NAMES
from sparring.check._expressions import Expression
from sparring.check._namespace import build_namespace
from sparring.check._rules import Rule
from sparring.conversations import ConversationRecord, OutputValue
from sparring.errors import Problem
from sparring.profiles import Profile

PAIRWISE_NAMES = frozenset({"conv", "interaction"})
"""The only plain names of a metamorphic rule's namespace (as SENSEI-check)."""


def profile_names(profiles: Iterable[Profile]) -> frozenset[str]:
    """Every name a conversation simulated from ``profiles`` will define: the namespace of
    a stand-in record with each profile's variables, outputs and conversation settings."""
    names: set[str] = set()
    for profile in profiles:
        settings = profile.conversation.model_dump(
            mode="json", by_alias=True, exclude_none=True, warnings=False
        )
        record = ConversationRecord(
            id="names",
            profile=profile.name,
            variables={variable.name: None for variable in profile.variables},
            outputs={output.name: OutputValue(value=None) for output in profile.outputs},
            settings=settings,
        )
        names.update(build_namespace(record))
    return frozenset(names)


def undefined_names(
    rules: Sequence[Rule], known: frozenset[str], where: str = "no conversation defines it"
) -> tuple[list[Problem], dict[str, list[Problem]]]:
    """Names the rules read that are not in ``known`` (plus ``conv`` and the built-ins).

    Returns the structural mistakes (a conversation's variable read as a plain name in a
    rule over several conversations: always an error) and, by name, the reads of names
    nobody in ``known`` defines (with a "did you mean" when one is close); ``where`` says
    what ``known`` covers in their message.
    """
    known = known | {"conv"} | BUILTIN_NAMES
    structural: list[Problem] = []
    undefined: dict[str, list[Problem]] = {}
    for rule in rules:
        for key, expression in rule.expressions():
            allowed: frozenset[str] = known
            if rule.kind == "tuple":
                allowed = PAIRWISE_NAMES | BUILTIN_NAMES
            elif rule.kind == "global" and key in ("then", "yields"):
                allowed = BUILTIN_NAMES | {"conv"}
            nested = (expression.all_names() - expression.names) | expression.all_attributes()
            for name in sorted(expression.names - allowed) + sorted(nested - known):
                if name in known:
                    structural.append(_misplaced(expression, name))
                else:
                    undefined.setdefault(name, []).append(_unknown(expression, name, known, where))
    return structural, undefined


def _misplaced(expression: Expression, name: str) -> Problem:
    return expression.location.problem(
        f"variable {name!r} is not a name of this rule: in a rule over several "
        f"conversations read it as conv[0].{name}"
    )


def _unknown(expression: Expression, name: str, known: frozenset[str], where: str) -> Problem:
    hint = difflib.get_close_matches(name, sorted(known), n=1)
    extra = f" (did you mean {hint[0]!r}?)" if hint else ""
    return expression.location.problem(f"unknown variable {name!r}: {where}{extra}")


def indexed_scalars(rules: Sequence[Rule], records: Sequence[ConversationRecord]) -> list[str]:
    """A warning per ``name[i]`` (or ``conv[k].name[i]``, ``i`` a whole number) that reads a
    goal variable holding one value (a string or a number, not a list) in some of
    ``records``: SENSEI 1.1.5 records a single picked value alone, so ``size[0]`` is the
    first character of ``'small'`` there and ``count[0]`` raises — a rule written for the
    one-element lists of earlier SENSEI releases."""
    strings: dict[str, int] = {}
    for record in records:
        for name, value in record.variables.items():
            if isinstance(value, str | int | float):
                strings[name] = strings.get(name, 0) + 1
    warnings: list[str] = []
    for rule in rules:
        for _, expression in rule.expressions():
            for name in sorted(_indexed_names(expression.tree) & strings.keys()):
                message = (
                    f"{name}[…]: {name!r} holds one value, not a list, in {strings[name]} of "
                    f"{len(records)} conversations (SENSEI 1.1.5 records a single pick alone): "
                    f"indexing takes a string's first character or fails; read {name} itself"
                )
                warnings.append(str(expression.location.problem(message)))
    return warnings


def _indexed_names(tree: ast.AST) -> set[str]:
    """Names subscripted by a whole-number constant: ``x[0]`` and ``conv[1].x[0]``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and type(node.slice.value) is int
        ):
            continue
        if isinstance(node.value, ast.Name) and node.value.id != "conv":
            found.add(node.value.id)
        elif isinstance(node.value, ast.Attribute):
            found.add(node.value.attr)
    return found
