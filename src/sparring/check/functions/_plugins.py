"""User rule functions: from installed packages (entry points) or a Python file.

A package offers functions through the ``sparring.check_functions`` entry-point group; an
entry point names a module (whose ``@rule_function`` decorators register on import) or
one function (registered under the entry point's name)::

    [project.entry-points."sparring.check_functions"]
    mybank = "mybank_checks.rules"                 # a module
    iban_valid = "mybank_checks.rules:iban_valid"  # one function

A rule set may name a Python file (``functions: my_functions.py``) whose functions are
decorated with ``@rule_function`` (``from sparring.check import rule_function``); every
function takes the ``FunctionContext`` first.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Mapping
from pathlib import Path

from sparring._policy import current_policy
from sparring.check._context import FUNCTIONS_GROUP, RULE_FUNCTIONS, registered_functions
from sparring.errors import Problem, UserInputError

GROUP = FUNCTIONS_GROUP


def _added(before: Mapping[str, object]) -> list[str]:
    after = registered_functions()
    return sorted(name for name, fn in after.items() if before.get(name) is not fn)


def load_plugin_functions() -> list[str]:
    """Load every installed ``sparring.check_functions`` entry point and return the names
    of the rule functions they registered (each entry point loads once per process).

    Raises ``UserInputError`` naming the entry point when one failed to load or points at
    something that is neither a module nor a callable.
    """
    before = dict(registered_functions())
    failures = RULE_FUNCTIONS.load_plugins()
    if failures:
        first = failures[0]
        raise UserInputError(
            f"rule-function plug-in {first.name!r} ({first.value}) failed to load: {first.error}"
        ) from first.error
    return _added(before)


def load_functions_file(path: str | Path) -> list[str]:
    """Import the Python file at ``path`` and return the names of the rule functions its
    ``@rule_function`` decorators registered (or replaced).

    Raises ``UserInputError`` (with the file and, for a syntax error, the line) when the
    file is missing, does not compile, or raises while it is imported.
    """
    file = Path(path)
    feature = "a rule functions file (Python imported)"
    current_policy().require_code(feature, str(file), None, "functions")
    if not file.is_file():
        raise UserInputError(Problem(str(file), None, "", "rule functions file not found"))
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    module_name = f"sparring_rule_functions_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise UserInputError(Problem(str(file), None, "", "not a Python file"))
    module = importlib.util.module_from_spec(spec)
    before = dict(registered_functions())
    sys.modules[module_name] = module
    try:
        with RULE_FUNCTIONS.replacing():  # a file's functions may replace any other
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise UserInputError(
            Problem(str(file), exc.lineno, "", f"syntax error: {exc.msg}")
        ) from exc
    except Exception as exc:
        sys.modules.pop(module_name, None)
        message = f"importing the file raised {type(exc).__name__}: {exc}"
        raise UserInputError(Problem(str(file), None, "", message)) from exc
    return _added(before)
