"""Whether a run holds every conversation it planned: the one place that decides it.

A job writes the ids of every conversation it will run into the manifest (``planned``)
before it starts, and each record as its conversation ends. A run killed half-way (or one
whose records were deleted) therefore holds fewer records than it planned. A verdict on
such a run would judge only what happened to finish, so ``check``, ``report`` and ``diff``
all ask ``incomplete_run`` and never say PASS (nor NO REGRESSION) on an incomplete run:
they say NO VERDICT, naming the missing conversations; a failure found in the records
that exist still stands.

A run whose job did not finish (the manifest's ``status``: ``stopped``, ``failed``, or
``running`` — still being written, or killed) is incomplete too, whatever it holds. A
folder that is not a run directory (SENSEI's YAML files, ChatChecker's folders) cannot be
judged incomplete: ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparring.conversations._store import RunStore, is_run_directory
from sparring.errors import UserInputError
from sparring.outcome import JobStatus

SHOWN = 5
"""Missing ids named in the sentence (the rest are counted)."""


@dataclass(frozen=True)
class Incomplete:
    """A run that holds fewer conversations than it planned: the ``planned`` count and the
    ``missing`` ids, in plan order."""

    run: Path
    planned: int
    missing: list[str]
    status: str | None = None
    """The job's status when it is not ``finished`` (``stopped``, ``failed``, ``running``)."""

    @property
    def reason(self) -> str:
        """One sentence naming the missing conversations (the first five, then a count)."""
        if not self.missing:
            return (
                f"the run {self.run} is incomplete: its job is {self.status}, not finished "
                "(resume it to finish it)"
            )
        shown = ", ".join(self.missing[:SHOWN])
        more = len(self.missing) - SHOWN
        rest = f" and {more} more" if more > 0 else ""
        done = self.planned - len(self.missing)
        return (
            f"the run {self.run} is incomplete: {done} of {self.planned} planned conversations "
            f"were written; missing {shown}{rest} (the job stopped before its end)"
        )


def incomplete_run(run: Path | str, *, status: bool = True) -> Incomplete | None:
    """The conversations ``run`` planned but holds no record of; ``None`` when it holds
    them all, is not a run directory, or its manifest cannot be read. ``status=False``
    leaves the job's status out (the job still writing the run asks about its records)."""
    path = Path(run)
    if not is_run_directory(path):
        return None
    try:
        store = RunStore.open(path, clean=False)
    except (UserInputError, OSError):
        return None
    planned = store.manifest.planned
    state = store.manifest.status
    unfinished = None if state == JobStatus.FINISHED or not status else str(state)
    finished = store.finished_ids() if planned else set()
    missing = [i for i in dict.fromkeys(planned) if i not in finished]
    if not missing and unfinished is None:
        return None
    return Incomplete(run=path, planned=len(set(planned)), missing=missing, status=unfinished)
