"""Project files: names, validation on save with sparring's located errors, versions, and
the snapshot a run reads.

A file is validated by the function ``sparring validate`` calls
(``sparring.validation.validate_file``, the connector not built); each ``Problem`` keeps
its line and key and names the project file.
A chatbot.yaml is also held to the dashboard's rules (``server_problems``): no connector
that runs code on the server, and every ``${NAME}`` it reads is one of the project's
secrets — never a variable of the server's own environment.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from django.db import transaction

from sparring import validation
from sparring.errors import Problem, UserInputError
from sparring.web.models import FileKind, FileVersion, Project, ProjectFile

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$")
MAX_FILE_BYTES = 1024 * 1024
CODE_CONNECTORS = frozenset({"python"})
"""Connectors that run code on the server: refused by the dashboard."""
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a project file (``None``: it can): a relative path of
    letters, digits, ``_ . -`` parts, no ``..``, at most 200 characters."""
    if len(name) > 200 or not NAME_PATTERN.match(name) or ".." in name.split("/"):
        return "a relative path of letters, digits and _ . - (no '..'), e.g. profiles/order.yaml"
    return None


def validate(kind: str, name: str, content: str) -> list[Problem]:
    """Every problem of ``content`` read as a ``kind`` file called ``name`` (file, line,
    key), as ``sparring validate`` reports them; empty when it loads."""
    if (why := name_problem(name)) is not None:
        return [Problem(name, None, "name", why)]
    if len(content.encode()) > MAX_FILE_BYTES:
        return [Problem(name, None, "", f"larger than {MAX_FILE_BYTES} bytes")]
    with tempfile.TemporaryDirectory(prefix="sparring-web-") as folder:
        path = Path(folder) / Path(name).name
        path.write_text(content, encoding="utf-8")
        check = validation.validate_file(
            path, cast(validation.FileKind, kind), build_connector=False
        )
        if check.errors:
            return [
                Problem(name if p.file in ("", str(path)) else p.file, p.line, p.key, p.message)
                for p in check.errors
            ]
    if kind == FileKind.CHATBOT:
        return server_problems(name, content)
    return []


def server_problems(
    name: str, content: str, secret_names: Iterable[str] | None = None
) -> list[Problem]:
    """A chatbot.yaml's problems under the dashboard's rules: a connector that runs code
    on the server, and (when ``secret_names`` is given) a ``${NAME}`` that is not one of
    the project's secrets."""
    problems: list[Problem] = []
    for number, line in enumerate(content.splitlines(), start=1):
        match = re.match(r"\s*connector:\s*['\"]?([\w-]+)", line)
        if match and match.group(1) in CODE_CONNECTORS:
            message = f"the {match.group(1)} connector runs code on the server: not offered here"
            problems.append(Problem(name, number, "connector", message))
        if secret_names is not None:
            allowed = set(secret_names)
            for variable in _ENV_REFERENCE.findall(line):
                if variable not in allowed:
                    message = f"${{{variable}}} is not a secret of this project (add it first)"
                    problems.append(Problem(name, number, "", message))
    return problems


def save_file(project: Project, kind: str, name: str, content: str, author: Any) -> ProjectFile:
    """Validate and save a new version of ``name`` (created on first save). Raises
    ``UserInputError`` with every located problem; nothing is saved then."""
    problems = validate(kind, name, content)
    if problems:
        raise UserInputError(problems)
    with transaction.atomic():
        file, _ = ProjectFile.objects.select_for_update().get_or_create(
            project=project, name=name, defaults={"kind": kind}
        )
        if file.kind != kind:
            raise UserInputError(Problem(name, None, "kind", f"is a {file.kind} file"))
        last = file.versions.order_by("-number").first()
        number = 1 if last is None else last.number + 1
        FileVersion.objects.create(file=file, number=number, content=content, author=author)
    return file


def write_snapshot(project: Project, folder: Path) -> dict[str, Path]:
    """Write the newest version of every project file under ``folder`` (what a run reads,
    frozen at launch); each file name mapped to its path."""
    written: dict[str, Path] = {}
    for file in ProjectFile.objects.filter(project=project):
        current = file.current
        if current is None or name_problem(file.name) is not None:
            continue
        path = folder / file.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(current.content, encoding="utf-8")
        written[file.name] = path
    return written
