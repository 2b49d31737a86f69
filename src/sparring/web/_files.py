"""Project files: names, validation on save with sparring's located errors, versions, and
the snapshot a run reads.

A file is validated by the function ``sparring validate`` calls
(``sparring.validation.validate_file``, the connector not built); each ``Problem`` keeps
its line and key and names the project file.
Every file is read under the dashboard's execution policy (``DASHBOARD_POLICY``,
``sparring._policy``): a connector, generator, rule function or setting that runs code is
refused, decided on the parsed file whatever its YAML spelling; a chatbot.yaml's every
``${NAME}`` must be one of the project's secrets (``server_problems``) — it is never read
from the server's own environment.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from django.db import transaction

from sparring import validation
from sparring._policy import ExecutionPolicy, scoped
from sparring.connectors import config_problem, load_chatbot_config, variable_references
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.web._audit import record
from sparring.web.models import FileKind, FileVersion, Project, ProjectFile

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$")
MAX_FILE_BYTES = 1024 * 1024


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a project file (``None``: it can): a relative path of
    letters, digits, ``_ . -`` parts, no ``..``, at most 200 characters."""
    if len(name) > 200 or not NAME_PATTERN.match(name) or ".." in name.split("/"):
        return "a relative path of letters, digits and _ . - (no '..'), e.g. profiles/order.yaml"
    return None


def validate(
    kind: str, name: str, content: str, secret_names: Iterable[str] | None = None
) -> list[Problem]:
    """Every problem of ``content`` read as a ``kind`` file called ``name`` (file, line,
    key), as ``sparring validate`` reports them under the dashboard's policy (nothing that
    runs code; paths inside the file's folder); empty when it loads. With ``secret_names``
    (the project's secrets) a chatbot.yaml's every ``${NAME}`` must name one of them."""
    if (why := name_problem(name)) is not None:
        return [Problem(name, None, "name", why)]
    if len(content.encode()) > MAX_FILE_BYTES:
        return [Problem(name, None, "", f"larger than {MAX_FILE_BYTES} bytes")]
    with (
        tempfile.TemporaryDirectory(prefix="sparring-web-") as folder,
        scoped(policy_for([Path(folder)])),
    ):
        path = Path(folder) / Path(name).name
        path.write_text(content, encoding="utf-8")
        check = validation.validate_file(
            path, cast(validation.FileKind, kind), build_connector=False
        )
        if check.errors:
            return [_renamed(p, path, name) for p in check.errors]
        if kind == FileKind.CHATBOT and secret_names is not None:
            return server_problems(path, name, secret_names)
    return []


DASHBOARD_POLICY = ExecutionPolicy(run_code=False)
"""The dashboard's execution policy (``sparring._policy``): no feature that runs the
user's code; paths confined to the files of the project a job or a check reads."""


def policy_for(
    folders: list[Path],
    secrets: dict[str, str] | None = None,
    hosts: Mapping[str, frozenset[str]] | None = None,
) -> ExecutionPolicy:
    """``DASHBOARD_POLICY`` confined to ``folders``, ``${NAME}`` read from ``secrets``
    only (never the server's environment; ``{}`` when none is given), each secret sent
    only to its ``hosts`` (a secret absent: nowhere)."""
    bound = {name: frozenset(hosts.get(name, ())) for name in secrets} if secrets and hosts else {}
    policy = DASHBOARD_POLICY.confined(folders)
    return replace(policy, secrets=dict(secrets or {}), secret_hosts=bound)


def server_problems(
    path: Path,
    name: str,
    secret_names: Iterable[str],
    bound: Mapping[str, frozenset[str]] | None = None,
) -> list[Problem]:
    """A chatbot.yaml's problems under the dashboard's rules, decided on the parsed file:
    a connector that runs code (with the policy in force), each ``${NAME}`` it reads that
    is not one of the project's secrets (``secret_names``), and, when ``bound`` is given
    (the hosts each secret may be sent to, by name), each secret it reads that has no hosts
    (a secret goes nowhere until its owner states where) or while its parameters name a
    URL elsewhere (or one whose host is itself a variable)."""
    allowed = set(secret_names)
    try:
        config = load_chatbot_config(path)
    except ConfigError as exc:
        return [_renamed(p, path, name) for p in exc.problems]
    problems: list[Problem] = []
    targets = _url_hosts(config.params.model_dump(mode="json"), ())
    for variable, key in variable_references(config.params):
        message = ""
        if variable not in allowed:
            message = f"${{{variable}}} is not a secret of this project (add it first)"
        elif bound is not None and not bound.get(variable):
            message = (
                f"${{{variable}}} has no hosts: the project's owner states where it may be "
                "sent (the secrets page, Hosts) before a run may send it"
            )
        elif bound is not None:
            elsewhere = sorted({h for h, _ in targets if h not in bound[variable]})
            if elsewhere:
                message = (
                    f"${{{variable}}} may be sent only to {', '.join(sorted(bound[variable]))} "
                    f"(its owner's binding); this chatbot.yaml sends to {', '.join(elsewhere)}"
                )
        if message:
            problems.append(_renamed(config_problem(config, ("params", *key), message), path, name))
    return problems


def _url_hosts(value: Any, key: tuple[str | int, ...]) -> list[tuple[str, tuple[str | int, ...]]]:
    """The host of every absolute URL among the parsed parameter values (``"?"`` for one
    whose host is not a plain name, e.g. a ``${NAME}``), with its key path."""
    if isinstance(value, dict):
        return [h for k, v in value.items() for h in _url_hosts(v, (*key, str(k)))]
    if isinstance(value, list):
        return [h for i, v in enumerate(value) for h in _url_hosts(v, (*key, i))]
    if not isinstance(value, str) or "://" not in value:
        return []
    host = urlsplit(value.strip()).hostname or "?"
    return [(host if re.fullmatch(r"[a-z0-9.\-\[\]:]+", host) else "?", key)]


def _renamed(problem: Problem, path: Path, name: str) -> Problem:
    """``problem`` naming the project file ``name`` instead of its temporary ``path``."""
    file = name if problem.file in ("", str(path)) else problem.file
    return Problem(file, problem.line, problem.key, problem.message)


def save_file(project: Project, kind: str, name: str, content: str, author: Any) -> ProjectFile:
    """Validate and save a new version of ``name`` (created on first save). Raises
    ``UserInputError`` with every located problem; nothing is saved then."""
    problems = validate(kind, name, content)
    if problems:
        raise UserInputError(problems)
    return store_version(project, kind, name, content, author)


def store_version(project: Project, kind: str, name: str, content: str, author: Any) -> ProjectFile:
    """Save a new version of ``name`` that its caller validated (``save_file``, or a
    project imported whole, whose files are validated together: ``_project_import``).
    Raises ``UserInputError`` when the project's stored size would pass its quota or the
    file exists with another kind."""
    from sparring.web._quotas import file_problem

    if (full := file_problem(project, len(content.encode()))) is not None:
        raise UserInputError(Problem(name, None, "content", full))
    with transaction.atomic():
        file, _ = ProjectFile.objects.select_for_update().get_or_create(
            project=project, name=name, defaults={"kind": kind}
        )
        if file.kind != kind:
            raise UserInputError(Problem(name, None, "kind", f"is a {file.kind} file"))
        last = file.versions.order_by("-number").first()
        number = 1 if last is None else last.number + 1
        FileVersion.objects.create(file=file, number=number, content=content, author=author)
    record("file_saved", actor=author, project=project, name=name, kind=kind, version=number)
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
