"""The import jobs: another tool's conversation files → a sparring run directory.

``import-sensei`` reads SENSEI conversation files, ``import-chatchecker`` ChatChecker's
``dialogue_N.yaml`` files (both read by ``sparring.conversations``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pydantic import Field

from sparring.conversations import (
    ConversationRecord,
    RunStore,
    RunSummary,
    chatchecker_dialogue_files,
    import_chatchecker,
    load_conversations,
    summarize,
)
from sparring.errors import Problem, UserInputError
from sparring.jobs import JOBS, Job, JobSettings, Outcome
from sparring.jobs import outcome as outcomes

if TYPE_CHECKING:
    from sparring.jobs import JobContext


class ImportSenseiSettings(JobSettings):
    """Settings of the ``import-sensei`` job: ``source`` is a SENSEI conversations folder
    (searched recursively) or one file."""

    job: ClassVar[str] = "import-sensei"

    source: Path = Field(description="SENSEI conversations folder (searched recursively) or file.")


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


def _sensei_records(settings: ImportSenseiSettings) -> _Read:
    problems: list[Problem] = []
    skipped: list[Path] = []
    records = iter(load_conversations(settings.source, problems=problems, skipped=skipped))
    first = next(records, None)
    if first is None and not problems:
        message = "no SENSEI conversation files (*.yaml, *.yml) here"
        raise UserInputError(Problem(str(settings.source), None, "", message))
    return _Read(itertools.chain([] if first is None else [first], records), problems, skipped)


class ImportChatCheckerSettings(JobSettings):
    """Settings of the ``import-chatchecker`` job: ``source`` is a ChatChecker folder (a
    chatbot's ``runs/``, one run or one user's folder, searched recursively for
    ``dialogue_N.yaml``) or one dialogue file."""

    job: ClassVar[str] = "import-chatchecker"

    source: Path = Field(
        description="ChatChecker runs folder, run, user folder (searched for "
        "dialogue_N.yaml) or one dialogue file."
    )


def _chatchecker_read(settings: ImportChatCheckerSettings) -> _Read:
    source = settings.source
    if not source.exists():
        raise UserInputError(Problem(str(source), None, "", "no such file or folder"))
    files = chatchecker_dialogue_files(source)
    if not files:
        message = "no ChatChecker dialogue files (dialogue_N.yaml) here"
        raise UserInputError(Problem(str(source), None, "", message))
    return _Read(_chatchecker_records(source, files), [], [])


def _chatchecker_records(source: Path, files: list[Path]) -> Iterator[ConversationRecord]:
    """Each file's record; a file under ``<run>/<user>/`` of ``source`` gets its profile
    qualified by that run (``<run>.<user name>``), so personas of several runs stay apart."""
    for file in files:
        relative = None if file == source else file.relative_to(source).with_suffix("")
        run = relative.parts[-3] if relative is not None and len(relative.parts) >= 3 else None
        yield import_chatchecker(
            file, id=None if relative is None else relative.as_posix(), run=run
        )


@dataclass
class _Read:
    records: Iterator[ConversationRecord]
    problems: list[Problem]
    skipped: list[Path]


S = TypeVar("S", bound=JobSettings)


class ImportJob(Job[S, ImportResult]):
    """An import job on the runner (``import-sensei``, ``import-chatchecker``): one item
    per conversation imported; a stop request imports no further file; ``resume`` reads
    the source again and writes only the conversations the run does not hold. ``read``
    reads the settings' source into records and the problems of files that did not read."""

    creates_run: ClassVar[bool] = True

    def __init__(self, settings_type: type[S], read: Callable[[S], _Read]) -> None:
        self._settings_type = settings_type
        self.read = read

    @property
    def name(self) -> str:
        return self._settings_type.job

    @property
    def settings_type(self) -> type[S]:
        return self._settings_type

    async def execute(self, settings: S, ctx: JobContext) -> ImportResult:
        read = self.read(settings)
        store = ctx.store if ctx.resuming else ctx.open_run(settings)
        finished = store.finished_ids()
        profiles: dict[str, None] = dict.fromkeys(store.manifest.profiles)
        ids: list[str] = list(store.manifest.planned)
        for record in read.records:
            if record.id not in finished:
                store.write(record)
            profiles.setdefault(record.profile)
            ids.append(record.id)
            ctx.item_done(record.id)
            if ctx.stop.requested:
                break
        ids = list(dict.fromkeys(ids))
        store.manifest = store.manifest.model_copy(
            update={"profiles": list(profiles), "planned": ids}
        )
        store.save_manifest()
        summary = summarize(store.iter_records())
        store.write_summary(summary)
        return ImportResult(store, summary, len(ids), tuple(read.problems), tuple(read.skipped))

    def outcome(self, result: ImportResult) -> Outcome:
        """``recorded`` once conversations were imported (exit 0; an import judges nothing, so
        it is no pass); files that did not read are named."""
        unread = [f"{len(result.problems)} problems in files that did not read"]
        return outcomes.recorded(
            f"{result.imported} conversations imported, none judged",
            *(unread if result.problems else []),
        )


IMPORT_SENSEI = ImportJob(ImportSenseiSettings, _sensei_records)
"""The ``import-sensei`` job (``sparring.runner.start(IMPORT_SENSEI, settings, out)``)."""
IMPORT_CHATCHECKER = ImportJob(ImportChatCheckerSettings, _chatchecker_read)
"""The ``import-chatchecker`` job."""
JOBS.register(IMPORT_SENSEI.name, IMPORT_SENSEI)
JOBS.register(IMPORT_CHATCHECKER.name, IMPORT_CHATCHECKER)
