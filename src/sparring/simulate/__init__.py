"""User simulation: the ``simulate`` job, simulators, the conversation runner and the
many-conversation driver.

The job, from Python::

    from sparring.runner import resume, start
    settings = SimulateSettings(profiles=["profiles/"], chatbot="chatbot.yaml")
    result = start(SimulateJob(), settings, "runs/first").result  # a SimulationResult

(the job passed as an object types the result; ``start("simulate", …)`` gives ``Any``).
``resume(run_dir)`` finishes an interrupted run with the settings in its manifest.

Lower-level API: ``ConversationSpec`` (what one conversation is asked to do, built from a
profile by ``plan_run``), the two user simulators (``AgendaSimulator``, offline;
``LLMSimulator``), ``run_conversation`` (one conversation → ``ConversationRecord``) and
``simulate`` (many, concurrently, streamed to a ``RunStore``).

For a coordinator that runs the conversations elsewhere (docs/distributed.md):
``SimulateJob(remote=…)`` (the job on the runner with its conversations run by a
``RemoteConversations``), ``planned_specs`` and ``run_planned`` (some planned
conversations by id → their records, nothing written), ``finish_run`` (summary and health).
"""

from sparring.connectors import ChatbotUnreachable, endpoint_of
from sparring.conversations import DEFAULT_MAX_CHATBOT_FAILURE_SHARE, RunHealth, assess_run
from sparring.simulate._agenda import AgendaSimulator
from sparring.simulate._base import Exchange, UserSimulator
from sparring.simulate._job import (
    MAX_RUN_CONVERSATIONS,
    RUN_CAP_ENV,
    RemoteConversations,
    SimulateJob,
    SimulateSettings,
    SimulationResult,
    finish_run,
    run_conversation_cap,
)
from sparring.simulate._llm_simulator import LLMSimulator, SimulatedUtterance
from sparring.simulate._plan import load_plan_inputs, plan_run
from sparring.simulate._planned import planned_specs, run_planned, run_planned_async
from sparring.simulate._runner import RunnerLimits, run_conversation
from sparring.simulate._simulation import SimulationOptions, SimulatorKind, make_simulator, simulate
from sparring.simulate._spec import ConversationSpec, OutputSpec, StopCondition, render_value

__all__ = [
    "DEFAULT_MAX_CHATBOT_FAILURE_SHARE",
    "MAX_RUN_CONVERSATIONS",
    "RUN_CAP_ENV",
    "AgendaSimulator",
    "ChatbotUnreachable",
    "ConversationSpec",
    "Exchange",
    "LLMSimulator",
    "OutputSpec",
    "RemoteConversations",
    "RunHealth",
    "RunnerLimits",
    "SimulateJob",
    "SimulateSettings",
    "SimulatedUtterance",
    "SimulationOptions",
    "SimulationResult",
    "SimulatorKind",
    "StopCondition",
    "UserSimulator",
    "assess_run",
    "endpoint_of",
    "finish_run",
    "load_plan_inputs",
    "make_simulator",
    "plan_run",
    "planned_specs",
    "render_value",
    "run_conversation",
    "run_conversation_cap",
    "run_planned",
    "run_planned_async",
    "simulate",
]
