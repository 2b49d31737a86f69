"""The run store: the one owner of a run directory; every stage writes through it.

Layout (each stage has its slot; see docs/runs.md)::

    <run>/manifest.json                    RunManifest (which job, its typed settings)
    <run>/conversations/<id>.json          one ConversationRecord per finished conversation
                                           (``/`` written ``__``: ``record_file_name``)
    <run>/summary.json                     RunSummary (written when the run ends)
    <run>/verdicts/<name>.json             check: one CheckReport per rule set
    <run>/evaluations/<name>.json          evaluate: breakdowns and ratings
    <run>/explore/model.json               explore: the functionality model and workflow
    <run>/explore/profiles/*.yaml          explore: the generated profiles
    <run>/results/<job result>.json        a job's one result file: probes, adversarial,
                                           metamorphic, mutation, coverage,
                                           definition_coverage (written at the run's root
                                           before 0.3; read there still: ``job_result_file``)
    <run>/report/index.html                report: the self-contained HTML report

A record file appears only once its conversation has ended and is complete: it is written
to a hidden temporary file in the same folder, fsynced and renamed over its final name,
so a process killed at any moment (SIGKILL included) never leaves a partial record.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, unquote

from pydantic import BaseModel

from sparring._atomic import atomic_write, remove_temp_files
from sparring.conversations._files import natural_key, read_json_model
from sparring.conversations._records import ConversationRecord, RunManifest
from sparring.errors import Problem, UserInputError

logger = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

MANIFEST = "manifest.json"
"""The file that makes a folder a run directory (``RunManifest``)."""
SUMMARY = "summary.json"
CONVERSATIONS = "conversations"


def is_run_directory(path: str | Path) -> bool:
    """Whether ``path`` is a run directory: it holds a ``manifest.json`` file (the one
    test of "is this folder a run?")."""
    return (Path(path) / MANIFEST).is_file()


class Slot(StrEnum):
    """The folders of a run directory, one per stage that writes results."""

    CONVERSATIONS = "conversations"
    VERDICTS = "verdicts"
    EVALUATIONS = "evaluations"
    EXPLORE = "explore"
    REPORT = "report"
    RESULTS = "results"


JOB_RESULTS = (
    "probes", "adversarial", "metamorphic", "mutation", "coverage", "definition_coverage"
)  # fmt: skip
"""The jobs' result files kept in the ``results`` slot (``<run>/results/<name>.json``);
runs written before 0.3 hold them at the run's root as ``<name>.json``."""


def job_result_file(run_dir: Path | str, name: str) -> Path:
    """Where job result ``name`` (one of ``JOB_RESULTS``) of the run in ``run_dir`` is read:
    ``<run>/results/<name>.json``, or ``<run>/<name>.json`` in a run written before 0.3
    when only that exists. The path may not exist (nothing stored yet)."""
    current = Path(run_dir) / Slot.RESULTS.value / f"{name}.json"
    legacy = Path(run_dir) / f"{name}.json"
    return legacy if not current.is_file() and legacy.is_file() else current


EXPLORE_MODEL = "model.json"
"""The functionality model's file in the ``explore`` slot."""
EXPLORE_PROFILES = "profiles"
"""The generated profiles' folder in the ``explore`` slot."""
_MAX_NAME = 200
"""Longest encoded id kept whole in a file name (bytes); longer ones are shortened."""


_UNSAFE = re.compile(r"[^\w.#=@-]|__")
"""What a readable record file name cannot hold as is (``/`` is written ``__``)."""


def record_file_name(record_id: str) -> str:
    """The file name of a record: its id with ``/`` written ``__`` (``order/0`` →
    ``order__0.json``), readable in a shell and reversible by ``record_id_from_name``. An id
    holding other characters (spaces, ``+``, ``%``, ``__``…) or a leading ``.``, or longer
    than 200 bytes, gets a readable stem with those replaced by ``_`` and ``+<hash>``
    (its id is then read from the file). Raises ``ValueError`` for an empty id."""
    if not record_id:
        raise ValueError("a conversation record needs a non-empty id")
    stem = record_id.replace("/", "__") if not _UNSAFE.search(record_id.replace("/", "")) else ""
    if not stem or stem.startswith(".") or len(stem.encode()) > _MAX_NAME:
        readable = re.sub(r"[^\w.#=@-]+", "_", record_id).lstrip(".")[:150]
        digest = hashlib.sha256(record_id.encode("utf-8")).hexdigest()[:16]
        stem = f"{readable}+{digest}"
    return f"{stem}.json"


