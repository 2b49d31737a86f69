"""The conversation runner: one simulated user against the chatbot under test.

Drives the turn loop, applies the stop condition, detects the generic failures with
SENSEI's codes (500 no response, 504 timeout, 1000 loop limit, 1001 goals not completed,
2000/2001 cost) plus ours (1002 the chatbot repeats the same reply, 1003 the user
simulator failed, 1004 a reply shows an unfilled slot such as "Thanks None!"), and
extracts the output data at the end. It never raises for a failing chatbot: the failure
is recorded on the conversation. Every record gets the reason its conversation ended
(``FinishReason``, ChatChecker's names): the user or the chatbot (``Reply.ended``) ended
it, the turn cap, or the failure that stopped it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from sparring._window import ends
from sparring.connectors import Connector, Conversation, Reply, greeting_of, within_timeout
from sparring.conversations import (
    ConversationRecord,
    ErrorCode,
    FailureCause,
    FinishReason,
    Turn,
    add_reply,
    record_failure,
)
from sparring.dialogue_acts import DialogueAct, classify_dialogue_act
from sparring.errors import BudgetExceeded, ChatbotFailure, ModelError
from sparring.fallback import FallbackConfig, is_fallback
from sparring.leaks import template_leak
from sparring.llm import Meter, Model
from sparring.profiles import read_output_type, value_kind
from sparring.simulate._base import ChangesGoals, Exchange, ExplainsGoals, UserSimulator
from sparring.simulate._extract import extract_outputs_offline
from sparring.simulate._extract_answers import QUESTION_OF_KIND
from sparring.simulate._extract_llm import extract_outputs_llm
from sparring.simulate._matching import overlap
from sparring.simulate._similarity import RepetitionTracker
from sparring.simulate._spec import ConversationSpec, OutputSpec


@dataclass(frozen=True)
class RunnerLimits:
    """Limits for one conversation.

    ``max_turns``: hard cap on user turns for any goal style (code 1000);
    ``repeat_limit``: identical chatbot replies in a row that end it (code 1002, 0 = off);
    ``reply_timeout``: seconds to wait for one reply on top of the connector's own timeout;
    ``fallback_threshold``: similarity (0..1) above which a reply counts as the fallback;
    ``template_check``: record the first reply that shows an unfilled slot (code 1004,
    ``_leaks``).
    """

    max_turns: int = 40
    repeat_limit: int = 3
    reply_timeout: float = 60.0
    fallback_threshold: float = 0.8
    template_check: bool = True


def _now() -> datetime:
    return datetime.now(UTC)


class _Dialogue:
    """Mutable state of one running conversation; becomes a ``ConversationRecord``."""

    def __init__(self, spec: ConversationSpec, simulator_name: str) -> None:
        self.record = ConversationRecord(
            id=spec.id,
            profile=spec.profile,
            profile_path=spec.profile_path,
            index=spec.index,
            seed=spec.seed,
            plan=spec.plan,
            repeat=spec.repeat,
            simulator=simulator_name,
            language=spec.language,
            role=spec.role,
            context=list(spec.context),
            goals=list(spec.goals),
            goal_templates=list(spec.goal_templates),
            variables=dict(spec.variables),
            interaction_styles=list(spec.interaction_styles),
            settings=dict(spec.settings),
            fallback=spec.fallback,
            persona=spec.persona.name if spec.persona is not None else None,
            persona_path=spec.persona_path,
            started_at=_now(),
        )
        self.clock = time.perf_counter()

    def fail(self, code: ErrorCode, message: str, cause: FailureCause | None = None) -> None:
        record_failure(self.record, code, message, cause)

    def end(self, reason: FinishReason | None) -> None:
        """Record why the conversation ended; the first reason given stands."""
        if self.record.finish_reason is None:
            self.record.finish_reason = reason

    def add_user(self, text: str) -> None:
        self.record.turns.append(Turn(role="user", text=text, timestamp=_now()))

    def add_reply(self, reply: Reply) -> None:
        add_reply(self.record, reply)


async def run_conversation(
    spec: ConversationSpec,
    connector: Connector,
    simulator: UserSimulator,
    *,
    simulator_name: str = "agenda",
    meter: Meter | None = None,
    extraction_model: Model | None = None,
    limits: RunnerLimits | None = None,
) -> ConversationRecord:
    """Run one conversation to its end and return its record (never raises for the bot).

    The user simulator speaks first unless the profile says the chatbot starts
    (``is_starter``) and the connector's conversation opened with a greeting.
    """
    limits = limits or RunnerLimits()
    dialogue = _Dialogue(spec, simulator_name)
    conversation: Conversation | None = None
    try:
        conversation = await connector.open()
        await _turn_loop(spec, conversation, simulator, dialogue, limits)
    except ChatbotFailure as exc:
        dialogue.fail(ErrorCode(exc.code), str(exc) or exc.name, FailureCause(exc.cause))
    except BudgetExceeded as exc:
        code = (
            ErrorCode.EXCEEDED_MAX_COST
            if exc.scope == "run"
            else ErrorCode.EXCEEDED_CONVERSATION_COST
        )
        dialogue.fail(code, str(exc))
    except ModelError as exc:
        dialogue.fail(ErrorCode.SIMULATOR_ERROR, f"user simulator failed: {exc}")
    finally:
        if conversation is not None:
            await conversation.close()
    await _finish(spec, simulator, dialogue, meter, extraction_model)
    return dialogue.record


async def _turn_loop(
    spec: ConversationSpec,
    conversation: Conversation,
    simulator: UserSimulator,
    dialogue: _Dialogue,
    limits: RunnerLimits,
) -> None:
    """Alternate user and chatbot turns until the simulator, a limit or a failure ends it."""
    reply = greeting_of(conversation) if spec.is_starter else None
    if reply is not None:
        dialogue.add_reply(reply)
    repeats = RepetitionTracker(limits.repeat_limit, 1.0) if limits.repeat_limit else None
    fallback, fallbacks, user_turns = False, 0, 0
    act = _act(dialogue, reply, fallback=False) if reply is not None else None
    cap = _turn_cap(spec, limits)
    while True:
        if user_turns >= cap:
            if isinstance(simulator, ExplainsGoals):
                simulator.observe(Exchange(dialogue.record.turns, reply, fallback, fallbacks, act))
            _at_cap(spec, dialogue, limits, user_turns)
            dialogue.end(FinishReason.MAX_TURNS_REACHED)
            return
        exchange = Exchange(dialogue.record.turns, reply, fallback, fallbacks, act)
        utterance = await simulator.next_utterance(exchange)
        if utterance is None:
            dialogue.record.ended_by_user = True
            dialogue.end(FinishReason.USER_ENDED)
            return
        dialogue.add_user(utterance)
        user_turns += 1
        reply = await _send(conversation, utterance, limits)
        dialogue.add_reply(reply)
        if reply.ended:  # the chatbot closed the chat (a farewell, possibly empty)
            dialogue.end(FinishReason.CHATBOT_ENDED)
            return
        if not reply.messages and not reply.buttons:
            dialogue.fail(
                ErrorCode.NO_RESPONSE,
                "the chatbot returned an empty reply",
                FailureCause.EMPTY_REPLY,
            )
            return
        check_leak = limits.template_check and not any(
            e.code == ErrorCode.TEMPLATE_LEAK for e in dialogue.record.errors
        )
        seen = await asyncio.to_thread(_analyse, spec, reply, limits, repeats, check_leak)
        if seen.leak is not None:
            message = f"the chatbot's reply shows an unfilled slot {seen.leak!r}: "
            dialogue.fail(ErrorCode.TEMPLATE_LEAK, message + repr(reply.text[:160]))
        fallback, act = seen.fallback, seen.act
        fallbacks = fallbacks + 1 if fallback else 0
        dialogue.record.turns[-1].dialogue_act = act.value
        if seen.repeated:
            dialogue.fail(
                ErrorCode.REPEATED_REPLY,
                f"the chatbot gave the same reply {limits.repeat_limit} times in a row",
            )
            return


@dataclass(frozen=True)
class _Seen:
    """What the runner reads in one reply: the unfilled slot it shows (``leak``), whether
    it is the ``fallback``, its dialogue ``act``, whether it ends a run of ``repeated``
    replies."""

    leak: str | None
    fallback: bool
    act: DialogueAct
    repeated: bool


def _analyse(
    spec: ConversationSpec,
    reply: Reply,
    limits: RunnerLimits,
    repeats: RepetitionTracker | None,
    check_leak: bool,
) -> _Seen:
    """The runner's analyses of ``reply``, run in a worker thread (``asyncio.to_thread``)
    so that the event loop keeps serving the other conversations' replies and timeouts.
    Each reads a bounded part of a long reply (``sparring._window``,
    ``dialogue_acts.analysis_window``): the unfilled slot is looked for at its ends; the
    fallback (``sparring.fallback``: the spec's phrase or a generic one; repeats of it are
    not a loop: the user simulator rephrases, then changes topic) likewise."""
    leak = template_leak(ends(reply.text)) if check_leak else None
    config = FallbackConfig.of(spec.fallback, threshold=limits.fallback_threshold)
    fallback = is_fallback(reply.text, config) is not None
    act = classify_dialogue_act(reply.text, [b.text for b in reply.buttons], fallback=fallback)
    repeated = repeats is not None and not fallback and repeats.observe(reply.text)
    return _Seen(leak, fallback, act, repeated)


def _act(dialogue: _Dialogue, reply: Reply, *, fallback: bool) -> DialogueAct:
    """The dialogue act of ``reply``, recorded on its turn (the last one recorded)."""
    act = classify_dialogue_act(reply.text, [b.text for b in reply.buttons], fallback=fallback)
    dialogue.record.turns[-1].dialogue_act = act.value
    return act


def _turn_cap(spec: ConversationSpec, limits: RunnerLimits) -> int:
    if spec.stop.kind == "steps" and spec.stop.steps is not None:
        return min(spec.stop.steps, limits.max_turns)
    if spec.stop.kind == "all_answered" and spec.stop.limit is not None:
        return min(spec.stop.limit, limits.max_turns)
    return limits.max_turns


def _at_cap(
    spec: ConversationSpec,
    dialogue: _Dialogue,
    limits: RunnerLimits,
    user_turns: int,
) -> None:
    """Record why the cap was reached: the loop limit, or (checked later) goals left."""
    capped_by_profile = (spec.stop.kind == "steps" and spec.stop.steps == user_turns) or (
        spec.stop.kind == "all_answered" and spec.stop.limit == user_turns
    )
    if not capped_by_profile:
        dialogue.fail(
            ErrorCode.EXCEEDED_LOOP_LIMIT, f"Exceeded loop limit of {limits.max_turns} turns"
        )


async def _send(conversation: Conversation, utterance: str, limits: RunnerLimits) -> Reply:
    """A safety net over the connector's own timeout, for plug-in connectors without one."""
    return await within_timeout(conversation.send(utterance), limits.reply_timeout)


