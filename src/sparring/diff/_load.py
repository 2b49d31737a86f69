"""Reading what ``diff`` compares: a run's conversations and the verdicts stored in it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from sparring.check import CheckReport
from sparring.conversations import ConversationRecord, RunStore, Slot
from sparring.errors import UserInputError

if TYPE_CHECKING:
    from sparring.diff._compare import RunDiff

logger = logging.getLogger(__name__)


def verdict_files(run: Path) -> dict[str, Path]:
    """Stored verdict files of ``run`` by name (``verdicts/<name>.json``)."""
    folder = run / Slot.VERDICTS.value
    files = (
        sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    )
    return {path.stem: path for path in files}


def pick_verdicts(baseline: Path, new: Path) -> tuple[Path, Path]:
    """The verdict files to compare: the newest rule set stored in both runs, else each
    run's newest (with a warning). Raises ``UserInputError`` when a run has none."""
    old, now = verdict_files(baseline), verdict_files(new)
    for run, found in ((baseline, old), (new, now)):
        if not found:
            raise UserInputError(
                f"{run} has no stored verdicts: run `sparring check RULES --run {run}` first"
            )
    common = [name for name in now if name in old]
    if common:
        return old[common[-1]], now[common[-1]]
    logger.warning("the runs were checked with different rule sets; comparing the newest of each")
    return list(old.values())[-1], list(now.values())[-1]


def load_run(run: Path, verdicts: Path) -> tuple[CheckReport, list[ConversationRecord]]:
    """A run's report (from ``verdicts``) and its records. Raises ``UserInputError``."""
    store = RunStore.open(run, clean=False)
    report = store.read_result(Slot.VERDICTS, verdicts.stem, CheckReport)
    return report, list(store.iter_records())


def diff_runs(baseline: Path, new: Path) -> RunDiff:
    """Compare the run ``new`` with the run ``baseline`` (what ``sparring diff`` and the
    dashboard's compare page show): the verdict files picked by ``pick_verdicts``, both
    runs' records, and ``incomplete`` naming what an incomplete run misses. Raises
    ``UserInputError`` when a run has no stored verdicts or a file cannot be read."""
    from sparring.conversations import incomplete_run
    from sparring.diff._compare import compare

    old_verdicts, new_verdicts = pick_verdicts(baseline, new)
    old_report, old_records = load_run(baseline, old_verdicts)
    new_report, new_records = load_run(new, new_verdicts)
    result = compare(old_report, new_report, old_records, new_records)
    result.incomplete = [i.reason for i in map(incomplete_run, (baseline, new)) if i is not None]
    return result
