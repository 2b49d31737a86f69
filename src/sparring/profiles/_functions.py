"""Generator functions: ``data: {file, function_name, args}`` (SENSEI 1.1.5
``execute_list_function``).

The file is looked up beside the profile, then in each folder above it, nearest first (SENSEI
resolves it from the working directory, which is the project root its users run it from,
wherever the profile sits below that), then in the working directory. Loading a profile only
checks that the file defines the function; the function runs when conversations are
planned, with the user's own Python, as in SENSEI. Arguments follow SENSEI's rule: a
list gives positional arguments and its mappings keyword arguments; anything else is the
single positional argument. A string argument naming a file found the same way is passed
as that file's absolute path, so the profile works from any directory.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

from sparring._policy import current_policy


def search_roots(profile_dir: Path) -> list[Path]:
    """Where a file a profile names is looked up: its folder, each folder above it (nearest
    first), then the working directory."""
    folder = profile_dir.resolve()
    return [folder, *folder.parents, Path.cwd()]


def find_function_file(written: str, profile_dir: Path) -> Path | None:
    """The generator file ``written`` in a profile folder names, or ``None``."""
    candidate = Path(written).expanduser()
    if candidate.is_absolute():
        return candidate if candidate.is_file() else None
    for root in search_roots(profile_dir):
        path = root / candidate
        if path.is_file():
            return path.resolve()
    return None


def call_generator(path: Path, function_name: str, args: Any, profile_dir: Path) -> list[Any]:
    """Import ``path`` and return ``function_name(*args, **kwargs)`` as a list.

    Raises ``ValueError`` describing what failed (import, missing function, call, result
    that is not a list).
    """
    feature = "a generator function (data: {file, function_name})"
    current_policy().require_code(feature, str(path), None, "data.file")
    module_name = "sparring_generator_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import '{path}'")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: report whatever it raised
        raise ValueError(f"importing '{path.name}' raised {type(exc).__name__}: {exc}") from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ValueError(f"'{path.name}' has no function '{function_name}'")
    positional, keywords = _arguments(args, profile_dir)
    try:
        result = function(*positional, **keywords)
    except Exception as exc:
        raise ValueError(f"{function_name}() raised {type(exc).__name__}: {exc}") from exc
    if isinstance(result, tuple | list):
        return list(result)
    raise ValueError(f"{function_name}() returned {type(result).__name__}, not a list")


def _arguments(args: Any, profile_dir: Path) -> tuple[list[Any], dict[str, Any]]:
    if args is None or args == [] or args == "":
        return [], {}
    items = args if isinstance(args, list) else [args]
    positional = [_path_or_value(i, profile_dir) for i in items if not isinstance(i, dict)]
    keywords = {
        str(k): _path_or_value(v, profile_dir)
        for item in items
        if isinstance(item, dict)
        for k, v in item.items()
    }
    return positional, keywords


def _path_or_value(value: Any, profile_dir: Path) -> Any:
    if isinstance(value, str) and value.strip():
        if "\n" in value or len(value) > 4096:
            return value
        for root in search_roots(profile_dir):
            path = root / value
            if path.is_file():
                return str(path.resolve())
    return value
