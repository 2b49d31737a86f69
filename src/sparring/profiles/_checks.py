"""Checks across goal variables, run on the raw YAML data so that they are reported even
when other parts of the file are wrong.

Errors: ``{{variables}}`` used in goals but not defined, a variable defined twice,
``forward(x)`` naming an undefined variable or one that is not ``forward`` (SENSEI:
"doesn't admit dependence"), two variables forwarding the same one, ``forward`` loops
(SENSEI: "Circular dependency detected"), a lone ``pairwise()`` variable, a
combinations ``number`` without forward chains or pairwise variables (SENSEI would run
0 conversations) or rounding to 0, and generator ``file``s that are missing or lack the
function. Warnings: unused variables, ``random(n)``/``another(n)`` asking for more
values than the list has, and ``type: str`` on a variable.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring._policy import current_policy
from sparring._yaml import KeyPath, LineMap, format_key
from sparring.errors import Problem
from sparring.profiles._combinations import (
    forward_chains,
    forward_count,
    pairwise_names,
    pairwise_rows,
)
from sparring.profiles._conversation import Combinations, parse_number
from sparring.profiles._selectors import Selector, parse_selector
from sparring.profiles._static import static_size

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
"""A ``{{variable}}`` in a goal text (SENSEI's ``{{\\w+}}``, spaces allowed)."""


@dataclass
class Findings:
    """Problems found in one file: ``errors`` stop loading, ``warnings`` do not."""

    path: Path
    lines: LineMap
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def _problem(self, key: KeyPath, message: str) -> Problem:
        line = self.lines.line_of(key)
        return Problem(file=str(self.path), line=line, key=format_key(key), message=message)

    def error(self, key: KeyPath, message: str) -> None:
        self.errors.append(self._problem(key, message))

    def warn(self, key: KeyPath, message: str) -> None:
        self.warnings.append(self._problem(key, message))


@dataclass(frozen=True)
class RawVariable:
    name: str
    index: int
    selector: Selector | None
    type: Any
    data: Any

    @property
    def key(self) -> KeyPath:
        return ("user", "goals", self.index, self.name)


def raw_goals(document: Any) -> tuple[list[tuple[int, str]], list[RawVariable]]:
    """Goal texts (with their index) and variables found in raw profile data."""
    user = document.get("user") if isinstance(document, dict) else None
    goals = user.get("goals") if isinstance(user, dict) else None
    texts: list[tuple[int, str]] = []
    variables: list[RawVariable] = []
    for index, item in enumerate(goals if isinstance(goals, list) else []):
        if isinstance(item, str):
            texts.append((index, item))
        elif isinstance(item, dict) and len(item) == 1:
            name, spec = next(iter(item.items()))
            spec = spec if isinstance(spec, dict) else {}
            try:
                selector: Selector | None = parse_selector(spec.get("function"))
            except ValueError:
                selector = None  # reported by the model
            variables.append(
                RawVariable(str(name), index, selector, spec.get("type"), spec.get("data"))
            )
    return texts, variables


def check_goals(document: Any, findings: Findings) -> None:
    """Run every cross-variable check on raw ``document`` (see module docstring)."""
    texts, variables = raw_goals(document)
    defined = _check_names(variables, findings)
    _check_placeholders(texts, defined, findings)
    selectors = {v.name: v.selector for v in defined.values() if v.selector is not None}
    loops = _check_forward(defined, selectors, findings)
    _check_pairwise(selectors, defined, findings)
    for variable in defined.values():
        _check_variable(variable, findings)
    if not loops:
        _check_number(document, selectors, defined, findings)


def _check_names(variables: list[RawVariable], findings: Findings) -> dict[str, RawVariable]:
    defined: dict[str, RawVariable] = {}
    for variable in variables:
        if variable.name in defined:
            first = defined[variable.name].index
            findings.error(
                variable.key, f"variable '{variable.name}' is already defined (goals[{first}])"
            )
        else:
            defined[variable.name] = variable
    return defined


def _check_placeholders(
    texts: list[tuple[int, str]], defined: dict[str, RawVariable], findings: Findings
) -> None:
    used: set[str] = set()
    for index, text in texts:
        for name in PLACEHOLDER.findall(text):
            used.add(name)
            if name not in defined:
                close = difflib.get_close_matches(name, list(defined), n=1)
                hint = f" (did you mean {{{{{close[0]}}}}}?)" if close else ""
                findings.error(
                    ("user", "goals", index),
                    f"the goal uses {{{{{name}}}}}, but no variable '{name}' is defined{hint}",
                )
    for name, variable in defined.items():
        if name not in used:
            findings.warn(
                variable.key, f"variable '{name}' is defined but no goal uses {{{{{name}}}}}"
            )


def _check_forward(
    defined: dict[str, RawVariable], selectors: dict[str, Selector], findings: Findings
) -> bool:
    """Forward targets; returns True when a loop was found (combinations are skipped)."""
    named_by: dict[str, str] = {}
    for name, selector in selectors.items():
        target = selector.target
        if selector.kind != "forward" or target is None:
            continue
        key = (*defined[name].key, "function")
        if target not in defined:
            findings.error(key, f"forward({target}) names no defined variable")
        elif selectors.get(target) is not None and selectors[target].kind != "forward":
            findings.error(
                key,
                f"forward({target}) nests '{target}', whose function is "
                f"{selectors[target]}; only forward() variables can be nested",
            )
        elif target in named_by:
            findings.error(
                key,
                f"'{target}' is already nested by forward({target}) in '{named_by[target]}'; "
                "a forward chain cannot branch",
            )
        else:
            named_by[target] = name
    return _check_loops(defined, selectors, findings)


def _check_loops(
    defined: dict[str, RawVariable], selectors: dict[str, Selector], findings: Findings
) -> bool:
    reported: set[frozenset[str]] = set()
    for start in selectors:
        path = [start]
        current = selectors[start].target
        while current is not None and current in selectors and current not in path:
            path.append(current)
            current = selectors[current].target
        if current is None or current not in path:
            continue
        cycle = path[path.index(current) :]
        if frozenset(cycle) not in reported:
            reported.add(frozenset(cycle))
            findings.error(
                (*defined[current].key, "function"),
                f"forward() chain loops: {' -> '.join([*cycle, current])}",
            )
    return bool(reported)


def _check_pairwise(
    selectors: dict[str, Selector], defined: dict[str, RawVariable], findings: Findings
) -> None:
    names = [n for n, s in selectors.items() if s.kind == "pairwise"]
    if len(names) == 1:
        findings.error(
            (*defined[names[0]].key, "function"),
            "pairwise() combines two or more variables; this is the only pairwise() variable",
        )


def _check_variable(variable: RawVariable, findings: Findings) -> None:
    if variable.type == "str":
        findings.warn(
            (*variable.key, "type"),
            "'str' is read as 'string' (SENSEI 1.1.5 accepts only 'string' for variables)",
        )
    selector, data = variable.selector, variable.data
    count = selector.count if selector is not None else None
    literal_list = isinstance(data, list) and not any("any(" in str(v) for v in data)
    if count is not None and literal_list and count > len(data):
        findings.warn(
            (*variable.key, "function"),
            f"{selector} asks for {count} values but the list has {len(data)}; all are used",
        )
    if isinstance(data, dict) and "file" in data and current_policy().run_code:
        _check_function_file(variable, data, findings)  # refused code is reported typed


def _check_function_file(variable: RawVariable, data: dict[str, Any], findings: Findings) -> None:
    from sparring.profiles._functions import find_function_file

    key = (*variable.key, "data", "file")
    written = str(data.get("file"))
    path = find_function_file(written, findings.path.parent)
    if path is None:
        findings.error(
            key,
            f"generator file '{written}' not found beside the profile, in a folder above it "
            f"or in the working directory ({Path.cwd()})",
        )
        return
    name = data.get("function_name")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        findings.error(key, f"cannot read generator file '{path}': {exc}")
        return
    functions = _top_level_names(tree)
    if name not in functions:
        findings.error(
            (*variable.key, "data", "function_name"),
            f"'{path.name}' defines no function '{name}' "
            f"(it defines: {', '.join(sorted(functions)) or 'none'})",
        )


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return names


def _check_number(
    document: Any,
    selectors: dict[str, Selector],
    defined: dict[str, RawVariable],
    findings: Findings,
) -> None:
    conversation = document.get("conversation") if isinstance(document, dict) else None
    raw = conversation.get("number") if isinstance(conversation, dict) else None
    try:
        number = parse_number(raw)
    except ValueError:
        return  # reported by the model
    if not isinstance(number, Combinations):
        return
    key = ("conversation", "number")
    chains = forward_chains(selectors)
    pairwise = [n for n, s in selectors.items() if s.kind == "pairwise"]
    has = {"forward": bool(chains), "pairwise": len(pairwise) >= 2}
    has["any"] = has["forward"] or has["pairwise"]
    if not has[number.matrix]:
        what = {
            "forward": "nested forward(variable) chains",
            "pairwise": "pairwise() variables",
            "any": "nested forward(variable) chains and pairwise() variables",
        }[number.matrix]
        findings.error(
            key,
            f"number '{number}' counts combinations of {what}, and this profile has none "
            "(SENSEI would run 0 conversations); nest forward() variables or give a number",
        )
        return
    needed = {n for chain in chains for n in chain} | set(pairwise)
    sizes = {n: static_size(defined[n].type, defined[n].data) for n in needed}
    if any(size is None for size in sizes.values()):
        return  # sizes known only when planning
    known = {n: list(range(size or 0)) for n, size in sizes.items()}
    rows = pairwise_rows(pairwise_names({n: selectors[n] for n in pairwise}, known), known)
    if number.count(forward_count(chains, known), len(rows)) < 1:
        findings.error(key, f"number '{number}' rounds to 0 conversations")