async def _finish(
    spec: ConversationSpec,
    simulator: UserSimulator,
    dialogue: _Dialogue,
    meter: Meter | None,
    extraction_model: Model | None,
) -> None:
    """Extract outputs, check goals, close the record's timing and usage."""
    record = dialogue.record
    outputs = {o.name: o for o in spec.outputs}
    if outputs and record.turns:
        if extraction_model is not None:
            try:
                record.outputs = await extract_outputs_llm(
                    outputs, record.turns, extraction_model, meter
                )
            except BudgetExceeded as exc:
                record.notes.append(f"output extraction skipped: {exc}")
        else:
            record.outputs = extract_outputs_offline(outputs, record.turns, fallback=spec.fallback)
    if spec.stop.kind == "all_answered" and not record.errors:
        missing = [
            o
            for n, o in outputs.items()
            if record.outputs.get(n) is None or record.outputs[n].value is None
        ]
        left = simulator.goals_left() + len(missing)
        if left:
            message = _left_message(simulator, missing, record.turns, left)
            dialogue.fail(ErrorCode.GOAL_NOT_COMPLETED, message)
    if isinstance(simulator, ChangesGoals) and simulator.changed_variables:
        record.variables.update(simulator.changed_variables)
    record.notes.extend(simulator.notes)
    record.ended_at = _now()
    record.duration = round(time.perf_counter() - dialogue.clock, 6)
    if meter is not None:
        record.usage = {k: v.model_copy() for k, v in meter.usage.items()}


