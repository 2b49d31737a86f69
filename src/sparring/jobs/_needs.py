"""What a job needs before its work, declared by the job and provided once by the runner:
the chatbot under test loaded and reachable, the model(s) loaded, the report written after.

A job declares ``needs = Needs(chatbot=True, model=ModelNeed.OPTIONAL, report=True)``;
the runner (``prepare``), before any work and before anything is written, in this order:

1. a job that ``ModelNeed.REQUIRED`` a model and has none configured stops with
   ``ModelRequired`` naming ``--model`` (exit 2; there is no offline strategy);
2. the job's own input files are read and checked: its ``load_inputs(settings)``, when it
   has one (profiles, seeds, suites, weaknesses, rules…; ``ConfigError``/``UserInputError``
   with file, line and key: exit 2), kept as ``ctx.inputs`` — so bad input is always the
   located error, never hidden behind an unreachable chatbot;
3. the settings' ``chatbot`` (a chatbot.yaml) is loaded (``ConfigError`` with file, line
   and key: exit 2);
4. each model setting in ``models`` is loaded once (a bad spec: ``ConfigError`` located
   at the setting, exit 2) — unless the job object carries a model of that name built in
   code (``ExploreJob(model=ScriptedModel(…))``);
5. the chatbot is probed (unless the settings' ``probe_setting`` is false):
   ``ChatbotUnreachable`` with the cause (exit 1), or the ``Probed`` event.

The job reads the results from its ``JobContext``: ``ctx.chatbot``, ``ctx.model``,
``ctx.models[name]``, ``ctx.probe`` and ``ctx.inputs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sparring.errors import ConfigError, ModelRequired, Problem, UnknownName, UserInputError
from sparring.jobs._settings import JobSettings
from sparring.jobs.events import JobEvent, Probed, StageChanged

if TYPE_CHECKING:
    from collections.abc import Callable

    from sparring.connectors import ChatbotConfig, ProbeResult
    from sparring.llm import Model

PROBE_TIMEOUT = 10.0
"""Seconds the reachability probe waits for the chatbot."""


class ModelNeed(StrEnum):
    """Whether a job calls a model: ``none``; ``optional`` (every step has an offline
    strategy, or says *unscored*); ``required`` (no offline strategy: the job stops before
    any work without one)."""

    NONE = "none"
    OPTIONAL = "optional"
    REQUIRED = "required"


@dataclass(frozen=True)
class Needs:
    """What a job needs before its work (see the module docstring).

    ``chatbot``: the settings' ``chatbot`` is loaded and probed; ``probe_setting`` names
    the boolean setting that turns the probe off (``probe``; a setting the job lacks
    counts as on). ``model``: whether the job calls a model; ``models`` the settings that
    name one (``model``; explore adds ``profile_model``), each read with the settings'
    ``model_base_url`` and ``cache``; ``step`` and ``detail`` name what needs the model in
    the ``ModelRequired`` error. ``report``: the runner writes the run's HTML report once
    the job ended (finished or stopped) and its outcome is stored."""

    chatbot: bool = False
    probe_setting: str = "probe"
    model: ModelNeed = ModelNeed.NONE
    models: tuple[str, ...] = ("model",)
    step: str = ""
    detail: str = ""
    report: bool = False


NO_NEEDS = Needs()
"""A job that declares nothing: no chatbot, no model, no report."""


@dataclass
class Prepared:
    """What the runner provided: the chatbot's configuration (``None``: the job needs no
    chatbot), the models by setting name (``None``: offline), the probe's result
    (``None``: not probed) and what the job's ``load_inputs`` returned (``None``: it has
    none)."""

    chatbot: ChatbotConfig | None = None
    models: dict[str, Model | None] = field(default_factory=dict)
    probe: ProbeResult | None = None
    inputs: Any = None


def needs_of(job: object) -> Needs:
    """The job's declared ``needs`` (``NO_NEEDS`` when it declares none)."""
    needs = getattr(job, "needs", None)
    return needs if isinstance(needs, Needs) else NO_NEEDS


async def prepare(
    job: object,
    settings: JobSettings,
    emit: Callable[[JobEvent], None],
    source: str = "settings",
    *,
    probe: bool = True,
) -> Prepared:
    """Provide what ``job`` needs for ``settings`` (see the module docstring); ``source``
    names where the settings came from in located errors; ``probe=False`` loads without
    probing (what a worker does with a job planned elsewhere). Raises ``ModelRequired``,
    ``ConfigError``/``UserInputError`` (located at the setting) and
    ``ChatbotUnreachable``, all before any work; the job's ``load_inputs`` raises its
    located errors before the chatbot is loaded or probed."""
    needs = needs_of(job)
    prepared = Prepared()
    if needs.model is ModelNeed.REQUIRED and not _model_given(job, settings, needs.models[0]):
        raise ModelRequired(needs.step or f"the {getattr(job, 'name', '')} job", needs.detail)
    load_inputs = getattr(job, "load_inputs", None)
    if load_inputs is not None:
        prepared.inputs = load_inputs(settings)
    if needs.chatbot:
        from sparring.connectors import load_chatbot_config

        prepared.chatbot = load_chatbot_config(settings.chatbot)  # type: ignore[attr-defined]
    if needs.model is not ModelNeed.NONE:
        prepared.models = {name: _load(job, settings, name, source) for name in needs.models}
    if prepared.chatbot is not None and probe and getattr(settings, needs.probe_setting, True):
        from sparring.connectors import ensure_reachable

        emit(StageChanged(stage="probe"))
        report = getattr(job, "on_probe", None)
        prepared.probe = await ensure_reachable(prepared.chatbot, PROBE_TIMEOUT, report)
        emit(Probed(checked=prepared.probe.checked))
    return prepared


def _model_given(job: object, settings: JobSettings, name: str) -> bool:
    return getattr(job, name, None) is not None or bool(getattr(settings, name, None))


def _load(job: object, settings: JobSettings, name: str, source: str) -> Model | None:
    """The model the job object carries under ``name``, else the one the setting names
    (``None`` when it names none). A bad spec is a ``ConfigError`` located at the
    setting."""
    built: Any = getattr(job, name, None)
    if built is not None:
        return built  # type: ignore[no-any-return]
    from sparring.llm import load_model  # LiteLLM and friends: only for a job that runs

    base_url, cache = getattr(settings, "model_base_url", None), getattr(settings, "cache", False)
    try:
        return load_model(getattr(settings, name, None), base_url, cache)
    except UnknownName as exc:
        raise exc.at(source, None, name) from None
    except UserInputError as exc:
        if all(p.key for p in exc.problems):
            raise
        raise ConfigError([Problem(source, None, name, p.message) for p in exc.problems]) from None
