"""What a job needs before its work, declared by the job and provided once by the runner:
the chatbot under test loaded and reachable, the model(s) loaded, the report written after.

A job declares ``needs = Needs(chatbot=True, model=ModelNeed.OPTIONAL, report=True)``;
the runner (``sparring.runner.prepare``), before any work and before anything is
written, in this order:

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

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from sparring.connectors import ChatbotConfig, ProbeResult
    from sparring.jobs._protocol import JobContext
    from sparring.llm import Model

S = TypeVar("S")
In = TypeVar("In")


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


def job_inputs(ctx: JobContext, load: Callable[[S], In], settings: S) -> In:
    """A job's own input, typed as ``load`` returns it (the job's ``load_inputs``): what the
    runner read before any work (``ctx.inputs``), or, in a stage run by another job
    (``ctx.nested()``: ``ctx.inputs`` is ``None``), ``load(settings)`` read now. Raises
    what ``load`` raises (``ConfigError``/``UserInputError``: file, line, key)."""
    read: In = ctx.inputs  # what the runner's call of the same ``load_inputs`` returned
    return read if read is not None else load(settings)


def needs_of(job: object) -> Needs:
    """The job's declared ``needs`` (``NO_NEEDS`` when it declares none)."""
    needs = getattr(job, "needs", None)
    return needs if isinstance(needs, Needs) else NO_NEEDS
