"""Command options declared once, on the job's settings model.

``settings_options(Model, …)`` adds a Typer option for each chosen field of a pydantic
settings model: its name (``max_weaknesses`` → ``--max-weaknesses``, or the flags
given), its type, its default, its bounds (``ge``/``le``/``gt``/``lt`` → ``min``/
``max``) and its help (the field's ``description``). The command receives the values the
user gave as one mapping (``values``) and hands it to ``Model.from_values`` (located
errors, exit 2): the option is not declared a second time in the command's signature, and
the command validates nothing itself.

    @app.command("plan")
    @settings_options(PlanSettings, flags={"chatbot": ("--chatbot", "-c")})
    def plan(values: SettingsValues, …) -> None:
        settings = PlanSettings.from_values(values)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Optional, TypeVar

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

MODEL_FLAGS: dict[str, Sequence[str]] = {"model": ("--model", "-m"), "cache": ("--cache",)}
"""The option names of the model settings every job shares."""
MODEL_ENVVARS = {"model": "SPARRING_MODEL", "model_base_url": "SPARRING_MODEL_BASE_URL"}
"""The environment variables read for the model settings when not given."""

SettingsValues = dict[str, Any]
"""The option values a user gave, by field name (options left out are absent)."""

F = TypeVar("F", bound=Callable[..., Any])

_BOUNDS = {
    annotated_types.Ge: ("min", "ge"),
    annotated_types.Gt: ("min", "gt"),
    annotated_types.Le: ("max", "le"),
    annotated_types.Lt: ("max", "lt"),
}


def settings_options(
    model: type[BaseModel],
    *,
    fields: Sequence[str] | None = None,
    flags: Mapping[str, Sequence[str]] | None = None,
    envvars: Mapping[str, str] | None = None,
    required: Sequence[str] = (),
    parameter: str = "values",
) -> Callable[[F], F]:
    """A decorator adding an option per field of ``model`` (``fields``: which, in order;
    default every field) to a Typer command whose parameter ``parameter`` receives them
    as a ``SettingsValues`` mapping. ``flags`` gives a field's option names (default
    ``--field-name``; a bool field gets ``--name/--no-name``), ``envvars`` an environment
    variable read when the option is not given. Every option defaults to "not given"
    (``None``), so a required field missing is the model's located error — apart from
    those in ``required``, which the command cannot run without (Typer asks for them
    first, before any argument is read)."""
    names = list(fields) if fields is not None else list(model.model_fields)
    options = {
        name: _option(name, model.model_fields[name], (flags or {}).get(name), envvars)
        for name in names
    }

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != parameter]

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            picked = {name: given.pop(name, None) for name in options}
            values = {name: value for name, value in picked.items() if value is not None}
            return command(**given, **{parameter: values})

        params = own + [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=... if name in required else None,
                annotation=hint,
            )
            for name, hint in options.items()
        ]
        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        del run.__wrapped__  # Typer reads the signature above, not the command's own
        return run  # type: ignore[return-value]

    return decorate


def _option(
    name: str, info: FieldInfo, flags: Sequence[str] | None, envvars: Mapping[str, str] | None
) -> Any:
    kind = info.annotation
    dashed = name.replace("_", "-")
    if not flags:
        flags = (f"--{dashed}/--no-{dashed}",) if kind is bool else (f"--{dashed}",)
    bounds: dict[str, float] = {}
    for item in info.metadata:
        for bound, (key, attribute) in _BOUNDS.items():
            if isinstance(item, bound):
                bounds[key] = getattr(item, attribute)
    help_text = (info.description or "").replace("``", "`")
    default = _default(info)
    if default is not None and not isinstance(default, list | dict) and kind is not bool:
        help_text = f"{help_text} \\[default: {default}]".strip()
    option = typer.Option(
        *flags,
        help=help_text or None,
        envvar=(envvars or {}).get(name),
        show_default=False,
        **bounds,  # type: ignore[arg-type]
    )
    return Annotated[Optional[kind], option]  # noqa: UP045 (a type built at run time)


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return None if info.default is PydanticUndefined else info.default
