"""No module imports another package's private module (docs/architecture.md): each
package's ``__init__.py`` lists its public API, and ``cli/``, the dashboard and the stages
import only that — ``from sparring.evaluate import table_rows``, never ``from
sparring.evaluate._stats import table_rows``. Imports inside functions count too, and so
do module names handed to ``importlib.import_module``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sparring"


def _imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every dotted name ``tree`` imports (``from a.b import c`` gives ``a.b`` and
    ``a.b.c``), with its line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def private_cross_imports(source: str, package: str) -> list[str]:
    """The names ``source`` (a module of top-level package ``package``) imports from
    another package's private modules (``sparring.<other>._<module>``)."""
    found = []
    for line, name in _imported(ast.parse(source)):
        parts = name.split(".")
        if parts[0] != "sparring" or len(parts) < 3 or parts[1] in (package, ""):
            continue
        if parts[1].startswith("_"):  # a neutral private module (sparring._atomic): shared
            continue
        if any(part.startswith("_") for part in parts[2:]):
            found.append(f"{line}: {name}")
    return found


def test_no_module_imports_another_packages_private_module() -> None:
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        package = relative.parts[0] if len(relative.parts) > 1 else relative.stem
        found = private_cross_imports(path.read_text(encoding="utf-8"), package)
        if found:
            offenders[str(relative)] = found
    assert offenders == {}


def test_the_check_finds_the_imports_cli_had() -> None:
    """The two private imports ``cli/`` had before issue 25 would be found again, inside a
    function as well as at the top."""
    had = (
        "from sparring.evaluate._stats import table_rows\n"
        "def serve():\n    from sparring.web._config import is_loopback\n"
        "importlib.import_module('sparring.report._plots')\n"
    )
    assert [f.split(": ")[1] for f in private_cross_imports(had, "cli")] == [
        "sparring.evaluate._stats",
        "sparring.evaluate._stats.table_rows",
        "sparring.web._config",
        "sparring.web._config.is_loopback",
        "sparring.report._plots",
    ]
    assert private_cross_imports("from sparring.cli._app import app", "cli") == []
    assert private_cross_imports("from sparring._atomic import atomic_write", "cli") == []