def _left_message(
    simulator: UserSimulator, missing: list[OutputSpec], turns: list[Turn], left: int
) -> str:
    """``goal_not_completed``'s message: how many are left, then each goal and output
    that is missing and why (where the simulator can tell)."""
    parts: list[str] = []
    if isinstance(simulator, ExplainsGoals):
        parts += [f"goal {goal!r}: {why}" for goal, why in simulator.goal_failures().items()]
    parts += [f"output '{o.name}': {_why_missing(o, turns)}" for o in missing]
    head = f"{left} goals left to complete"
    return f"{head}: " + "; ".join(parts) + "." if parts else head + "."


def _why_missing(output: OutputSpec, turns: list[Turn]) -> str:
    """Why an output was not found: no value of its type in the replies after the user
    turn that asked for it ("no money value in the chatbot's replies after 'how much is
    it?'"), or in any reply when no user turn named it."""
    wanted = f"{output.name.replace('_', ' ')} {output.description}"
    kind = value_kind(read_output_type(output.type))
    cue = QUESTION_OF_KIND.get(kind)
    asked = [
        t.text
        for t in turns
        if t.role == "user" and (overlap(t.text, wanted) >= 0.5 or (cue and cue.search(t.text)))
    ]
    label = "value" if kind == "string" else f"{kind} value"
    if asked:
        return f"no {label} in the chatbot's replies after {asked[-1]!r}"
    return f"no {label} in the chatbot's replies (no user turn asked for it)"
