"""Importing the bot a ``python`` connector calls: ``module:attr`` or ``file.py:attr``.

A ``file.py`` target is loaded as ChatChecker loads ``chatbot_client.py``: by path, as a
module of its own (named after the file's resolved path, so two bots' ``chatbot_client.py``
never collide; loading the same file again reuses it). A bot that imports ``chat_checker``
when ChatChecker is not installed gets sparring's stand-in (``_chatchecker_client``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sparring._policy import current_policy
from sparring.connectors._chatchecker_client import install_chatchecker_stand_in
from sparring.errors import ConfigError, Problem


def load_target(target: str, path: str | None, base_dir: Path) -> Any:
    """Import ``module:attr`` (after adding ``path`` to ``sys.path``). Raises ``ConfigError``,
    also when the execution policy in force refuses code (``sparring._policy``: asked here,
    at the import itself, whatever feature led to it)."""
    current_policy().require_code(f"importing {target}", "", None, "target")
    if path is not None:
        folder = str((base_dir / path).resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)
    module_name, _, attribute = target.partition(":")
    try:
        if module_name.endswith(".py"):
            value: Any = _guarded(_load_file, base_dir / (path or "."), module_name)
        else:
            value = _guarded(importlib.import_module, module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(Problem("", None, "target", f"cannot import {target}: {exc}")) from exc
    if not callable(value):
        raise ConfigError(Problem("", None, "target", f"{target} is not callable"))
    return value


def _guarded(load: Callable[..., Any], *args: Any) -> Any:
    """``load(*args)``; a ChatChecker client importing ``chat_checker`` when ChatChecker is
    not installed gets the stand-in (``install_chatchecker_stand_in``) and is loaded again."""
    try:
        return load(*args)
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "chat_checker":
            raise
        if not install_chatchecker_stand_in():
            raise
        return load(*args)


def _load_file(folder: Path, name: str) -> Any:
    """Load the Python file ``folder/name`` as a module of its own (one per file, reused)."""
    file = (folder / name).resolve()
    if not file.is_file():
        raise ImportError(f"no file {file}")
    digest = hashlib.sha1(str(file).encode()).hexdigest()[:10]
    module_name = f"_sparring_bot_{file.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
