"""``${ENV}`` interpolation in connector parameters, and redaction of the resolved values.

Secrets (API keys, tokens) stay out of ``chatbot.yaml``: a string parameter may hold
``${NAME}`` or ``${NAME:-default}``, replaced by the environment variable ``NAME`` when the
connector is created (``create_connector``), never when the file is loaded, so a config
can be validated and shown without its secrets. ``$${`` writes a literal ``${``.

Every value taken from the environment, and every ``SecretStr`` parameter, is a secret:
``Redactor`` replaces it with ``***`` in raw payloads, error messages and ``repr``s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

from sparring._policy import current_policy
from sparring._redact import add_secrets, header_secrets
from sparring._yaml import KeyPath

_VARIABLE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

MIN_SECRET_LENGTH = 4
"""Shorter resolved values are not redacted (they would blank unrelated text)."""

REDACTED = "***"

M = TypeVar("M", bound=BaseModel)


class MissingVariable(Exception):
    """An ``${NAME}`` reference to an unset environment variable, at ``path``."""

    def __init__(self, name: str, path: KeyPath) -> None:
        self.name = name
        self.path = path
        super().__init__(f"environment variable {name} is not set")


class UnsetVariables(Exception):
    """Some ``${NAME}`` references name unset environment variables (``missing``)."""

    def __init__(self, missing: list[MissingVariable]) -> None:
        self.missing = missing
        super().__init__("; ".join(str(m) for m in missing))


class Redactor:
    """Replaces secret strings with ``***`` in strings, lists and dicts (recursively)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}
        self._secrets = sorted(unique, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    @property
    def values(self) -> list[str]:
        """The secret strings it replaces, longest first."""
        return list(self._secrets)

    def __repr__(self) -> str:
        return f"Redactor({len(self._secrets)} secrets)"

    def text(self, value: str) -> str:
        """``value`` with every secret replaced."""
        for secret in self._secrets:
            value = value.replace(secret, REDACTED)
        return value

    def __call__(self, value: Any) -> Any:
        """A copy of ``value`` (JSON-like data) with every secret replaced."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self(k): self(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self(v) for v in value]
        return value


def interpolate(text: str, path: KeyPath, environ: Mapping[str, str], found: list[str]) -> str:
    """Replace ``${NAME}`` / ``${NAME:-default}`` in ``text``; append used values to ``found``.

    Raises ``MissingVariable`` for an unset variable without default.
    """

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None:
            if default is None:
                raise MissingVariable(name, path)
            value = default
        else:
            found.append(value)
        return value

    return _VARIABLE.sub(replace, text)


def resolve_params(params: M, environ: Mapping[str, str] | None = None) -> tuple[M, Redactor]:
    """A copy of ``params`` with every ``${NAME}`` resolved, and a redactor of the secrets.

    ``environ`` defaults to the execution policy's secrets when it has them (a server's:
    the project's secrets only), else the process environment (``sparring._policy``).
    Field names are used as keys (params models declare no aliases). Raises
    ``UnsetVariables`` listing every unset variable with its key path inside ``params``.
    """
    if environ is None:  # a server's policy names the only mapping ${NAME} reads
        given = current_policy().secrets
        environ = os.environ if given is None else given
    found: list[str] = []
    secrets: list[str] = []
    missing: list[MissingVariable] = []

    def resolve(text: str, path: KeyPath) -> str:
        try:
            return interpolate(text, path, environ, found)
        except MissingVariable as exc:
            missing.append(exc)
            return text

    def walk(value: Any, path: KeyPath) -> Any:
        if isinstance(value, SecretStr):
            resolved = resolve(value.get_secret_value(), path)
            secrets.append(resolved)
            return SecretStr(resolved)
        if isinstance(value, str):
            return resolve(value, path)
        if isinstance(value, BaseModel):  # only the keys the user set: defaults stay unset
            names = [n for n in type(value).model_fields if n in value.model_fields_set]
            return {n: walk(getattr(value, n), (*path, n)) for n in names}
        if isinstance(value, dict):
            return {k: walk(v, (*path, str(k))) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, (*path, i)) for i, v in enumerate(value)]
        return value

    data = walk(params, ())
    if missing:
        raise UnsetVariables(missing)
    resolved = type(params).model_validate(data)
    add_secrets([*found, *secrets, *configured_secrets(resolved)])  # every output's pass
    return resolved, Redactor([*found, *secrets])


def variable_references(params: BaseModel) -> list[tuple[str, KeyPath]]:
    """Every ``${NAME}`` the parsed ``params`` read (``$${`` escapes skipped), with the key
    path where it is written — found on the values YAML produced, so escapes, quoting and
    folded lines are already undone."""
    found: list[tuple[str, KeyPath]] = []

    def walk(value: Any, path: KeyPath) -> None:
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if isinstance(value, str):
            found.extend((m.group(1), path) for m in _VARIABLE.finditer(value) if m.group(1))
        elif isinstance(value, BaseModel):
            for name in type(value).model_fields:
                walk(getattr(value, name), (*path, name))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key, path)
                walk(item, (*path, str(key)))
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                walk(item, (*path, index))

    walk(params, ())
    return found


_SECRET_FIELDS = re.compile(r"api[_-]?key|token|secret|password|passwd", re.IGNORECASE)


def configured_secrets(params: BaseModel) -> list[str]:
    """Credentials written in a connector's parameters: the values of credential headers
    (any ``headers`` mapping, at any depth) and of fields named like a key, token,
    secret or password."""
    found: list[str] = []

    def walk(value: Any, name: str) -> None:
        if isinstance(value, BaseModel):
            for field in type(value).model_fields:
                walk(getattr(value, field), field)
        elif isinstance(value, SecretStr):
            found.append(value.get_secret_value())
        elif isinstance(value, dict):
            if name == "headers":
                found.extend(header_secrets({str(k): str(v) for k, v in value.items()}))
            for key, item in value.items():
                walk(item, str(key))
        elif isinstance(value, list):
            for item in value:
                walk(item, name)
        elif isinstance(value, str) and _SECRET_FIELDS.search(name):
            found.append(value)

    walk(params, "")
    return found
