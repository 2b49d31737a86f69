"""Read conversations from wherever they are: a run directory, a folder of native JSON
records, a SENSEI conversations folder, or one file of either kind."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from sparring.conversations._files import (
    natural_key,
    read_json,
    read_yaml_documents,
    validate_model,
)
from sparring.conversations._records import ConversationRecord
from sparring.conversations._sensei import import_sensei, is_sensei_conversation, sensei_record
from sparring.conversations._store import MANIFEST, SUMMARY, RunStore, is_run_directory
from sparring.errors import ConfigError, Problem, UserInputError

logger = logging.getLogger(__name__)

YAML_SUFFIXES = (".yml", ".yaml")


def load_conversations(
    path: str | Path,
    *,
    problems: list[Problem] | None = None,
    skipped: list[Path] | None = None,
) -> Iterator[ConversationRecord]:
    """Stream the conversation records found at ``path``, one at a time.

    ``path`` may be:

    - a run directory (has ``manifest.json``): its stored records;
    - a folder: searched recursively, in natural name order, for native record files
      (``*.json`` objects with ``id`` and ``turns``) and SENSEI conversation files
      (``*.yml``/``*.yaml`` with SENSEI's three documents; the record id is the path
      relative to the folder, without suffix). Other files (SENSEI reports, profiles,
      CSV, hidden files) are skipped;
    - a single native ``.json`` record or SENSEI ``.yml``/``.yaml`` conversation.

    Raises ``UserInputError`` at once when ``path`` does not exist, and ``ConfigError``
    (file, line where the parser gives one, key) while iterating when a file is invalid —
    unless ``problems`` is given: then, in a folder, each invalid file's problems are
    appended to it and the other files are still read. ``skipped`` (when given) receives
    the folder's files that are not conversations.
    """
    path = Path(path)
    if not path.exists():
        raise UserInputError(Problem(str(path), None, "", "no such file or folder"))
    if not path.is_dir():  # a file, or a FIFO or device that _single refuses by name
        return _single(path)
    if is_run_directory(path):
        return RunStore.open(path, clean=False).iter_records()
    return _folder(path, problems, skipped)


def _single(path: Path) -> Iterator[ConversationRecord]:
    if path.suffix.lower() == ".json":
        record = _native(path, strict=True)
        if record is not None:
            yield record
    elif path.suffix.lower() in YAML_SUFFIXES:
        yield import_sensei(path)
    else:
        raise ConfigError(
            Problem(str(path), None, "", "expected a .json record or a SENSEI .yml conversation")
        )


def _folder(
    root: Path, problems: list[Problem] | None, skipped: list[Path] | None
) -> Iterator[ConversationRecord]:
    files = sorted(
        (p for p in root.rglob("*") if not p.is_dir()),  # a FIFO or device: refused by name
        key=lambda p: tuple(natural_key(part) for part in p.relative_to(root).parts),
    )
    for file in files:
        relative = file.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        suffix = file.suffix.lower()
        try:
            if suffix == ".json" and file.name not in (MANIFEST, SUMMARY):
                record = _native(file, strict=False)
            elif suffix in YAML_SUFFIXES:
                record = _sensei_in_folder(file, relative.with_suffix("").as_posix())
            else:
                continue
        except ConfigError as exc:
            if problems is None:
                raise
            problems.extend(exc.problems)
            continue
        if record is None:
            logger.debug("skipped %s: not a conversation", file)
            if skipped is not None:
                skipped.append(file)
        else:
            yield record


def _native(path: Path, *, strict: bool) -> ConversationRecord | None:
    data = read_json(path)
    if not strict and not (isinstance(data, dict) and "id" in data and "turns" in data):
        return None
    return validate_model(path, data, ConversationRecord)


def _sensei_in_folder(path: Path, record_id: str) -> ConversationRecord | None:
    text, documents = read_yaml_documents(path)
    if not is_sensei_conversation(documents):
        return None
    return sensei_record(documents, id=record_id, name=path.stem, source=str(path), text=text)
