"""When a mutant is killed: from the original's and the mutant's ``CheckReport``s.

The decision, per mutant (SENSEI §7.1's "a mutant is killed when a test fails on it"):

- A rule *fails on a report* when one of its checks has status ``fail``. A check that
  raised (``error``) or could not be judged (``unscored``, ``not_applicable``) says
  nothing about the bot, so it kills nothing (a rule that raises on the mutant is a rule
  bug to fix, not a detected fault).
- A generic failure (crash/no response, timeout, loop limit, goals not completed, …)
  fails when some conversation carries its code; it is named as check names it
  (``goal_not_completed``, ``no_response``, …).
- *False positives* are what already fails on the original: they can never kill.
- A mutant is **killed** by every rule or generic failure that fails on it and is not a
  false positive; with none it is **live**.
- A built mutant whose bot does not answer the reachability probe is killed by
  ``unreachable`` (the original answered, or the job would have stopped first).
- A kill made only by ``timeout`` (a loaded machine causes those on its own), and every
  kill when a model simulates the users, is **confirmed** by a second run of the mutant
  (``_harness.needs_confirmation``): it stays killed only by what failed both times.
- A mutant that could not be built is **stillborn**, and one sparring itself failed on is
  **error**; neither counts in the score (``_result.mutation_score``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparring.check import CheckReport


def failing(report: CheckReport) -> list[str]:
    """The rules and generic failures with at least one ``fail`` verdict, sorted."""
    return sorted({r.rule for r in [*report.results, *report.generic] if r.counts.fail > 0})


@dataclass(frozen=True)
class Kill:
    """The verdict on one mutant: ``killed`` and the names that killed it (sorted)."""

    killed: bool
    killed_by: tuple[str, ...] = ()


def judge(original: CheckReport | list[str], mutant: CheckReport) -> Kill:
    """Whether ``mutant``'s report kills it against ``original`` (a report, or its
    ``failing`` names already computed)."""
    false_positives = set(failing(original) if isinstance(original, CheckReport) else original)
    killers = tuple(name for name in failing(mutant) if name not in false_positives)
    return Kill(bool(killers), killers)
