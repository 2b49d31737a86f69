"""Finding and loading probe suites: the built-in ones shipped as package data
(``suites/*.yaml``) and the user's own files."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from sparring._policy import current_policy
from sparring._yaml import load_yaml_model
from sparring.adversarial._probes._model import ProbeSuite
from sparring.errors import Problem, UnknownName, UserInputError


def builtin_suites() -> dict[str, Path]:
    """The suites shipped with sparring: name → file, sorted by name."""
    folder = resources.files("sparring.adversarial._probes") / "suites"
    found = {
        Path(str(entry)).stem: Path(str(entry))
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml")
    }
    return dict(sorted(found.items()))


def load_probe_suite(path: Path | str) -> ProbeSuite:
    """Read one probe file. Raises ``ConfigError`` naming file, line and key for every
    problem: YAML syntax, unknown or missing keys, a bad oracle, a canary written in the
    probe's own turns, a duplicate probe id."""
    return load_yaml_model(path, ProbeSuite, "a mapping with `suite` and `probes`")


def resolve_suites(specs: Sequence[str | Path]) -> list[tuple[ProbeSuite, Path]]:
    """The suites ``specs`` name (built-in names or YAML files; a folder gives its
    ``*.yaml``/``*.yml`` files), each with its file; every built-in suite when ``specs`` is
    empty. Under an execution policy that confines paths (``sparring._policy``) a spec is
    a built-in name or a path inside its roots, checked before the file system is asked
    (``ConfigError`` otherwise: nothing is said of a server file). Raises ``UnknownName``
    for a name that is neither a suite nor a file,
    ``ConfigError`` for a bad file, ``UserInputError`` when two files use one suite name."""
    builtin = builtin_suites()
    files: list[Path] = []
    for spec in specs or list(builtin):
        path = Path(spec)
        if current_policy().roots is not None:  # a server: a name, else a file it allows
            if str(spec) in builtin:
                files.append(builtin[str(spec)])
                continue
            current_policy().require_path(path, "settings", None, "suites")
        if path.is_dir():
            files.extend(sorted([*path.glob("*.yaml"), *path.glob("*.yml")]))
        elif path.is_file():
            files.append(path)
        elif str(spec) in builtin:
            files.append(builtin[str(spec)])
        else:
            raise UnknownName("probe suite", str(spec), list(builtin))
    suites: list[tuple[ProbeSuite, Path]] = []
    seen: dict[str, Path] = {}
    for file in files:
        suite = load_probe_suite(file)
        if suite.suite in seen:
            message = f"suite {suite.suite!r} is also defined in {seen[suite.suite]}"
            raise UserInputError(Problem(str(file), None, "suite", message))
        seen[suite.suite] = file
        suites.append((suite, file))
    return suites


def suite_path_problems(specs: Sequence[str | Path], source: str = "settings") -> list[Problem]:
    """What the execution policy in force refuses among ``specs`` (``resolve_suites``'s):
    each that is not a built-in suite's name is a path, which must lie inside the policy's
    roots (empty when paths are not confined)."""
    builtin = builtin_suites()
    problems = []
    for spec in specs:
        if str(spec) not in builtin:
            found = current_policy().path_problem(Path(spec), source, None, "suites")
            problems += [found] if found else []
    return problems
