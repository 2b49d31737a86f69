"""Bringing a project in whole: uploaded files and folders, or a ``.zip``, recognised as a
SENSEI, TRACER or ChatChecker layout and mapped to the project's kinds.

Reading (``from_uploads``, ``read_zip``) checks, before anything is kept:

- **count**: at most ``MAX_IMPORT_FILES`` files or archive entries (the archive's own
  directory is counted before any entry is read);
- **paths**: every name is a relative path inside the project — an absolute path, a drive,
  a backslash, a ``..`` part or a NUL refuses the whole upload (zip-slip); an archive entry
  that is a symbolic link refuses it too. Nothing is written where an entry's name says:
  files are written into a temporary folder under names that passed ``name_problem``;
- **size**: the upload at most ``MAX_UPLOAD_BYTES``; each YAML file read with a bound
  (``MAX_FILE_BYTES`` once unpacked, whatever the archive declares: a zip bomb is read
  1 MB at most per entry) and ``MAX_IMPORT_BYTES`` for all of them together.

Only ``*.yml``/``*.yaml`` files are read; the rest (code, CSV, text, nested archives) is
listed as skipped: the dashboard runs no user code. A single folder holding everything
(``myproject/…``) is dropped from the names.

Recognising (``import_files``) reuses the CLI's readers, never a parser of its own: the
whole tree is checked together by ``sparring.validation.validate_files`` (which tells the
kinds apart with ``file_kind``, loads each file with its own loader and checks rule
variables against the profiles) under the dashboard's execution policy; SENSEI's
conversation files (a run's results) are told by ``sparring.conversations``; the tool a file
comes from is named by ``sparring.connectors.chatbot_file_format`` (SENSEI connector
file or run.yml, TRACER connector file, ChatChecker ``config.yaml``) and
``sparring.profiles.is_chatchecker_persona``. A file with errors is not imported and its
located problems (file, line, key) are listed; ChatChecker's run outputs and SENSEI's
standard personalities (sparring's library has them) are skipped with the reason.
"""

from __future__ import annotations

import re
import stat
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import IO, Any, Literal

from sparring._policy import scoped
from sparring._yaml import load_yaml_with_lines
from sparring.conversations import is_sensei_conversation_file
from sparring.errors import ConfigError, Problem, UserInputError
from sparring.web._files import MAX_FILE_BYTES, name_problem, policy_for, store_version
from sparring.web.models import FileKind, Project

