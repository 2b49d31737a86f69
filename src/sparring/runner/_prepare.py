"""The runner provides what a job declared it needs (``sparring.jobs.Needs``), once,
before any work and before anything is written: see ``sparring.jobs._needs`` for the
order (model required, the job's own input, chatbot.yaml, models, the probe)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparring import llm
from sparring.connectors import ensure_reachable, load_chatbot_config
from sparring.errors import ConfigError, ModelRequired, Problem, UnknownName, UserInputError
from sparring.jobs import JobSettings, ModelNeed, Prepared, needs_of
from sparring.jobs.events import JobEvent, Probed, StageChanged
from sparring.llm import Model

PROBE_TIMEOUT = 10.0
"""Seconds the reachability probe waits for the chatbot."""


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
        prepared.chatbot = load_chatbot_config(settings.chatbot)  # type: ignore[attr-defined]
    if needs.model is not ModelNeed.NONE:
        prepared.models = {name: _load(job, settings, name, source) for name in needs.models}
    if prepared.chatbot is not None and probe and getattr(settings, needs.probe_setting, True):
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
    base_url, cache = getattr(settings, "model_base_url", None), getattr(settings, "cache", False)
    try:
        # looked up at call time (``llm.load_model``): a caller or test that swaps the
        # loader (``monkeypatch.setattr("sparring.llm.load_model", …)``) is honoured
        return llm.load_model(getattr(settings, name, None), base_url, cache)
    except UnknownName as exc:
        raise exc.at(source, None, name) from None
    except UserInputError as exc:
        if all(p.key for p in exc.problems):
            raise
        raise ConfigError([Problem(source, None, name, p.message) for p in exc.problems]) from None
