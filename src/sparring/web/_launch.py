"""The launch form: a job's settings as a form generated from its ``JobSettings`` model
(pydantic fields → form fields), so a job added to ``sparring.jobs.JOBS`` gets a form
without a page change.

Field kinds: a path (``Path``, ``Path | None``) is a choice among the project's files and
folders; a list of paths, a multiple choice; ``bool`` a checkbox; ``int`` and ``float``
numbers; a ``Literal`` a choice; ``list[str]`` comma-separated words; anything else text.
Settings that would run code on the server (``_worker.REFUSED_KEYS``) are not offered. The
values go to the runner as JSON; it types them (located errors, ``settings.<key>``) and
the errors are shown beside their fields.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from django import forms
from pydantic.fields import FieldInfo

from sparring.errors import UserInputError
from sparring.web._worker import APPLIED_FIXED, REFUSED_KEYS
from sparring.web.models import FileKind, Project

_UNSET = object()


def _bare(annotation: Any) -> tuple[Any, bool]:
    """``annotation`` without ``None`` in a union, and whether ``None`` was there."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        return (args[0] if len(args) == 1 else annotation), optional
    return annotation, False


SETTING_KINDS: dict[str, str] = {
    "chatbot": FileKind.CHATBOT,
    "profiles": FileKind.PROFILE,
    "rules": FileKind.RULES,
    "personas": FileKind.PERSONA,
    "suites": FileKind.PROBES,
}
"""Path settings that name files of one kind: their choices are those files only."""


def project_targets(project: Project, kind: str | None = None) -> list[str]:
    """The names a path setting may take: every project file (of ``kind`` when given) and
    every folder holding one (``profiles``), sorted."""
    files = project.files.all() if kind is None else project.files.filter(kind=kind)
    names = set(files.values_list("name", flat=True))
    folders = {"/".join(n.split("/")[:i]) for n in names for i in range(1, n.count("/") + 1)}
    return sorted(names | folders)


def _default(info: FieldInfo) -> Any:
    if info.is_required():
        return _UNSET
    value = info.get_default(call_default_factory=True)
    return _UNSET if value is None else value


def _field(name: str, info: FieldInfo, targets: list[str]) -> forms.Field:
    kind, optional = _bare(info.annotation)
    required = info.is_required()
    help_text = info.description or ""
    default = _default(info)
    path_choices = [(t, t) for t in targets]
    field: forms.Field
    if kind is Path:
        choices = path_choices if required else [("", "—"), *path_choices]
        field = forms.ChoiceField(choices=choices, required=required)
    elif get_origin(kind) is list and get_args(kind) and get_args(kind)[0] is Path:
        field = forms.MultipleChoiceField(
            choices=path_choices, required=required, widget=forms.CheckboxSelectMultiple
        )
    elif kind is bool:
        field = forms.BooleanField(required=False)
    elif kind is int:
        field = forms.IntegerField(required=required and default is _UNSET)
    elif kind is float:
        field = forms.FloatField(required=required and default is _UNSET)
    elif get_origin(kind) is Literal:
        values = [str(v) for v in get_args(kind)]
        choices = [(v, v) for v in values]
        field = forms.ChoiceField(
            choices=choices if required else [("", "default"), *choices], required=required
        )
    elif get_origin(kind) is list:
        field = forms.CharField(required=required, help_text="comma-separated")
    else:
        field = forms.CharField(required=required and not optional)
    if default is not _UNSET:
        field.initial = ", ".join(map(str, default)) if isinstance(default, list) else default
    if help_text:
        field.help_text = help_text
    field.label = name.replace("_", " ")
    return field


def offered(name: str) -> bool:
    """Whether the dashboard offers the setting ``name`` (never one that runs code)."""
    return name not in REFUSED_KEYS


def settings_form(
    job: str, project: Project, data: Any = None, *, applied: bool = False
) -> forms.Form:
    """A form for ``job``'s settings in ``project`` (bound to ``data`` when given), plus
    a ``tags`` field; with ``applied`` (a job applied to an existing run), without the
    settings the dashboard sets (``APPLIED_FIXED``: the run, where verdicts go) and without
    tags. Raises ``UserInputError`` for an unknown job."""
    from sparring.runner import find_job

    model = find_job(job).settings_type
    every = project_targets(project)
    form = forms.Form(data)
    for name, info in model.model_fields.items():
        if offered(name) and not (applied and name in APPLIED_FIXED):
            kind = SETTING_KINDS.get(name)
            targets = every if kind is None else project_targets(project, kind)
            form.fields[name] = _field(name, info, targets)
    if not applied:
        form.fields["tags"] = forms.CharField(required=False, help_text="comma-separated")
    return form


def form_settings(job: str, form: forms.Form) -> tuple[dict[str, Any], list[str]]:
    """The settings (JSON values) and tags of a valid ``settings_form``; empty optional
    values are left out so the job's own defaults apply."""
    from sparring.runner import find_job

    model = find_job(job).settings_type
    settings: dict[str, Any] = {}
    for name, value in form.cleaned_data.items():
        if name == "tags" or value in ("", None, []):
            continue
        info = model.model_fields[name]
        kind, _ = _bare(info.annotation)
        if get_origin(kind) is list and isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        elif kind is bool and value is False and info.default is not True:
            continue
        settings[name] = value
    tags = [t.strip() for t in str(form.cleaned_data.get("tags", "")).split(",") if t.strip()]
    return settings, tags


def add_problems(form: forms.Form, error: UserInputError) -> None:
    """Show the runner's located problems (``settings.<key>``) beside their fields (the
    form's own errors for a key it has no field for)."""
    for problem in error.problems:
        key = problem.key.removeprefix("settings.").split(".")[0]
        where = f"{problem.file}:{problem.line}: " if problem.file and problem.line else ""
        form.add_error(key if key in form.fields else None, where + problem.message)


def _jobs(creates_run: bool) -> list[str]:
    from sparring.runner import JOBS

    return [name for name, job in JOBS.items().items() if bool(job.creates_run) is creates_run]


def job_names() -> list[str]:
    """Every registered job that creates a run (``sparring.jobs.JOBS``), sorted: the jobs
    a project launches."""
    return _jobs(creates_run=True)


def applied_job_names() -> list[str]:
    """Every registered job that writes into an existing run (``check``, ``evaluate``),
    sorted: the jobs a run's page applies to it."""
    return _jobs(creates_run=False)
