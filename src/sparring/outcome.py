"""What a run came to: its status (``JobStatus``, kept current in the manifest) and the one
outcome of its job as CI and the dashboard see it: a verdict, its reasons and the exit
code. Every job (check, probes, metamorphic, mutate, run, simulate…) decides its outcome
here, and the report reads the run's stored verdict instead of computing one.

Verdicts and exit codes (the CLI's contract; 2 stays for bad input, raised before any
work):

- ``pass`` → 0: the job judged something and nothing failed;
- ``recorded`` → 0: the job did its work and judged nothing (``simulate``, the imports:
  conversations recorded) — a verdict is a claim about the chatbot, and this makes none,
  so it is never shown as a pass (the report says *no verdict* until a check judges it);
- ``fail`` → 1: a rule, probe, relation or gate failed;
- ``no_verdict`` → 3: nothing could be judged (every verdict unscored or not applicable,
  nothing tested beyond the greeting) — never reported as a pass;
- ``incomplete`` → 3: the job was stopped, or the run lacks planned items, and what exists
  passed — resumable, never a pass;
- ``error`` → 1: the job could not test (the chatbot did not answer, every conversation
  failed).

Beyond verdicts: 130 Ctrl-C, 143 SIGTERM (both stop the job as ``stopped``, resumable),
70 an internal error of sparring (a bug; the message says so).

A neutral module: the run's manifest (``sparring.conversations``) stores both, the contract
(``sparring.jobs``) hands them on to the jobs (``sparring.jobs.outcome`` is this module).
"""

from __future__ import annotations

from collections.abc import Iterable, Sized
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class JobStatus(StrEnum):
    """The status of a job, kept current in its run's manifest (``RunManifest.status``):
    ``running`` while the job works; then ``finished`` (it did all it planned), ``failed``
    (it raised: bad input found late, our own failure) or ``stopped`` (a stop request or
    Ctrl-C ended it with what finished kept; ``resume`` finishes it)."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"


Verdict = Literal["recorded", "pass", "fail", "no_verdict", "incomplete", "error"]

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_BAD_INPUT = 2
EXIT_NO_VERDICT = 3
EXIT_INTERRUPTED = 130
"""Ctrl-C in a command that cannot record a stop (128 + SIGINT, the shell's convention)."""
EXIT_TERMINATED = 143
"""SIGTERM (128 + 15): the job stopped as on Ctrl-C (status ``stopped``, resumable)."""
EXIT_INTERNAL_ERROR = 70
"""sparring itself failed (a bug: an exception it did not expect; ``EX_SOFTWARE`` of
sysexits.h), so CI never reads sparring's crash as the chatbot's FAIL (1)."""

_EXIT_CODES: dict[str, int] = {
    "recorded": EXIT_PASS,
    "pass": EXIT_PASS,
    "fail": EXIT_FAIL,
    "no_verdict": EXIT_NO_VERDICT,
    "incomplete": EXIT_NO_VERDICT,
    "error": EXIT_FAIL,
}
_STATUS = {
    "recorded": "RECORDED",
    "pass": "PASS",
    "fail": "FAIL",
    "no_verdict": "NO VERDICT",
    "incomplete": "INCOMPLETE",
    "error": "ERROR",
}
_SEVERITY = ("recorded", "pass", "no_verdict", "incomplete", "error", "fail")
"""From mildest to gravest: what ``combine`` keeps."""


class Outcome(BaseModel):
    """A job's verdict and the reasons for it (one short sentence each)."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    reasons: list[str] = Field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 pass or recorded, 1 fail or error, 3 no verdict or incomplete."""
        return _EXIT_CODES[self.verdict]

    @property
    def code(self) -> int:
        """``exit_code`` (the name check's outcome had)."""
        return self.exit_code

    @property
    def status(self) -> str:
        """The verdict as the console prints it: ``PASS``, ``FAIL``, ``NO VERDICT``,
        ``INCOMPLETE``, ``ERROR``, ``RECORDED``."""
        return _STATUS[self.verdict]

    @property
    def summary(self) -> str:
        """The reasons on one line."""
        return "; ".join(self.reasons)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def passed(*reasons: str) -> Outcome:
    return Outcome(verdict="pass", reasons=list(reasons))


def recorded(*reasons: str) -> Outcome:
    """The outcome of a job that judged nothing (conversations recorded): exit 0, never a
    pass."""
    return Outcome(verdict="recorded", reasons=list(reasons))


def failed(*reasons: str) -> Outcome:
    return Outcome(verdict="fail", reasons=list(reasons))


def no_verdict(*reasons: str) -> Outcome:
    return Outcome(verdict="no_verdict", reasons=list(reasons))


def incomplete(*reasons: str) -> Outcome:
    return Outcome(verdict="incomplete", reasons=list(reasons))


def error(*reasons: str) -> Outcome:
    return Outcome(verdict="error", reasons=list(reasons))


def stopped(result: Outcome | None) -> Outcome:
    """The outcome of a job ended by a stop request: a failure already found stays a
    failure; anything else is ``incomplete`` (resumable), with the job's reasons kept."""
    reasons = ["stopped before the end; resume the run to finish it"]
    if result is not None and result.verdict in ("fail", "error"):
        return Outcome(verdict=result.verdict, reasons=[*result.reasons, *reasons])
    return incomplete(*reasons, *(result.reasons if result is not None else []))


def combine(outcomes: Iterable[Outcome]) -> Outcome | None:
    """One outcome for several (a run judged by rules, probes and relations): the gravest
    verdict (fail > error > incomplete > no verdict > pass > recorded), every reason kept in
    order but a ``recorded`` one's once something was judged (its "none judged" no longer
    holds); ``None`` for none."""
    found = list(outcomes)
    if not found:
        return None
    verdict = max((o.verdict for o in found), key=_SEVERITY.index)
    said = [o for o in found if o.verdict != "recorded"] if verdict != "recorded" else found
    return Outcome(verdict=verdict, reasons=[r for o in said for r in o.reasons])


def input_exit_code(errors: Sized) -> int:
    """The exit code of checking user files (``validate``): 2 (bad input) when there is
    any error, else 0."""
    return EXIT_BAD_INPUT if len(errors) else EXIT_PASS


def exit_code(verdict: str) -> int:
    """The exit code of a stored verdict (``manifest.json``'s ``verdict``). Raises
    ``KeyError`` for an unknown one."""
    return _EXIT_CODES[verdict]


__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAIL",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_NO_VERDICT",
    "EXIT_PASS",
    "EXIT_TERMINATED",
    "Outcome",
    "Verdict",
    "combine",
    "error",
    "exit_code",
    "failed",
    "incomplete",
    "input_exit_code",
    "no_verdict",
    "passed",
    "recorded",
    "stopped",
]
