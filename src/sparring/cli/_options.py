"""Command options declared once, on the job's settings model.

``settings_options(Model, …)`` adds a Typer option (or, for the fields named in
``arguments``, an argument) for each chosen field of a pydantic settings model: its name
(``max_weaknesses`` → ``--max-weaknesses``, or the flags given), its type, its default,
its closed bounds (``ge``/``le`` → ``min``/``max``) and its help (the field's
``description``). A ``bool`` field is a flag: ``--name/--no-name``, or the one flag given
(``--cache``). The command receives the values the user gave as one mapping (``values``)
and hands it to ``Model.from_values(values, OPTIONS)`` (or to ``run_job``): the option is
not declared a second time in the command's signature, and the command validates nothing
itself.

The model's located errors about those values are said the way the user typed them:
``--chatbot is required: chatbot.yaml of the chatbot under test.``, ``--concurrency: Input
should be greater than or equal to 1`` (exit 2).

    @app.command("plan")
    @settings_options(PlanSettings, flags={"chatbot": ("--chatbot", "-c")})
    def plan(values: SettingsValues, …) -> None:
        settings = PlanSettings.from_values(values, OPTIONS)
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Optional, TypeVar

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from sparring.errors import Problem, UserInputError

OPTIONS = "options"
"""The source named in the located errors of settings read from a command's options."""
MODEL_FLAGS: dict[str, Sequence[str]] = {"model": ("--model", "-m"), "cache": ("--cache",)}
"""The option names of the model settings every job shares."""
MODEL_ENVVARS = {"model": "SPARRING_MODEL", "model_base_url": "SPARRING_MODEL_BASE_URL"}
"""The environment variables read for the model settings when not given."""

SettingsValues = dict[str, Any]
"""The option values a user gave, by field name (options left out are absent)."""

F = TypeVar("F", bound=Callable[..., Any])

_BOUNDS = {annotated_types.Ge: ("min", "ge"), annotated_types.Le: ("max", "le")}
"""Bounds Typer checks and shows (``x>=1``); open ones (``gt``, ``lt``) only the model
checks, as Typer would show and check them closed."""
_MISSING = "Field required"
_PYDANTIC_LEAD = "Value error, "


@dataclass(frozen=True)
class SettingsParameter:
    """How one settings field is typed on the command line: ``spelled`` as the user
    types it (``--chatbot``, ``RULES``), ``required`` by the model (no default), and its
    ``description``. A command built by ``settings_options`` lists these, by field name,
    in its callback's ``settings_parameters`` (the bad-input test walks them)."""

    spelled: str
    required: bool
    description: str


def settings_options(
    model: type[BaseModel],
    *,
    fields: Sequence[str] | None = None,
    flags: Mapping[str, Sequence[str]] | None = None,
    envvars: Mapping[str, str] | None = None,
    arguments: Sequence[str] = (),
    required: Sequence[str] = (),
    parameter: str = "values",
) -> Callable[[F], F]:
    """A decorator adding an option per field of ``model`` (``fields``: which, in order;
    default every field) to a Typer command whose parameter ``parameter`` receives them
    as a ``SettingsValues`` mapping. ``flags`` gives a field's option names (default
    ``--field-name``; a bool field gets ``--name/--no-name``, or the one flag given),
    ``envvars`` an environment variable read when the option is not given, ``arguments``
    the fields that are positional arguments instead (placed before the options, in that
    order). Every option defaults to "not given", so the model's default applies and a
    required field missing is the model's located error, said as the option: those in
    ``required`` are marked ``[required]`` in the help (a field required only without
    another option, such as ``simulate``'s ``--chatbot`` without ``--resume``, is not)."""
    names = [*arguments, *(n for n in (fields or model.model_fields) if n not in arguments)]
    hints: dict[str, Any] = {}
    spelled: dict[str, SettingsParameter] = {}
    for name in names:
        info = model.model_fields[name]
        if name in arguments:
            hints[name], spelled[name] = _argument(name, info)
        else:
            given = (flags or {}).get(name)
            hints[name], spelled[name] = _option(
                name, info, given, (envvars or {}).get(name), name in required
            )

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != parameter]

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            picked = {name: given.pop(name, None) for name in hints}
            values = {name: value for name, value in picked.items() if value not in _NOT_GIVEN}
            try:
                return command(**given, **{parameter: values})
            except UserInputError as exc:  # the same error (a subclass keeps its fields)
                exc.problems = [_as_typed(problem, spelled) for problem in exc.problems]
                exc.args = ("\n".join(str(problem) for problem in exc.problems),)
                raise

        # the settings first (their arguments before the command's own), then the
        # command's own parameters; all keyword-only, as Typer passes them
        params = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=hint)
            for name, hint in hints.items()
        ] + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        run.settings_parameters = spelled  # type: ignore[attr-defined]
        del run.__wrapped__  # Typer reads the signature above, not the command's own
        return run  # type: ignore[return-value]

    return decorate


