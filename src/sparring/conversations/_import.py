"""The ``import-sensei`` job: SENSEI conversation files → a sparring run directory."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from sparring import __version__
from sparring.conversations._load import load_conversations
from sparring.conversations._records import RunManifest
from sparring.conversations._store import RunStore
from sparring.conversations._summary import RunSummary, summarize
from sparring.jobs import JobSettings


class ImportSenseiSettings(JobSettings):
    """Settings of the ``import-sensei`` job: ``source`` is a SENSEI conversations folder
    (searched recursively) or one file."""

    job: ClassVar[str] = "import-sensei"

    source: Path


@dataclass(frozen=True)
class ImportResult:
    """The new run's store, its summary and how many conversations were imported."""

    store: RunStore
    summary: RunSummary
    imported: int


def import_sensei_job(settings: ImportSenseiSettings, out: Path | str) -> ImportResult:
    """Import every SENSEI conversation under ``settings.source`` into a new run ``out``;
    each record is written as it is read. Raises ``ConfigError`` (file, line, key) for a
    file that is not a SENSEI conversation, ``UserInputError`` when ``out`` holds a run."""
    out = Path(out)
    manifest = RunManifest(
        run_id=out.name,
        created_at=datetime.now(UTC),
        sparring_version=__version__,
        job=ImportSenseiSettings.job,
        settings=settings.model_dump(mode="json"),
    )
    records = load_conversations(settings.source)
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
