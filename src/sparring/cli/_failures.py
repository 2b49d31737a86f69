"""Why a run failed, on the console: the first failures with conversation, turn and reason.

``run``, ``check`` and ``simulate`` end with their verdict (``FAIL: 1 rule failed: …``);
before it, ``print_first_failures`` lists up to ``SHOWN`` failures, one line each::

    first failures (2 of 6):
      ✗ confirmation_mismatch  book a room/0  turn 7: room: the user gave 'suite', …
      ✗ goal_not_completed  book a room/1  turn 15: 1 goals left to complete: …

Rule failures come first (in rule order), then the generic failures the conversations
carry (``goal_not_completed``, ``no_response``…); ``simulate`` has only the latter, read
from its records. Every piece of text comes from a chatbot, a user file or a model, so it
goes through ``sparring._terminal.escape``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sparring._terminal import escape
from sparring.check import CheckReport
from sparring.cli._app import console
from sparring.conversations import ConversationRecord, ErrorCode
from sparring.results import Verdict

SHOWN = 5
"""Failures listed before the verdict."""
_WIDTH = 150


@dataclass(frozen=True)
class Failure:
    """One failure: the rule or generic failure's name, the conversation(s), the first
    0-based turn involved (``None``: not tied to a turn) and why."""

    rule: str
    conversation: str
    turn: int | None
    reason: str


def check_failures(report: CheckReport) -> list[Failure]:
    """Every failed or erring verdict of ``report``: rules first, then generic failures."""
    verdicts = [v for r in report.results for v in r.verdicts if v.status in ("fail", "error")]
    verdicts += [v for r in report.generic for v in r.verdicts if v.status == "fail"]
    return [_from_verdict(v) for v in verdicts]


def record_failures(records: Iterable[ConversationRecord]) -> list[Failure]:
    """The generic failures the conversations carry (their ``errors``), in order."""
    return [
        Failure(_code_name(error.code), record.id, error.turn, error.message)
        for record in records
        for error in record.errors
    ]


def print_first_failures(failures: list[Failure], shown: int = SHOWN) -> None:
    """Print the first ``shown`` failures (none: nothing is printed)."""
    if not failures:
        return
    console.print(f"[bold]first failures[/] ({min(shown, len(failures))} of {len(failures)}):")
    for failure in failures[:shown]:
        turn = f"turn {failure.turn}: " if failure.turn is not None else ""
        turn = "" if failure.reason.startswith(turn.strip()) else turn
        console.print(
            f"  [bold red]✗[/] [bold]{escape(failure.rule)}[/]  "
            f"[cyan]{escape(_short(failure.conversation, 60))}[/]  "
            f"{escape(turn + _short(failure.reason, _WIDTH))}",
            highlight=False,
            soft_wrap=True,
        )


def _from_verdict(verdict: Verdict) -> Failure:
    reasons = [verdict.message] if verdict.message else []
    reasons += [e.reason for e in verdict.evidence if e.reason]
    reasons += [verdict.reason] if verdict.reason else []
    reason = next((r for r in reasons if r != "oracle violated"), reasons[0] if reasons else "")
    turn = verdict.turns[0] if verdict.turns else None
    return Failure(verdict.rule, " × ".join(verdict.conversations), turn, reason)


def _code_name(code: int) -> str:
    known = ErrorCode._value2member_map_.get(code)
    return ErrorCode(code).rule_name if known is not None else f"error_{code}"


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