_NOT_GIVEN: tuple[Any, ...] = (None, [], ())


def _as_typed(problem: Problem, spelled: Mapping[str, SettingsParameter]) -> Problem:
    """``problem`` about a command's option said as the user typed the option
    (``--chatbot is required: …``): one the settings model found in the options, or one a
    job located at a setting with no file (``UnknownName.at("", None, "detectors")``);
    other problems as they are."""
    head, _, rest = problem.key.partition(".")
    parameter = spelled.get(head)
    if problem.file != OPTIONS and (problem.file or problem.line or parameter is None):
        return problem
    message = problem.message.removeprefix(_PYDANTIC_LEAD)
    if parameter is None:  # a check of several fields: the model's own words
        return Problem("", None, "", message)
    where = parameter.spelled + (f" [{rest}]" if rest else "")
    if message == _MISSING and not rest:
        message = f"is required: {_lowered(parameter.description)}".rstrip(": ")
        return Problem("", None, "", f"{where} {message}")
    return Problem("", None, "", f"{where}: {message}")


def _lowered(text: str) -> str:
    """``Rule files, …`` → ``rule files, …`` (``URL…`` and ``chatbot.yaml`` unchanged)."""
    if text[:1].isupper() and not text[1:2].isupper():
        return text[0].lower() + text[1:]
    return text


def _help(info: FieldInfo) -> str:
    """The field's description as Typer's Rich help shows it (double backticks single)."""
    return (info.description or "").replace("``", "`")


def _argument(name: str, info: FieldInfo) -> tuple[Any, SettingsParameter]:
    spelled = name.upper()
    option = typer.Argument(help=_help(info) or None, metavar=spelled, show_default=False)
    kind = info.annotation
    parameter = SettingsParameter(spelled, info.is_required(), _help(info))
    return Annotated[Optional[kind], option], parameter  # noqa: UP045 (built at run time)


def _is_flag(kind: Any) -> bool:
    """``bool`` and ``bool | None`` (a setting whose default depends on others)."""
    return kind is bool or set(typing.get_args(kind)) == {bool, type(None)}


def _typer_kind(kind: Any) -> Any:
    """``kind`` as Typer can parse it: a list of choices (``list[Literal["svg", …]]``,
    which Typer refuses) is a list of words the model checks."""
    [item] = typing.get_args(kind) if typing.get_origin(kind) is list else [None]
    return list[str] if typing.get_origin(item) is typing.Literal else kind


def _option(
    name: str, info: FieldInfo, flags: Sequence[str] | None, envvar: str | None, required: bool
) -> tuple[Any, SettingsParameter]:
    kind = bool if _is_flag(info.annotation) else _typer_kind(info.annotation)
    dashed = name.replace("_", "-")
    if not flags:
        flags = (f"--{dashed}/--no-{dashed}",) if kind is bool else (f"--{dashed}",)
    bounds: dict[str, float] = {}
    for item in info.metadata:
        for bound, (key, attribute) in _BOUNDS.items():
            if isinstance(item, bound):
                bounds[key] = getattr(item, attribute)
    help_text = _help(info)
    default = _default(info)
    if required:
        help_text = f"{help_text} \\[required]".strip()
    elif kind is bool and "/" in flags[0] and default is not None:
        shown = flags[0].split("/")[0 if default else 1].strip()
        help_text = f"{help_text} \\[default: {shown}]".strip()
    elif default not in (None, False) and not isinstance(default, list | dict):
        help_text = f"{help_text} \\[default: {default}]".strip()
    option = typer.Option(
        *flags,
        help=help_text or None,
        envvar=envvar,
        show_default=False,
        **bounds,  # type: ignore[arg-type]
    )
    spelled = next(f for f in flags[0].split("/")[0].split() if f.startswith("-"))
    parameter = SettingsParameter(spelled, info.is_required(), _help(info))
    return Annotated[Optional[kind], option], parameter  # noqa: UP045 (built at run time)


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return None if info.default is PydanticUndefined else info.default
