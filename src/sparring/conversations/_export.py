"""``export-sensei`` as a library function: a run's conversations → SENSEI conversation
files."""

from __future__ import annotations

from pathlib import Path

from sparring._atomic import atomic_write
from sparring.conversations._load import load_conversations
from sparring.conversations._sensei import export_sensei, sensei_path
from sparring.conversations._store import RunStore
from sparring.errors import UserInputError


def export_sensei_run(source: Path, out: Path) -> list[Path]:
    """Write every conversation of ``source`` (a run directory, or a folder or file of
    records) into the folder ``out`` as SENSEI conversation files (three YAML documents
    each, at ``sensei_path``); the files written, in the order read. Records without a
    SENSEI serial take the run's creation time. Raises ``UserInputError`` for a record
    that does not read."""
    serial = _run_serial(source)
    written: list[Path] = []
    for record in load_conversations(source):
        target = out / sensei_path(record, serial=serial)
        atomic_write(target, export_sensei(record, serial=serial), durable=False)
        written.append(target)
    return written


def _run_serial(source: Path) -> str | None:
    """The run's creation time in SENSEI's serial form, when ``source`` is a run."""
    try:
        manifest = RunStore.open(source, clean=False).manifest
    except UserInputError:  # not a run directory: records keep their own serial
        return None
    return manifest.created_at.strftime("%Y-%m-%d-%H-%M-%S")