MAX_IMPORT_FILES = 2000
"""Files (or archive entries, folders included) one import may hold."""
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""Bytes one import request may upload (archives as sent, files as they are)."""
MAX_IMPORT_BYTES = 50 * 1024 * 1024
"""YAML bytes one import may read once unpacked, all files together."""
YAML_SUFFIXES = (".yml", ".yaml")
_CONTENT_FOLDERS = frozenset({"profiles", "rules", "personalities", "personas", "probes"})

Status = Literal["imported", "refused", "skipped"]


@dataclass(frozen=True)
class Incoming:
    """A YAML file to import: its relative path (``/``-separated) and its bytes."""

    name: str
    data: bytes


@dataclass
class ImportedFile:
    """What became of one file: ``status``, the project ``kind`` it was mapped to, the
    tool's ``format`` it was recognised as, the ``version`` saved, the located
    ``problems`` that kept it out, or the ``reason`` it was skipped."""

    name: str
    status: Status
    kind: str = ""
    format: str = ""
    version: int | None = None
    problems: list[Problem] = field(default_factory=list)
    reason: str = ""


@dataclass
class ImportResult:
    """Every file of one import, and the layouts recognised (``SENSEI``, ``TRACER``,
    ``ChatChecker``, ``sparring``)."""

    files: list[ImportedFile]
    layouts: list[str]

    def count(self, status: Status) -> int:
        """How many files ended with ``status``."""
        return sum(1 for f in self.files if f.status == status)

    @property
    def count_imported(self) -> int:
        return self.count("imported")

    @property
    def count_refused(self) -> int:
        return self.count("refused")

    @property
    def count_skipped(self) -> int:
        return self.count("skipped")


def unsafe_path(name: str) -> str | None:
    """Why ``name`` (a path an upload or an archive gives) may not name a file inside the
    project (``None``: it may): absolute, a drive, a backslash, a ``..`` part, a NUL."""
    if not name or "\x00" in name:
        return "an empty name or a NUL"
    if "\\" in name:
        return "a backslash in the name (a path that may climb out on another system)"
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if ".." in PurePosixPath(name).parts:
        return "a '..' part: it would climb out of the project (zip-slip)"
    return None


def _yaml(name: str) -> bool:
    return name.lower().endswith(YAML_SUFFIXES)


def read_zip(handle: IO[bytes], label: str) -> tuple[list[Incoming], list[ImportedFile]]:
    """The YAML files of the archive ``handle`` (named ``label`` in problems) and the
    entries skipped. Raises ``UserInputError`` (located on ``label`` and the entry) for an
    archive that is not a zip, holds too many entries, an unsafe path or a symbolic link,
    or unpacks to more than ``MAX_IMPORT_BYTES`` of YAML."""
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise UserInputError(Problem(label, None, "", "not a zip archive")) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_IMPORT_FILES:
            message = f"{len(infos):,} entries: an import holds at most {MAX_IMPORT_FILES:,}"
            raise UserInputError(Problem(label, None, "", message))
        problems = [
            Problem(label, None, info.filename, why)
            for info in infos
            if (why := unsafe_path(info.filename) or _link(info)) is not None
        ]
        if problems:
            raise UserInputError(problems)
        kept: list[Incoming] = []
        skipped: list[ImportedFile] = []
        total = 0
        for info in infos:
            if info.is_dir():
                continue
            if not _yaml(info.filename) or info.flag_bits & 0x1:
                why = "encrypted" if info.flag_bits & 0x1 else _not_yaml(info.filename)
                skipped.append(ImportedFile(info.filename, "skipped", reason=why))
                continue
            with archive.open(info) as entry:
                data = entry.read(MAX_FILE_BYTES + 1)
            total += len(data)
            if total > MAX_IMPORT_BYTES:
                message = f"unpacks to more than {MAX_IMPORT_BYTES // 2**20} MB of YAML"
                raise UserInputError(Problem(label, None, info.filename, message))
            kept.append(Incoming(info.filename, data))
    return kept, skipped


def _link(info: zipfile.ZipInfo) -> str | None:
    """Why an archive entry is refused for its type: a symbolic link (its Unix mode)."""
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a symbolic link: an archive may hold files and folders only"
    return None


def _not_yaml(name: str) -> str:
    if name.lower().endswith(".py"):
        return "code: the dashboard runs no user code"
    if name.lower().endswith(".zip"):
        return "an archive inside the upload: not unpacked"
    return "not a YAML file"


def from_uploads(uploads: Iterable[tuple[str, Any]]) -> tuple[list[Incoming], list[ImportedFile]]:
    """The YAML files of uploaded files (each ``(relative path, Django UploadedFile)``; a
    ``.zip`` is unpacked with ``read_zip``) and those skipped. Raises ``UserInputError``
    for too many files, an unsafe path or an upload past ``MAX_UPLOAD_BYTES``."""
    given = list(uploads)
    if len(given) > MAX_IMPORT_FILES:
        message = f"{len(given):,} files: an import holds at most {MAX_IMPORT_FILES:,}"
        raise UserInputError(Problem("upload", None, "", message))
    problems = [Problem("upload", None, n, why) for n, _ in given if (why := unsafe_path(n))]
    if problems:
        raise UserInputError(problems)
    size = sum(int(upload.size or 0) for _, upload in given)
    if size > MAX_UPLOAD_BYTES:
        message = (
            f"{size / 2**20:,.1f} MB: an import uploads at most {MAX_UPLOAD_BYTES // 2**20} MB"
        )
        raise UserInputError(Problem("upload", None, "", message))
    kept: list[Incoming] = []
    skipped: list[ImportedFile] = []
    for name, upload in given:
        if name.lower().endswith(".zip"):
            found, passed = read_zip(upload, name)
            kept += found
            skipped += passed
        elif _yaml(name):
            kept.append(Incoming(name, upload.read(MAX_FILE_BYTES + 1)))
        else:
            skipped.append(ImportedFile(name, "skipped", reason=_not_yaml(name)))
    return kept, skipped


def common_folder(names: Iterable[str]) -> str | None:
    """The one folder every name is in (``myproject`` for ``myproject/profiles/a.yml``),
    when there is one and it is not a folder of the layouts themselves (a zip of
    ``profiles/`` keeps it)."""
    parts = [PurePosixPath(n).parts for n in names]
    tops = {p[0] for p in parts if len(p) > 1}
    if len(tops) != 1 or any(len(p) == 1 for p in parts) or tops & _CONTENT_FOLDERS:
        return None
    return tops.pop()


def _inside(name: str, folder: str | None) -> str:
    """``name`` without its first part when that is ``folder``."""
    return name.removeprefix(f"{folder}/") if folder else name


_KINDS = {
    "chatbot": FileKind.CHATBOT,
    "profile": FileKind.PROFILE,
    "rules": FileKind.RULES,
    "persona": FileKind.PERSONA,
    "probes": FileKind.PROBES,
}
_CHATBOT_FORMATS = {
    "sensei-connector": "SENSEI connector file",
    "sensei-run": "SENSEI run.yml",
    "tracer-custom": "TRACER connector file",
    "chatchecker-config": "ChatChecker config.yaml",
    "chatbot.yaml": "sparring chatbot.yaml",
}
_TRACER_RUN = re.compile(r"^execution_\d+$")


def _format(kind: str, path: Path, name: str) -> str:
    """The tool's format a file of ``kind`` is in, from the CLI's readers."""
    from sparring.connectors import chatbot_file_format
    from sparring.profiles import is_chatchecker_persona

    try:
        data, _ = load_yaml_with_lines(path)
    except ConfigError:
        data = None
    if kind == "chatbot":
        return _CHATBOT_FORMATS.get(chatbot_file_format(data) or "", "chatbot file")
    if kind == "persona":
        return "ChatChecker persona" if is_chatchecker_persona(data) else "sparring persona"
    if kind == "profile":  # TRACER writes SENSEI profiles into execution_N/profiles/
        tracer = any(_TRACER_RUN.match(part) for part in PurePosixPath(name).parts)
        return "TRACER profile" if tracer else "SENSEI profile"
    if kind == "rules":
        return "SENSEI-check rules"
    if kind == "results":
        return "ChatChecker run output"
    return "probe suite" if kind == "probes" else ""


def layouts_of(formats: Iterable[str]) -> list[str]:
    """The tools whose layouts ``formats`` (``_format``'s labels) come from."""
    tools = {f.split()[0].split("-")[0] for f in formats if f}
    return sorted(tools & {"SENSEI", "TRACER", "ChatChecker", "sparring"})


def _personality(name: str, path: Path) -> ImportedFile | None:
    """A SENSEI personality file (``personalities/x-user.yml``, which ``file_kind`` cannot
    tell): skipped when sparring's library has it (profiles naming it read the library's),
    refused otherwise (the dashboard keeps no personality files)."""
    from sparring.profiles import library_key, library_names

    if "personalities" not in PurePosixPath(name).parts[:-1]:
        return None
    key = library_key(path.stem)
    if key in library_names():
        reason = f"SENSEI's personality: sparring's library persona '{key}' is read in its place"
        return ImportedFile(name, "skipped", format="SENSEI personality", reason=reason)
    message = (
        "a SENSEI personality file that sparring's library does not have: the dashboard "
        f"keeps none; name a library persona ({', '.join(library_names())}) in the profile"
    )
    return ImportedFile(
        name, "refused", format="SENSEI personality", problems=[Problem(name, None, "", message)]
    )


def import_files(
    project: Project, files: list[Incoming], skipped: list[ImportedFile], author: Any
) -> ImportResult:
    """Recognise, validate together and save ``files`` into ``project`` (each a new
    version; see the module docstring); ``skipped`` are listed as they are."""
    folder = common_folder([f.name for f in files] + [f.name for f in skipped])
    files = [Incoming(_inside(f.name, folder), f.data) for f in files]
    results = [replace(f, name=_inside(f.name, folder)) for f in skipped]
    seen: set[str] = set()
    accepted: list[Incoming] = []
    for incoming in files:
        why = name_problem(incoming.name)
        if why is None and incoming.name in seen:
            why = "twice in the upload"
        if why is None and len(incoming.data) > MAX_FILE_BYTES:
            why = f"larger than {MAX_FILE_BYTES} bytes"
        if why is not None:
            problem = Problem(incoming.name, None, "name" if "path" in why else "", why)
            results.append(ImportedFile(incoming.name, "refused", problems=[problem]))
            continue
        seen.add(incoming.name)
        accepted.append(incoming)
    with tempfile.TemporaryDirectory(prefix="sparring-import-") as folder:
        root = Path(folder).resolve()
        paths = _write_tree(root, accepted)
        results += _checked(project, root, paths, author)
    formats = [f.format for f in results if f.status != "refused" or f.kind]
    return ImportResult(results, layouts_of(formats))


def _write_tree(root: Path, files: list[Incoming]) -> dict[Path, Incoming]:
    """Each file written under ``root`` at its (checked) name; a name that would resolve
    outside ``root`` is never written (``name_problem`` already refused it)."""
    written: dict[Path, Incoming] = {}
    for incoming in files:
        path = (root / incoming.name).resolve()
        if not path.is_relative_to(root):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(incoming.data)
        written[path] = incoming
    return written


def _checked(
    project: Project, root: Path, paths: dict[Path, Incoming], author: Any
) -> list[ImportedFile]:
    """The files under ``root`` checked together by the CLI's validation, each saved when
    it has no error."""
    from sparring import validation

    if not paths:
        return []
    with scoped(policy_for([root])):
        checks = validation.validate_files(list(paths), build_connector=False)
        results: list[ImportedFile] = []
        for check in checks:
            incoming = paths[check.path.resolve()]
            results.append(_one(project, root, check, incoming, author))
    return results


def _one(project: Project, root: Path, check: Any, incoming: Incoming, author: Any) -> ImportedFile:
    name = incoming.name
    if check.kind == "unknown" and (personality := _personality(name, check.path)) is not None:
        return personality
    shape = _format(check.kind, check.path, name)
    if check.kind == "results":
        reason = "a result ChatChecker wrote into a run, not a project file"
        return ImportedFile(name, "skipped", format=shape, reason=reason)
    if check.errors and is_sensei_conversation_file(check.path):
        reason = "a conversation SENSEI wrote (a run's result: `sparring web import` reads runs)"
        return ImportedFile(name, "skipped", format="SENSEI conversation", reason=reason)
    problems = [_renamed(p, root, name) for p in check.errors]
    kind = _KINDS.get(check.kind, "")
    if problems or not kind:
        return ImportedFile(name, "refused", kind=kind, format=shape, problems=problems)
    try:
        text = incoming.data.decode("utf-8")
        saved = store_version(project, kind, name, text, author)
    except UnicodeDecodeError:
        problem = Problem(name, None, "", "not UTF-8 text")
        return ImportedFile(name, "refused", kind=kind, format=shape, problems=[problem])
    except UserInputError as exc:
        return ImportedFile(name, "refused", kind=kind, format=shape, problems=exc.problems)
    version = saved.current.number if saved.current is not None else None
    return ImportedFile(name, "imported", kind=kind, format=shape, version=version)


def _renamed(problem: Problem, root: Path, name: str) -> Problem:
    """``problem`` naming project files instead of their temporary paths under ``root``
    (``name`` when it names no file)."""
    file = problem.file
    if not file:
        file = name
    elif Path(file).resolve().is_relative_to(root):
        file = Path(file).resolve().relative_to(root).as_posix()
    return Problem(file, problem.line, problem.key, problem.message)
