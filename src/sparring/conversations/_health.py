"""Run health: whether a finished run can be trusted, as a pure function over its records.

A run where the chatbot could not answer tells nothing about the chatbot's behaviour, so
``simulate``, ``chat`` and ``explore`` must not exit 0 for it (nor ``run`` go on testing).
A run is *unhealthy* when every conversation failed (any generic failure), or when more
than ``max_chatbot_failure_share`` of its conversations carry a chatbot failure: no
response (500) or a timeout (504), the two codes that mean the chatbot did not answer
(SENSEI's meaning of them). The cause quoted is the most common failure message, e.g.
"POST http://localhost:5005/webhooks/rest/webhook failed: All connection attempts failed".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sparring.conversations._records import EMPTY_RESPONSE, ConversationRecord, ErrorCode
from sparring.conversations._sensei import SENSEI_SERVER_ERROR

CHATBOT_FAILURE_CODES = frozenset({int(ErrorCode.NO_RESPONSE), int(ErrorCode.TIMEOUT)})
"""Failure codes that mean the chatbot did not answer."""
DEFAULT_MAX_CHATBOT_FAILURE_SHARE = 0.5
"""Above this share of conversations with chatbot failures, a run is unhealthy."""


@dataclass(frozen=True)
class RunHealth:
    """The health of a run.

    ``conversations`` counted, ``failed`` with any generic failure, ``chatbot_failed`` with
    a chatbot failure (500/504); ``cause`` is the most common failure message (``None``
    when nothing failed); ``problem`` says why the run is unhealthy, ``None`` when healthy.
    """

    conversations: int
    failed: int
    chatbot_failed: int
    cause: str | None
    problem: str | None

    @property
    def healthy(self) -> bool:
        return self.problem is None


def assess_run(
    records: Iterable[ConversationRecord],
    max_chatbot_failure_share: float = DEFAULT_MAX_CHATBOT_FAILURE_SHARE,
) -> RunHealth:
    """Assess a stream of records (see the module docstring); ``max_chatbot_failure_share``
    is a fraction in [0, 1]. A run without conversations is healthy (nothing was planned)."""
    total = failed = chatbot_failed = 0
    messages: Counter[str] = Counter()
    chatbot_messages: Counter[str] = Counter()
    for record in records:
        total += 1
        failed += bool(record.errors)
        messages.update({e.message for e in record.errors})
        chatbot = {e.message for e in record.errors if e.code in CHATBOT_FAILURE_CODES}
        chatbot_failed += bool(chatbot)
        chatbot_messages.update(chatbot)
    top = chatbot_messages or messages
    cause = top.most_common(1)[0][0] if top else None
    problem = None
    if total and chatbot_failed / total > max_chatbot_failure_share:
        problem = (
            f"{chatbot_failed} of {total} conversations got no answer from the chatbot "
            f"(more than {max_chatbot_failure_share:.0%})"
        )
    elif total and failed == total:
        problem = f"every conversation ({total}) failed"
    return RunHealth(total, failed, chatbot_failed, cause, problem)


def crash_turns(record: ConversationRecord) -> dict[int, str]:
    """The chatbot turns where the chatbot failed, index in ``record.turns`` → reason.

    The one place sparring decides which turn a crash belongs to (the breakdown detectors,
    the statistics and ``import-chatchecker``'s annotations agree through it): an assistant
    turn with no text, messages or buttons; an assistant turn holding SENSEI's failure
    placeholder (``Error: The server did not respond.``); and every 500/504 failure
    recorded at a turn — its own turn when that is the chatbot's, else the chatbot turn
    that never came after it (index ``turn + 1``, which may be ``len(record.turns)``: the
    reply that was never recorded). A failure without a turn belongs after the last turn.
    """
    crashes: dict[int, str] = {}
    for index, turn in enumerate(record.turns):
        if turn.role != "assistant":
            continue
        if turn.sensei_text == EMPTY_RESPONSE:
            crashes[index] = "the chatbot returned an empty reply"
        elif turn.text.strip().startswith(SENSEI_SERVER_ERROR):
            crashes[index] = f"the chatbot failed: {turn.text.strip()}"
    for error in record.errors:
        if int(error.code) not in CHATBOT_FAILURE_CODES:
            continue
        at = error.turn if error.turn is not None else len(record.turns) - 1
        if not (0 <= at < len(record.turns) and record.turns[at].role == "assistant"):
            at += 1
        crashes.setdefault(at, f"the chatbot failed ({int(error.code)}): {error.message}")
    return crashes
