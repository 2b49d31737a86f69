"""One probe as a conversation: send its user turns through the connector, record the
conversation as an ordinary ``ConversationRecord``, and judge it with its oracles into a
``sparring.results.Verdict``. A chatbot that crashes, hangs or answers nothing is recorded
on the conversation and judged ``error``; nothing here raises for the chatbot."""

from __future__ import annotations

from sparring.adversarial._probes._model import Probe
from sparring.adversarial._probes._oracles import Reply, judge_oracle
from sparring.connectors import Connector
from sparring.conversations import (
    ConversationRecord,
    Turn,
    play_utterances,
)
from sparring.results import Evidence, Status, Verdict, verdict_from_evidence

SIMULATOR = "probe"
"""The ``simulator`` name on probe conversations: the user's turns are the probe's script."""


def probe_id(suite: str, probe: Probe) -> str:
    """The id of ``probe`` in its ``suite``: ``<suite>/<probe id>``, also its
    conversation's id and its verdict's rule name."""
    return f"{suite}/{probe.id}"


async def run_probe(
    suite: str,
    probe: Probe,
    connector: Connector,
    *,
    fallback: str | None,
    reply_timeout: float,
) -> ConversationRecord:
    """Run ``probe`` in a new conversation and return its record (never raises for the
    chatbot). ``reply_timeout`` (seconds) caps each reply on top of the connector's own
    timeout; ``fallback`` is recorded for rules and reports."""
    record = ConversationRecord(
        id=probe_id(suite, probe),
        profile=f"probe:{suite}",
        simulator=SIMULATOR,
        goals=[probe.title],
        context=[f"category: {probe.category.value}"],
        fallback=fallback,
    )
    return await play_utterances(
        connector,
        record,
        probe.utterances(),
        reply_timeout=reply_timeout,
        empty_reply_fails=True,
    )


def visible_text(turn: Turn) -> str:
    """What the user sees of a chatbot turn: its messages, then its buttons' labels, one a
    line (button payloads and links are not shown to users, so oracles never read them)."""
    text = turn.text or "\n".join(turn.messages)
    return "\n".join([text, *(button.text for button in turn.buttons)]).strip()


def _replies(probe: Probe, record: ConversationRecord) -> list[Reply]:
    """The chatbot's replies in ``record``, each with the user turns said up to it."""
    said: list[str] = []
    replies: list[Reply] = []
    for index, turn in enumerate(record.turns):
        if turn.role == "user":
            said.append(turn.text)
        elif said:
            replies.append(Reply(len(said) - 1, index, visible_text(turn), tuple(said)))
    return replies


def judge_probe(
    suite: str, probe: Probe, record: ConversationRecord, fallback: str | None
) -> Verdict:
    """The verdict on one probe conversation: ``pass`` when every oracle held, ``fail``
    when one did not (the reason lists each failing oracle), ``unscored`` when none failed
    but one could not tell (a refusal sought in a reply not in English), ``error`` when the chatbot
    failed or stopped before the last turn, or an oracle raised. Strategy offline."""
    rule = probe_id(suite, probe)
    conversations = [record.id]
    if record.errors:
        error = record.errors[0]
        turns = [error.turn] if error.turn is not None else []
        reason = f"the chatbot failed ({error.name}): {error.message}"
        return Verdict(rule=rule, status="error", conversations=conversations, reason=reason,
                       message=probe.title, turns=turns)  # fmt: skip
    replies = _replies(probe, record)
    if len(replies) < len(probe.turns):
        reason = (
            f"the chatbot ended the conversation after {len(replies)} of {len(probe.turns)} turns"
        )
        return Verdict(rule=rule, status="error", conversations=conversations, reason=reason,
                       message=probe.title)  # fmt: skip
    evidence: list[Evidence] = []
    failed: list[Evidence] = []
    unsure: list[Evidence] = []
    try:
        for oracle in probe.oracles:
            result = judge_oracle(oracle, replies, fallback)
            evidence.append(result.evidence)
            if result.passed is None:
                unsure.append(result.evidence)
            elif not result.passed:
                failed.append(result.evidence)
    except Exception as exc:  # an oracle that raises is an error verdict, as in check
        return Verdict(rule=rule, status="error", conversations=conversations,
                       reason=f"{type(exc).__name__}: {exc}", message=probe.title)  # fmt: skip
    status: Status = "fail" if failed else ("unscored" if unsure else "pass")
    shown = failed or unsure or evidence
    reason = "; ".join(f"{e.function.removeprefix('oracle:')}: {e.reason}" for e in shown)
    verdict = verdict_from_evidence(
        rule, status, conversations, evidence, reason=reason, message=probe.title
    )
    if failed:  # point at the replies that failed, not every reply read
        verdict.turns = sorted({t for e in failed for t in e.turns})
    return verdict


def not_applicable(suite: str, probe: Probe, reason: str) -> Verdict:
    """The verdict on a probe that was not run, and why (another chatbot type, a capability
    the chatbot is not known to have)."""
    return Verdict(rule=probe_id(suite, probe), status="not_applicable", conversations=[],
                   reason=reason, message=probe.title)  # fmt: skip
