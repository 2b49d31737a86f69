"""What the dashboard reads from a run directory — through the library's readers
(``RunStore``, ``CheckReport``, ``junit_xml``, ``read_progress``), never by counting files.

Every function takes a ``Run`` the caller has already been allowed to read
(``_permissions``), and returns plain JSON-able data (``None`` when absent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sparring.errors import UserInputError
from sparring.web.models import Run


def _store(run: Run) -> Any:
    from sparring.conversations import RunStore

    try:
        return RunStore.open(Path(run.path), clean=False)
    except (UserInputError, OSError):
        return None


def progress(run: Run) -> dict[str, Any] | None:
    """The job's ``progress.json`` (planned, done, failed, cost, ETA), if written yet."""
    from sparring.jobs import read_progress

    found = read_progress(Path(run.path))
    return found.model_dump(mode="json") if found is not None else None


def verdict_sets(run: Run) -> dict[str, Any]:
    """Every check report stored in the run's ``verdicts`` slot, by name."""
    from sparring.check import CheckReport
    from sparring.conversations import Slot

    store = _store(run)
    if store is None:
        return {}
    reports: dict[str, Any] = {}
    for name in store.result_names(Slot.VERDICTS):
        try:
            report = store.read_result(Slot.VERDICTS, name, CheckReport)
        except (UserInputError, OSError):
            continue
        reports[name] = report.model_dump(mode="json")
    return reports


def junit(run: Run, name: str | None) -> str | None:
    """JUnit XML of the check report ``name`` (default: the first stored)."""
    from sparring.check import CheckReport, junit_xml
    from sparring.conversations import Slot

    store = _store(run)
    if store is None:
        return None
    names = store.result_names(Slot.VERDICTS)
    chosen = name if name in names else (names[0] if names and name is None else None)
    if chosen is None:
        return None
    try:
        return junit_xml(store.read_result(Slot.VERDICTS, chosen, CheckReport))
    except (UserInputError, OSError):
        return None


def report_file(run: Run) -> Path | None:
    """The run's HTML report (``report/index.html``), if written."""
    path = Path(run.path) / "report" / "index.html"
    return path if path.is_file() else None


def conversation_list(run: Run, offset: int, limit: int) -> dict[str, Any]:
    """One page of the run's conversations: id, turns, finish reason."""
    store = _store(run)
    if store is None:
        return {"count": 0, "results": []}
    page = []
    try:
        records = list(store.iter_records(offset, offset + limit))
    except (UserInputError, OSError):
        records = []
    for record in records:
        page.append(
            {
                "id": record.id,
                "turns": len(record.turns),
                "finish_reason": record.finish_reason,
            }
        )
    return {"count": len(store), "results": page}


def conversation(run: Run, conversation_id: str) -> dict[str, Any] | None:
    """One conversation record as stored (every turn; the page escapes its text)."""
    store = _store(run)
    if store is None:
        return None
    try:
        record = store.read(conversation_id)
    except (FileNotFoundError, UserInputError, OSError, ValueError):
        return None
    data: dict[str, Any] = record.model_dump(mode="json")
    return data
