"""Weakness threads (Agent-Testing Agent, arXiv 2508.17393, §3.2): one per weakness, run
concurrently; each keeps its own history and difficulty, and all of them share their
observations through one ``SharedState``, which also writes ``adversarial.json`` after
every test.

A test is: the attacker plans it (``plan_test``), the simulated user plays it against the
chatbot through the connector (``sparring.simulate.run_conversation``, so the transcript
is an ordinary ``ConversationRecord`` in the run), the judge scores it (``judge_test``),
and a scored test moves the thread's difficulty (``DifficultyTracker``). A thread ends
after its rounds, when the difficulty converges, or when the chatbot crashes or times out
(recorded on the test and on the conversation; the other threads go on).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from sparring.adversarial._attacker import AdversarialUser, plan_test
from sparring.adversarial._difficulty import DifficultyTracker
from sparring.adversarial._judge import judge_test
from sparring.adversarial._results import (
    ADVERSARIAL,
    AdversarialResult,
    AdversarialTest,
    ChatbotFailureInfo,
    Observation,
    TestPlan,
)
from sparring.adversarial._rubrics import Rubric
from sparring.adversarial._weaknesses import Weakness
from sparring.connectors import ChatbotInfo, Connector
from sparring.conversations import (
    ConversationRecord,
    ErrorCode,
    FailureCause,
    RunStore,
    Slot,
)
from sparring.errors import ModelError
from sparring.llm import Meter, Model
from sparring.simulate import ConversationSpec, RunnerLimits, StopCondition, run_conversation
from sparring.types import ModelUsage

OnTest = Callable[[AdversarialTest], None]
"""Called after every finished test (progress display)."""
CHATBOT_FAILURES = (
    FailureCause.CRASH,
    FailureCause.TIMEOUT,
    FailureCause.BAD_PAYLOAD,
    FailureCause.TOO_LARGE,
)
"""Failures that end a thread: the chatbot is down or answers garbage."""


class SharedState:
    """The one state every thread shares: the run's ``AdversarialResult`` (tests and
    observations so far), saved atomically to ``<run>/adversarial.json`` on every change.
    Threads run on one event loop and ``add`` never awaits, so no lock is needed."""

    def __init__(self, result: AdversarialResult, store: RunStore, on_test: OnTest | None = None):
        self.result = result
        self.store = store
        self.on_test = on_test

    @property
    def observations(self) -> list[Observation]:
        """Every observation shared so far, oldest first."""
        return self.result.observations

    def add(self, test: AdversarialTest) -> None:
        """Record a finished test (replacing an earlier one of the same weakness and
        round, on resume), share its observations and save."""
        self.result.tests = [
            t for t in self.result.tests if (t.weakness, t.round) != (test.weakness, test.round)
        ]
        self.result.tests.append(test)
        self.result.observations.extend(
            Observation(weakness=test.weakness, round=test.round, text=text)
            for text in test.observations
        )
        self.save()
        if self.on_test is not None:
            self.on_test(test)

    def save(self) -> None:
        """Write ``results/adversarial.json`` atomically."""
        self.store.write_result(Slot.RESULTS, ADVERSARIAL, self.result)


@dataclass(frozen=True)
class ThreadContext:
    """What every thread needs: the model (attacker, user, judge), the rubric, the shared
    connector and chatbot description, ``rounds`` (tests per weakness at most),
    ``reply_timeout`` (seconds per chatbot reply) and the shared state."""

    model: Model
    rubric: Rubric
    connector: Connector
    chatbot: ChatbotInfo
    rounds: int
    reply_timeout: float
    state: SharedState
    stop: Callable[[], bool] = lambda: False
    """Once true, no thread starts another test (the runner's stop request)."""


def conversation_id(weakness: str, round_: int) -> str:
    """The record id of ``weakness``'s test in round ``round_`` (0-based): ``<id>/round-N``."""
    return f"{weakness}/round-{round_ + 1}"


def tracker_of(tests: list[AdversarialTest]) -> DifficultyTracker:
    """A thread's difficulty rebuilt from its finished tests (on resume)."""
    tracker = DifficultyTracker()
    for test in tests:
        if test.score is not None:
            tracker.observe(test.score)
    return tracker


def thread_finished(tests: list[AdversarialTest], rounds: int, tracker: DifficultyTracker) -> bool:
    """Whether a thread with ``tests`` is done: all rounds, a chatbot failure, or converged."""
    if len(tests) >= rounds:
        return True
    if tests and tests[-1].status == "chatbot_failure":
        return True
    return bool(tests) and tests[-1].score is not None and tracker.converged


async def run_thread(weakness: Weakness, context: ThreadContext) -> list[AdversarialTest]:
    """Test ``weakness`` round after round (continuing from the tests already in the
    state) until the thread is finished; return its tests. Never raises for the chatbot or
    the judge; raises ``BudgetExceeded``."""
    tests = context.state.result.tests_of(weakness.id)
    tracker = tracker_of(tests)
    while not thread_finished(tests, context.rounds, tracker) and not context.stop():
        test = await run_test(weakness, len(tests), tracker.difficulty, tests, context)
        if test.score is not None:
            test.next_difficulty = round(tracker.observe(test.score), 4)
        else:  # unscored: the difficulty stays
            test.next_difficulty = round(tracker.difficulty, 4)
        context.state.add(test)
        tests = [*tests, test]
    return tests


async def run_test(
    weakness: Weakness,
    round_: int,
    difficulty: float,
    history: list[AdversarialTest],
    context: ThreadContext,
) -> AdversarialTest:
    """One test: plan, converse (the record is written to the run), judge."""
    meter = Meter()
    started = time.perf_counter()
    base = AdversarialTest(
        weakness=weakness.id, round=round_, difficulty=round(difficulty, 4), status="unscored"
    )
    try:
        plan = await plan_test(
            context.model, weakness, difficulty, history, context.state.observations,
            context.chatbot, meter,
        )  # fmt: skip
    except ModelError as exc:
        return _finish(base, meter, started, reason=f"the attacker failed: {exc}")
    base.plan = plan
    record = await _converse(weakness, round_, difficulty, plan, context, meter)
    context.state.store.write(record)
    base.conversation_id = record.id
    base.turns = sum(t.role == "user" for t in record.turns)
    failure = _chatbot_failure(record)
    if failure is not None:
        base.status, base.chatbot_failure = "chatbot_failure", failure
        return _finish(base, meter, started, reason=f"the chatbot failed: {failure.message}")
    if record.errors and record.errors[-1].code == ErrorCode.SIMULATOR_ERROR:
        return _finish(base, meter, started, reason=record.errors[-1].message)
    judgement = await judge_test(context.model, context.rubric, plan, record, meter)
    base.criteria, base.observations = judgement.criteria, judgement.observations
    if judgement.scored:
        base.status, base.score = "scored", judgement.score
    return _finish(base, meter, started, reason=judgement.reason)


async def _converse(
    weakness: Weakness,
    round_: int,
    difficulty: float,
    plan: TestPlan,
    context: ThreadContext,
    meter: Meter,
) -> ConversationRecord:
    spec = ConversationSpec(
        id=conversation_id(weakness.id, round_),
        profile=f"adversarial/{weakness.id}",
        index=round_,
        role=plan.persona,
        goals=(plan.goal,),
        stop=StopCondition(kind="steps", steps=plan.turn_limit),
        fallback=context.chatbot.fallback,
        chatbot=context.chatbot,
        settings={"weakness": weakness.id, "difficulty": round(difficulty, 4), "tone": plan.tone},
    )
    limits = RunnerLimits(max_turns=plan.turn_limit, reply_timeout=context.reply_timeout)
    user = AdversarialUser(plan, context.model, meter)
    return await run_conversation(
        spec, context.connector, user, simulator_name="adversarial", meter=meter, limits=limits
    )


def _chatbot_failure(record: ConversationRecord) -> ChatbotFailureInfo | None:
    for error in record.errors:
        if error.cause in CHATBOT_FAILURES:
            return ChatbotFailureInfo(
                code=int(error.code),
                cause=error.cause.value if error.cause is not None else None,
                message=error.message,
                turn=error.turn,
            )
    return None


def _finish(
    test: AdversarialTest, meter: Meter, started: float, reason: str | None = None
) -> AdversarialTest:
    test.reason = reason if test.status != "scored" else None
    usage = ModelUsage()
    for part in meter.usage.values():
        usage.calls += part.calls
        usage.prompt_tokens += part.prompt_tokens
        usage.completion_tokens += part.completion_tokens
        usage.cost += part.cost
    test.usage = usage
    test.duration = round(time.perf_counter() - started, 4)
    return test


async def run_threads(
    weaknesses: list[Weakness], context: ThreadContext, concurrency: int
) -> list[list[AdversarialTest]]:
    """Every weakness's thread, at most ``concurrency`` at once; results in weakness order."""
    slots = asyncio.Semaphore(concurrency)

    async def bounded(weakness: Weakness) -> list[AdversarialTest]:
        async with slots:
            return await run_thread(weakness, context)

    return list(await asyncio.gather(*(bounded(w) for w in weaknesses)))
