"""The rules language: rule files, their model, and loading a rule set.

A rule (SENSEI-check's format, de Lara et al., "Automated End-to-End Testing for
Conversational Agents", §5) has a ``name``, a ``description``, ``active`` (default true),
``conversations`` (``1``, any ``n`` ≥ 2 for a metamorphic relation over ordered n-tuples of
distinct conversations, or ``all`` for a global rule), a filter ``when``, a metamorphic
relation ``if`` ⇒ ``then`` (``oracle`` is another name for ``then``) and a failure message
``yields`` (or ``on-error``): an f-string, or a text with ``{expression}`` fields.

A rule file holds one rule, a list of rules, or a mapping with ``rules:`` (a list) and
``functions:`` (Python files of user rule functions, relative to the file). A folder is
searched recursively for ``*.yaml``/``*.yml`` files (SENSEI's ``__report__`` folders and
hidden files skipped); together they form a rule set.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sparring._keys import hint_unknown_keys
from sparring._policy import current_policy
from sparring._yaml import LineMap, format_key, load_yaml_with_lines
from sparring.check._analysis import Location
from sparring.check._context import registered_functions
from sparring.check._expressions import Expression, parse_expression
from sparring.errors import ConfigError, Problem
from sparring.schemas import register_schema

logger = logging.getLogger(__name__)

RuleKind = Literal["single", "tuple", "global"]
_EXPRESSION_KEYS = ("when", "if", "then", "yields")
_ALIASES = {"oracle": "then", "on-error": "yields"}


class RuleSpec(BaseModel):
    """One rule as written in a rule file (the JSON Schema of ``sparring schema rules``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(min_length=1, description="Unique name; the row of the results table.")
    description: str = ""
    active: bool = True
    conversations: int | Literal["all"] = Field(
        1, description="1, n ≥ 2 (ordered n-tuples of distinct conversations) or 'all'."
    )
    when: str = Field("True", description="Filter; a rule does not apply where it is false.")
    if_: str = Field("True", alias="if", description="Premise of the metamorphic relation.")
    then: str = Field(description="Oracle (also written `oracle`): must be True to pass.")
    yields: str | None = Field(
        None, description="Failure message (also `on-error`): f-string or text with {fields}."
    )
    transformation: str | dict[str, Any] | None = Field(
        None,
        description="How `sparring metamorphic --rules` makes this rule's follow-ups "
        "(docs/rules.md, user-written relations); check itself ignores it.",
    )

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for alias, key in _ALIASES.items():
            if alias in data:
                if key in data:
                    raise ValueError(f"give either `{key}` or `{alias}`, not both")
                data[key] = data.pop(alias)
        for key in _EXPRESSION_KEYS:
            value = data.get(key)
            if isinstance(value, bool | int | float):
                data[key] = str(value)
        return data

    @field_validator("conversations", mode="before")
    @classmethod
    def _conversations(cls, value: Any) -> Any:
        if value == "all" or (
            isinstance(value, int) and not isinstance(value, bool) and value >= 1
        ):
            return value
        raise ValueError(f"conversations must be a positive integer or 'all', not {value!r}")


@dataclass(frozen=True)
class Rule:
    """A loaded rule: its spec, where it was written and its parsed expressions."""

    spec: RuleSpec
    file: str
    line: int | None
    when: Expression
    if_: Expression
    then: Expression
    yields: Expression | None
    name: str = ""

    @property
    def kind(self) -> RuleKind:
        conversations = self.spec.conversations
        return "global" if conversations == "all" else "single" if conversations == 1 else "tuple"

    @property
    def arity(self) -> int | None:
        """Conversations per check: 1, n, or ``None`` for a global rule."""
        return None if self.spec.conversations == "all" else int(self.spec.conversations)

    @property
    def active(self) -> bool:
        return self.spec.active

    def expressions(self) -> list[tuple[str, Expression]]:
        pairs = [("when", self.when), ("if", self.if_), ("then", self.then)]
        return pairs + ([("yields", self.yields)] if self.yields is not None else [])


@dataclass(frozen=True)
class RuleSet:
    """Every rule loaded from some files, and a digest of their contents."""

    rules: tuple[Rule, ...]
    files: tuple[str, ...]
    digest: str
    function_files: tuple[str, ...] = field(default=())

    @property
    def active(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.active)


def known_functions() -> frozenset[str]:
    """The rule functions rules may call: built-ins and plug-ins (loaded on first use)."""
    import sparring.check.functions as library

    library.load_plugin_functions()
    return frozenset(registered_functions())


def rule_files(paths: Iterable[str | Path]) -> list[Path]:
    """The rule files at ``paths`` (files, or folders searched recursively), in order.
    Raises ``ConfigError`` for a path that does not exist."""
    from sparring.conversations import natural_key

    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            files = [
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix.lower() in (".yaml", ".yml")
                and not any(
                    part.startswith((".", "__report__")) for part in p.relative_to(path).parts
                )
            ]
            found.extend(sorted(files, key=lambda p: tuple(natural_key(s) for s in p.parts)))
        else:
            raise ConfigError(Problem(str(path), None, "", "no such rule file or folder"))
    return found


def load_rules(
    paths: Sequence[str | Path],
    *,
    functions: Iterable[str] | None = None,
    trust_functions: bool = False,
) -> RuleSet:
    """Load every rule at ``paths`` (files or folders) into a ``RuleSet``.

    ``functions`` are the callable rule-function names (default: the registered built-ins
    and plug-ins, plus those of the files' ``functions:`` entries). A ``functions:`` entry
    names Python files that run with the user's rights, outside the sandbox: they are
    imported only when ``trust_functions`` is true (``--trust-functions``), otherwise the
    entry is a problem saying so; where the execution policy refuses code
    (``sparring._policy``, a server) it is refused whatever ``trust_functions`` says.
    Every problem of every file is collected; raises one
    ``ConfigError`` listing them (file, line, key) — syntax errors, unknown keys or
    functions, wrong ``conversations`` values, forbidden constructs, untrusted functions.
    """
    files = rule_files(paths)
    if not files:
        raise ConfigError(Problem(", ".join(map(str, paths)), None, "", "no rule files found"))
    documents, problems, function_files = [], [], []
    digest = hashlib.sha256()
    for file in files:
        try:
            data, lines = load_yaml_with_lines(file)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        digest.update(file.read_bytes())
        try:
            items, extra = _rule_items(file, data, lines)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        documents.append((file, items, lines))
        refused = extra and current_policy().code_problem(
            "`functions:` (Python files imported as rule functions)",
            str(file),
            lines.get(("functions",)),
            "functions",
        )
        if refused:
            problems.append(refused)
        elif extra and not trust_functions:
            problems.append(_untrusted(file, extra, lines))
        elif extra:
            function_files.extend(extra)
    known = set(known_functions() if functions is None else functions)
    known |= _load_function_files(function_files, problems)
    rules: list[Rule] = []
    for file, items, lines in documents:
        for path, item in items:
            try:
                rules.append(_rule(file, path, item, lines, known))
            except ConfigError as exc:
                problems.extend(exc.problems)
    if problems:
        raise ConfigError(problems)
    return RuleSet(
        rules=_unique_names(rules),
        files=tuple(map(str, files)),
        digest=digest.hexdigest()[:12],
        function_files=tuple(map(str, function_files)),
    )


def _rule_items(
    file: Path, data: Any, lines: LineMap
) -> tuple[list[tuple[tuple[str | int, ...], Any]], list[Path]]:
    """The rules of one file with their key paths, and the function files it names."""
    if isinstance(data, list):
        return [((i,), item) for i, item in enumerate(data)], []
    if isinstance(data, dict) and "rules" in data and "name" not in data:
        names = data.get("functions") or []
        names = [names] if isinstance(names, str) else names
        extra = [file.parent / str(n) for n in names]
        rules = data.get("rules")
        if not isinstance(rules, list):
            raise ConfigError(
                Problem(str(file), lines.get(("rules",)), "rules", "expected a list of rules")
            )
        return [(("rules", i), item) for i, item in enumerate(rules)], extra
    return [((), data)], []


def _untrusted(file: Path, extra: list[Path], lines: LineMap) -> Problem:
    names = ", ".join(str(path) for path in extra)
    message = (
        f"refused to run {names}: `functions:` imports Python files with your rights, "
        "outside the rules' sandbox; pass --trust-functions if you trust them"
    )
    return Problem(str(file), lines.get(("functions",)), "functions", message)


def _load_function_files(files: list[Path], problems: list[Problem]) -> set[str]:
    from sparring.check.functions import load_functions_file

    names: set[str] = set()
    for file in files:
        try:
            names.update(load_functions_file(file))
        except ConfigError as exc:
            problems.extend(exc.problems)
        except Exception as exc:
            problems.append(Problem(str(file), None, "functions", str(exc)))
    return names


def _rule(
    file: Path, path: tuple[str | int, ...], item: Any, lines: LineMap, known: set[str]
) -> Rule:
    where = Problem(str(file), lines.get(path), format_key(path), "")
    if not isinstance(item, dict):
        raise ConfigError(Problem(where.file, where.line, where.key, "a rule must be a mapping"))
    try:
        spec = RuleSpec.model_validate(item)
    except ValidationError as exc:
        raise ConfigError(_validation_problems(file, path, item, exc, lines)) from exc
    parsed: dict[str, Expression | None] = {}
    problems: list[Problem] = []
    for key in _EXPRESSION_KEYS:
        written = _written_key(item, key)
        raw = item.get(written)
        source = getattr(spec, "if_" if key == "if" else key)
        if source is None:
            parsed[key] = None
            continue
        line = lines.get((*path, written))
        if line is not None and isinstance(raw, str) and raw.endswith("\n"):
            line += 1  # a block scalar (| or >): its text starts on the next line
        location = Location(str(file), line, format_key((*path, written)))
        try:
            parsed[key] = parse_expression(
                source, location, functions=known, template=key == "yields"
            )
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems and not spec.active:  # SENSEI skips inactive rules: they cannot stop the set
        for problem in problems:
            logger.warning("%s (the rule is inactive: skipped)", problem)
        placeholder = parse_expression("True", Location(str(file), where.line, where.key))
        parsed = {"when": placeholder, "if": placeholder, "then": placeholder, "yields": None}
    elif problems:
        raise ConfigError(problems)
    when, if_, then = parsed["when"], parsed["if"], parsed["then"]
    assert when is not None and if_ is not None and then is not None
    return Rule(spec, str(file), where.line, when, if_, then, parsed["yields"], name=spec.name)


def _written_key(item: Mapping[str, Any], key: str) -> str:
    """The key as the user wrote it (``oracle`` for ``then``, ``on-error`` for ``yields``)."""
    for alias, target in _ALIASES.items():
        if target == key and alias in item:
            return alias
    return key


def _validation_problems(
    file: Path,
    path: tuple[str | int, ...],
    item: Mapping[str, Any],
    exc: ValidationError,
    lines: LineMap,
) -> list[Problem]:
    problems = []
    for error in exc.errors(include_url=False):
        loc = tuple(_written_key(item, str(k)) if isinstance(k, str) else k for k in error["loc"])
        key, line = lines.resolve((*path, *loc), missing=error["type"] == "missing")
        message = {"extra_forbidden": "unknown key", "missing": "required key is missing"}.get(
            error["type"], str(error["msg"]).removeprefix("Value error, ")
        )
        problems.append(Problem(str(file), line, format_key(key), message))
    aliases = list(_ALIASES)
    return hint_unknown_keys(
        problems, RuleSpec, {"rules": RuleSpec}, {"": aliases, "rules": aliases}
    )


def _unique_names(rules: list[Rule]) -> tuple[Rule, ...]:
    """Rename active rules whose name is taken (``name (folder/file)``), with a warning."""
    seen: dict[str, Rule] = {}
    result = []
    for rule in rules:
        name = rule.spec.name
        if rule.active and name in seen:
            file = Path(rule.file)
            renamed = base = f"{name} ({file.parent.name}/{file.name})"
            while renamed in seen:
                renamed = f"{base} #{len(seen)}"
            logger.warning(
                "rule name %r is used twice (%s and %s); reporting the second as %r",
                name, seen[name].file, rule.file, renamed,
            )  # fmt: skip
            rule = replace(rule, name=renamed)
        if rule.active:
            seen[rule.name] = rule
        result.append(rule)
    return tuple(result)


class RuleSetFile(BaseModel):
    """A rule file holding several rules and the Python files of their user functions."""

    model_config = ConfigDict(extra="forbid")

    rules: list[RuleSpec]
    functions: str | list[str] | None = Field(
        None, description="Python files (relative to this file) of @rule_function functions."
    )


def rules_schema() -> dict[str, Any]:
    """The JSON Schema of a rule file: one rule, a list of rules, or a ``RuleSetFile``."""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(RuleSpec | list[RuleSpec] | RuleSetFile)
    schema = adapter.json_schema(by_alias=True)
    schema["title"] = "sparring rules"
    return schema


register_schema("rules", rules_schema)


DEFAULT_RULES = Path(__file__).resolve().parent / "default_rules"
"""The default rule set: rules that need nothing written by hand (no repeated answers,
replies in the user's language, no empty buttons or links). ``sparring run`` checks with
it; crashes, timeouts and goals not completed are the generic rows every check adds."""
