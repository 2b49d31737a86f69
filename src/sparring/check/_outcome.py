"""The outcome of a check as CI sees it: one exit code and one line saying why.

- ``0`` (PASS): no active rule failed or raised, at least one concluded something, and
  (unless generic failures are left out) no conversation carries a generic failure;
- ``1`` (FAIL): an active rule failed or raised an error, or a conversation carries a
  generic failure (no response, timeout, loop limit, goals not completed, …: SENSEI's
  generic rows) and they are counted;
- ``3`` (NO VERDICT): every verdict of every rule is not applicable or unscored, e.g. all
  rules are model-backed and no model is configured, or their filters matched nothing;
  or the run is incomplete (it holds fewer conversations than it planned:
  ``conversations.incomplete_run``), whatever the records that exist passed. Never
  reported as a pass. A failure found in an incomplete run is still a FAIL, with the
  missing conversations named.

Exit code 2 stays for bad input (rules, files), raised before anything is checked.
"""

from __future__ import annotations

from sparring.check._verdicts import CheckReport
from sparring.conversations import Incomplete
from sparring.outcome import EXIT_FAIL, EXIT_NO_VERDICT, EXIT_PASS, Outcome

__all__ = ["EXIT_FAIL", "EXIT_NO_VERDICT", "EXIT_PASS", "Outcome", "outcome"]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def outcome(
    report: CheckReport, *, count_generic: bool = True, incomplete: Incomplete | None = None
) -> Outcome:
    """The exit decision for ``report`` (see the module docstring); with
    ``count_generic=False`` generic failures are reported but do not fail the check;
    ``incomplete`` (the checked run's missing conversations) turns a pass into NO VERDICT."""
    failed = [r.rule for r in report.results if r.counts.fail]
    raised = [r.rule for r in report.results if r.counts.error]
    generic = [r for r in report.generic if r.counts.fail]
    parts = []
    if failed:
        parts.append(f"{_plural(len(failed), 'rule')} failed: {', '.join(failed)}")
    if raised:
        parts.append(f"{_plural(len(raised), 'rule')} raised errors: {', '.join(raised)}")
    if generic:
        detail = ", ".join(f"{r.rule} {r.counts.fail}" for r in generic)
        ignored = "" if count_generic else " (not counted: --no-generic)"
        parts.append(f"generic failures: {detail}{ignored}")
    if incomplete is not None:
        parts.append(incomplete.reason)
    if failed or raised or (generic and count_generic):
        return Outcome(verdict="fail", reasons=parts)
    if incomplete is not None:
        return Outcome(verdict="no_verdict", reasons=parts)
    if report.inconclusive:
        why = "every verdict of every rule is not applicable or unscored"
        return Outcome(verdict="no_verdict", reasons=[why, *parts])
    total = sum(r.counts.passed for r in report.results)
    return Outcome(verdict="pass", reasons=[f"{_plural(total, 'check')} passed", *parts])
