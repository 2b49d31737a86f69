"""The import jobs: another tool's conversation files → a sparring run directory.

``import-sensei`` reads SENSEI conversation files, ``import-chatchecker`` ChatChecker's
``dialogue_N.yaml`` files (``_chatchecker``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from sparring import __version__
from sparring.conversations._chatchecker import chatchecker_dialogue_files, import_chatchecker
from sparring.conversations._load import load_conversations
from sparring.conversations._records import ConversationRecord, RunManifest
from sparring.conversations._store import RunStore
from sparring.conversations._summary import RunSummary, summarize
from sparring.errors import Problem, UserInputError
from sparring.jobs import JobSettings


class ImportSenseiSettings(JobSettings):
    """Settings of the ``import-sensei`` job: ``source`` is a SENSEI conversations folder
    (searched recursively) or one file."""

    job: ClassVar[str] = "import-sensei"

    source: Path


@dataclass(frozen=True)
class ImportResult:
    """The new run's store, its summary and how many conversations were imported;
    ``problems`` are the files that could not be read (each located; the others were
    imported), ``skipped`` the files that are not conversations (reports, profiles)."""

    store: RunStore
    summary: RunSummary
    imported: int
    problems: tuple[Problem, ...] = ()
    skipped: tuple[Path, ...] = ()


def import_sensei_job(settings: ImportSenseiSettings, out: Path | str) -> ImportResult:
    """Import every SENSEI conversation under ``settings.source`` into a new run ``out``;
    each record is written as it is read. In a folder, a file that does not read does not
    stop the import: its problems (file, line, key) are in ``ImportResult.problems`` and
    the other files are imported. Raises ``ConfigError`` when ``source`` is one file that
    does not read, ``UserInputError`` when ``source`` does not exist, holds no
    conversation file at all (nothing is created then) or ``out`` holds a run."""
    problems: list[Problem] = []
    skipped: list[Path] = []
    records = iter(load_conversations(settings.source, problems=problems, skipped=skipped))
    first = next(records, None)
    if first is None and not problems:
        message = "no SENSEI conversation files (*.yaml, *.yml) here"
        raise UserInputError(Problem(str(settings.source), None, "", message))
    records = itertools.chain([] if first is None else [first], records)
    result = _import_run(settings, records, Path(out))
    return replace(result, problems=tuple(problems), skipped=tuple(skipped))


class ImportChatCheckerSettings(JobSettings):
    """Settings of the ``import-chatchecker`` job: ``source`` is a ChatChecker folder (a
    chatbot's ``runs/``, one run or one user's folder, searched recursively for
    ``dialogue_N.yaml``) or one dialogue file."""

    job: ClassVar[str] = "import-chatchecker"

    source: Path


def import_chatchecker_job(settings: ImportChatCheckerSettings, out: Path | str) -> ImportResult:
    """Import every ChatChecker dialogue under ``settings.source`` into a new run ``out``;
    a record's id is the dialogue file's path relative to ``source`` without suffix (its
    ``dialogue_id`` when ``source`` is the file), and its profile the run-qualified user
    name (``<run>.<user>``) when ``source`` holds several runs' folders. Raises
    ``UserInputError`` when ``source`` holds no dialogue or ``out`` holds a run,
    ``ConfigError`` (file, line, key) for a dialogue file that does not read."""
    source = settings.source
    if not source.exists():
        raise UserInputError(Problem(str(source), None, "", "no such file or folder"))
    files = chatchecker_dialogue_files(source)
    if not files:
        message = "no ChatChecker dialogue files (dialogue_N.yaml) here"
        raise UserInputError(Problem(str(source), None, "", message))
    return _import_run(settings, _chatchecker_records(source, files), Path(out))


def _chatchecker_records(source: Path, files: list[Path]) -> Iterator[ConversationRecord]:
    """Each file's record; a file under ``<run>/<user>/`` of ``source`` gets its profile
    qualified by that run (``<run>.<user name>``), so personas of several runs stay apart."""
    for file in files:
        relative = None if file == source else file.relative_to(source).with_suffix("")
        run = relative.parts[-3] if relative is not None and len(relative.parts) >= 3 else None
        yield import_chatchecker(
            file, id=None if relative is None else relative.as_posix(), run=run
        )


def _import_run(
    settings: JobSettings, records: Iterable[ConversationRecord], out: Path
) -> ImportResult:
    """Create run ``out`` and write each record as it comes; then the manifest's profiles
    and planned ids, and the summary."""
    manifest = RunManifest(
        run_id=out.name,
        created_at=datetime.now(UTC),
        sparring_version=__version__,
        job=settings.job,
        settings=settings.model_dump(mode="json"),
    )
    store = RunStore.create(out, manifest)
    profiles: dict[str, None] = {}
    ids = []
    for record in records:
        store.write(record)
        profiles.setdefault(record.profile)
        ids.append(record.id)
    store.manifest = manifest.model_copy(update={"profiles": list(profiles), "planned": ids})
    store.save_manifest()
    summary = summarize(store.iter_records())
    store.write_summary(summary)
    return ImportResult(store=store, summary=summary, imported=len(ids))
