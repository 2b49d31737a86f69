"""User-written metamorphic relations: a rule with a ``transformation`` (docs/rules.md).

A rule of a rule file may declare how its follow-up is made from a source conversation;
``sparring metamorphic --rules FILE`` generates and replays those follow-ups, and
``sparring check FILE`` evaluates the rule (usually ``conversations: 2`` over a source and
its follow-up, joined by ``conv[1].source_conversation == conv[0].conversation_id``).

Transformations (a name, or a mapping of one name to its argument):

- ``shuffle goals`` — the rounds in another order (MORTAR's DRS);
- ``reduce`` — 30 % of the rounds removed, order kept (DRR);
- ``duplicate`` — 20 % of the rounds asked again later (DRD);
- ``add typos`` — typos in the user's turns (METAL);
- ``change interaction style: STYLE`` — ``all questions`` (every round in one message) or
  ``make spelling mistakes`` (typos);
- ``change variable: {variable: NAME, value: VALUE}`` — the source's value of the goal
  variable NAME replaced by VALUE in the user's turns (and in the record's variables).

An unknown transformation, style or variable (one no seed conversation has) is a
``ConfigError`` naming the file, line and key.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparring._yaml import LineMap, format_key, load_yaml_with_lines
from sparring.errors import ConfigError, Problem
from sparring.metamorphic._perturb import duplicated, reduced, shuffled, typos

TRANSFORMATIONS = (
    "shuffle goals",
    "reduce",
    "duplicate",
    "add typos",
    "change interaction style",
    "change variable",
)
STYLES = ("all questions", "make spelling mistakes")


@dataclass(frozen=True)
class Transformation:
    """One rule's transformation: the rule name, the kind, its argument and where it
    was written."""

    rule: str
    kind: str
    argument: Any
    file: str
    line: int | None
    key: str

    @property
    def perturbation(self) -> str:
        """The perturbation name recorded on its follow-ups: ``rule:<rule name>``."""
        return f"rule:{self.rule}"


@dataclass(frozen=True)
class Transformed:
    """A follow-up's user turns, the source round of each, and changed variables."""

    turns: list[str]
    order: list[int]
    variables: dict[str, Any]


def load_transformations(paths: Sequence[Path]) -> list[Transformation]:
    """The transformations declared in the rule files at ``paths`` (files or folders).
    Raises ``ConfigError`` (file, line, key) for an unknown transformation or style, or a
    malformed argument."""
    found: list[Transformation] = []
    problems: list[Problem] = []
    for file in _rule_files(paths):
        data, lines = load_yaml_with_lines(file)
        for path, item in _items(data):
            if not isinstance(item, dict) or "transformation" not in item:
                continue
            key_path = (*path, "transformation")
            try:
                found.append(_parse(file, lines, key_path, item))
            except ValueError as exc:
                problems.append(
                    Problem(str(file), lines.line_of(key_path), format_key(key_path), str(exc))
                )
    if problems:
        raise ConfigError(problems)
    return found


def _rule_files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*.y*ml") if not p.name.startswith("."))
        elif path.is_file():
            files.append(path)
        else:
            raise ConfigError(Problem(str(path), None, "", "no such rule file or folder"))
    return files


def _items(data: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    if isinstance(data, list):
        return [((i,), item) for i, item in enumerate(data)]
    if isinstance(data, dict) and isinstance(data.get("rules"), list) and "name" not in data:
        return [(("rules", i), item) for i, item in enumerate(data["rules"])]
    return [((), data)]


def _parse(
    file: Path, lines: LineMap, key_path: tuple[str | int, ...], item: dict[str, Any]
) -> Transformation:
    value = item["transformation"]
    kind, argument = (
        (value, None)
        if isinstance(value, str)
        else next(iter(value.items()))
        if isinstance(value, dict) and len(value) == 1
        else (None, None)
    )
    if kind not in TRANSFORMATIONS:
        raise ValueError(
            f"unknown transformation {kind or value!r}: use one of {', '.join(TRANSFORMATIONS)}"
        )
    line = lines.line_of(key_path)
    where = format_key(key_path)
    if kind == "change interaction style" and argument not in STYLES:
        raise ValueError(
            f"interaction style {argument!r} cannot be replayed offline: use {', '.join(STYLES)}"
        )
    if kind == "change variable":
        if not (isinstance(argument, dict) and {"variable", "value"} <= set(argument)):
            raise ValueError("change variable needs {variable: NAME, value: VALUE}")
        where = format_key((*key_path, kind, "variable"))
        line = lines.line_of((*key_path, kind, "variable")) or line
    return Transformation(str(item.get("name", "")), kind, argument, str(file), line, where)


def check_variables(transformations: Sequence[Transformation], known: set[str]) -> None:
    """Raise ``ConfigError`` (file, line, key) for a ``change variable`` naming a variable
    no seed conversation has (``known``: the seeds' goal variables)."""
    problems = [
        Problem(
            t.file,
            t.line,
            t.key,
            f"unknown variable {t.argument['variable']!r}: the seed conversations have "
            + (", ".join(sorted(known)) or "no goal variables"),
        )
        for t in transformations
        if t.kind == "change variable" and t.argument["variable"] not in known
    ]
    if problems:
        raise ConfigError(problems)


def transform(
    transformation: Transformation,
    questions: Sequence[str],
    variables: dict[str, Any],
    rng: random.Random,
) -> Transformed | None:
    """The follow-up of one source conversation (its user turns ``questions`` and goal
    ``variables``); ``None`` when it would equal the source (or lacks the variable)."""
    base = list(range(len(questions)))
    kind, argument = transformation.kind, transformation.argument
    if kind in ("shuffle goals", "reduce", "duplicate"):
        move = {"shuffle goals": shuffled, "reduce": reduced, "duplicate": duplicated}[kind]
        order = move(base, rng)
        return None if order == base else Transformed([questions[i] for i in order], order, {})
    if kind == "add typos" or argument == "make spelling mistakes":
        turns = [typos(q, rng) for q in questions]
        return None if turns == list(questions) else Transformed(turns, base, {})
    if argument == "all questions":
        return Transformed([" ".join(questions)], [0], {})
    name, new = argument["variable"], argument["value"]
    if name not in variables:
        return None
    old = variables[name]
    olds = [str(v) for v in (old if isinstance(old, list) else [old])]
    pattern = re.compile("|".join(re.escape(v) for v in olds if v), re.IGNORECASE)
    turns = [pattern.sub(str(new), q) if pattern.pattern else q for q in questions]
    if turns == list(questions):
        return None
    return Transformed(turns, base, {name: new})