def legacy_record_file_name(record_id: str) -> str:
    """The percent-encoded file name runs written before 0.2 used (still read)."""
    name = quote(record_id, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > _MAX_NAME:
        digest = hashlib.sha256(record_id.encode("utf-8")).hexdigest()[:16]
        name = f"{name[:150]}+{digest}"
    return f"{name}.json"


def record_id_from_name(file_name: str) -> str | None:
    """The id a record's file name encodes (current or percent-encoded names); ``None``
    for a name with a hash, whose id must be read from the file."""
    stem = file_name.removesuffix(".json")
    if "+" in stem:
        return None
    return unquote(stem) if "%" in stem else stem.replace("__", "/")


class RunStore:
    """A run directory. Create it with ``RunStore.create``; reopen it (``--resume``,
    reports) with ``RunStore.open``. Methods raise ``OSError`` on I/O failures.

    Records are always written atomically (a killed run never leaves a partial record);
    with ``durable`` they are also fsynced, to survive a power loss, at a cost of a few
    milliseconds per conversation.
    """

    def __init__(self, path: Path, manifest: RunManifest, *, durable: bool = False) -> None:
        self.path = path
        self.manifest = manifest
        self.durable = durable

    @property
    def conversations_dir(self) -> Path:
        """``<run>/conversations``."""
        return self.path / CONVERSATIONS

    @classmethod
    def create(
        cls, path: str | Path, manifest: RunManifest, *, resume_hint: str | None = None
    ) -> RunStore:
        """Make the run directory and write ``manifest.json``.

        Raises ``UserInputError`` when ``path`` already holds a run or is a file; the
        message offers ``resume_hint`` (e.g. "resume it with `sparring simulate --resume
        DIR`") only when the job has a way to resume (``None``: it has none).
        """
        path = Path(path)
        if is_run_directory(path):
            hint = f"; {resume_hint}" if resume_hint else ""
            message = f"already holds a run; pick another --out{hint}"
            raise UserInputError(Problem(str(path), None, "", message))
        if path.exists() and not path.is_dir():
            raise UserInputError(Problem(str(path), None, "", "is a file, not a run directory"))
        (path / CONVERSATIONS).mkdir(parents=True, exist_ok=True)
        store = cls(path, manifest)
        store.save_manifest()
        return store

    def save_manifest(self) -> None:
        """Write ``self.manifest`` to ``manifest.json`` atomically (e.g. after adding
        planned ids)."""
        atomic_write(self.path / MANIFEST, self.manifest.model_dump_json(indent=2))

    @classmethod
    def open(cls, path: str | Path, *, clean: bool = True) -> RunStore:
        """Reopen an existing run directory, reading its manifest.

        With ``clean`` (the default), temporary files left by a killed writer are removed.
        Raises ``UserInputError`` when ``path`` has no ``manifest.json``, ``ConfigError``
        when the manifest does not validate.
        """
        path = Path(path)
        if not is_run_directory(path):
            raise UserInputError(
                Problem(str(path), None, "", f"not a run directory (no {MANIFEST})")
            )
        manifest = read_json_model(path / MANIFEST, RunManifest)
        store = cls(path, manifest)
        if clean:
            for folder in (path, store.conversations_dir):
                if folder.is_dir():
                    for leftover in remove_temp_files(folder):
                        logger.info("removed %s, left by an interrupted write", leftover)
        return store

    def record_path(self, record_id: str) -> Path:
        """Where the record with ``record_id`` is (or will be) stored."""
        return self.conversations_dir / record_file_name(record_id)

    def write(self, record: ConversationRecord) -> Path:
        """Store a finished conversation atomically (replacing one with the same id);
        return its path."""
        self.conversations_dir.mkdir(parents=True, exist_ok=True)
        target = self.record_path(record.id)
        atomic_write(target, record.model_dump_json(indent=2), durable=self.durable)
        return target

    def _record_files(self) -> list[Path]:
        if not self.conversations_dir.is_dir():
            return []
        files = [
            p
            for p in self.conversations_dir.iterdir()
            if p.suffix == ".json" and not p.name.startswith(".") and p.is_file()
        ]
        return sorted(files, key=lambda p: natural_key(p.name))

    def finished_ids(self) -> set[str]:
        """Ids of the conversations already stored (what ``--resume`` skips)."""
        ids = set()
        for file in self._record_files():
            record_id = record_id_from_name(file.name)
            ids.add(record_id if record_id is not None else self.read_file(file).id)
        return ids

    def read(self, record_id: str) -> ConversationRecord:
        """The stored record ``record_id`` (under its current or its legacy file name).
        Raises ``FileNotFoundError`` if absent, ``ConfigError`` if its file does not
        validate."""
        path = self.record_path(record_id)
        legacy = self.conversations_dir / legacy_record_file_name(record_id)
        return self.read_file(path if path.is_file() or not legacy.is_file() else legacy)

    @staticmethod
    def read_file(path: Path) -> ConversationRecord:
        """One record file. Raises ``ConfigError`` (file, line or key) when invalid."""
        if not path.is_file():
            raise FileNotFoundError(path)
        return read_json_model(path, ConversationRecord)

    def iter_records(self, start: int = 0, stop: int | None = None) -> Iterator[ConversationRecord]:
        """The stored records one at a time, in natural order of their file names; only
        one record is held in memory at a time, and only the files from ``start`` to
        ``stop`` (0-based, ``stop`` excluded; one page of a long run) are read. Raises
        ``ConfigError`` on an invalid file."""
        for file in self._record_files()[start:stop]:
            yield self.read_file(file)

    def __len__(self) -> int:
        return len(self._record_files())

    # Stage slots --------------------------------------------------------------------------

    def slot(self, slot: Slot) -> Path:
        """The folder of ``slot`` (created if missing). Raises ``OSError``."""
        folder = self.path / slot.value
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    @property
    def explore_model_path(self) -> Path:
        """``<run>/explore/model.json``."""
        return self.path / Slot.EXPLORE.value / EXPLORE_MODEL

    @property
    def explore_profiles_dir(self) -> Path:
        """``<run>/explore/profiles``."""
        return self.path / Slot.EXPLORE.value / EXPLORE_PROFILES

    def result_path(self, slot: Slot, name: str) -> Path:
        """Where result ``name`` of ``slot`` is stored: ``<run>/<slot>/<name>.json``, the
        name reduced to letters, digits, ``-``, ``_`` and ``.``."""
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or slot.value
        return self.path / slot.value / f"{stem}.json"

    def write_result(self, slot: Slot, name: str, result: BaseModel) -> Path:
        """Store a stage's result (a versioned Pydantic model) atomically as
        ``<run>/<slot>/<name>.json``; return the path. Raises ``OSError``."""
        self.slot(slot)
        target = self.result_path(slot, name)
        atomic_write(target, result.model_dump_json(indent=2, by_alias=True))
        return target

    def read_result(self, slot: Slot, name: str, model: type[M]) -> M:
        """A stored result, validated as ``model``. Raises ``FileNotFoundError`` when
        absent, ``ConfigError`` when invalid or of a ``schema_version`` this sparring does
        not read."""
        path = self.result_path(slot, name)
        if not path.is_file():
            raise FileNotFoundError(path)
        return read_json_model(path, model)

    def result_names(self, slot: Slot) -> list[str]:
        """The names of the results stored in ``slot``, in natural order."""
        folder = self.path / slot.value
        if not folder.is_dir():
            return []
        names = [p.stem for p in folder.glob("*.json") if not p.name.startswith(".")]
        return sorted(names, key=natural_key)

    def write_summary(self, summary: BaseModel) -> Path:
        """Write ``summary.json`` (a ``RunSummary``) atomically; return its path."""
        target = self.path / SUMMARY
        atomic_write(target, summary.model_dump_json(indent=2))
        return target
