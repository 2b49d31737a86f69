"""The peer tools' published files in ``../shared/data``, by format family, and what sparring
does with each: ``loads``, ``warns`` (loads with a warning) or ``refused`` (with a reason).

Every YAML file under the SENSEI and TRACER folders belongs to exactly one family (the
``connectors`` family, SENSEI's connector files and ``run.yml``, is tested beside this one
by its own module). docs/peer-files.md tabulates the outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from sparring.check import load_rules
from sparring.conversations import import_sensei, is_sensei_conversation
from sparring.conversations._files import read_yaml_documents
from sparring.errors import ConfigError
from sparring.profiles import check_profile, read_persona

ROOTS = ("sensei", "sensei-wild", "sensei-pizza", "tracer", "rasa-bots/veterinary/sensei")
"""The folders of ``../shared/data`` that hold SENSEI's and TRACER's files."""

Outcome = tuple[str, str]
"""``(loads | warns | refused, the first warning or error)``."""


def family_of(path: Path) -> str:
    """The format family of a peer file, from where the publishers keep it."""
    parts = set(path.parts)
    if parts & {"__report__", "__stats_reports__"}:
        return "sensei-reports"
    if "personalities" in parts:
        return "sensei-personalities"
    if parts & {"rules", "rules-all"}:
        return "sensei-rules"
    if path.name == "run.yml" or "connector" in path.name:
        return "connectors"
    if "profiles" in parts or (
        "chatbots" in parts and path.parent.name == "conversations"  # sensei-wild's profiles
    ):
        return "tracer-profiles" if "tracer" in path.parts else "sensei-profiles"
    return "sensei-conversations"


def peer_files(shared: Path) -> Iterator[tuple[str, Path]]:
    """``(family, file)`` for every YAML file under ``ROOTS``, in name order."""
    for root in ROOTS:
        for path in sorted((shared / root).rglob("*")):
            if path.suffix in (".yml", ".yaml") and path.is_file():
                yield family_of(path), path


def _first(problems: list[object]) -> str:
    return str(problems[0]) if problems else ""


def _profile(path: Path) -> Outcome:
    result = check_profile(path)
    if result.errors:
        return "refused", _first(list(result.errors))
    return ("warns", _first(list(result.warnings))) if result.warnings else ("loads", "")


def _raising(load: Callable[[Path], object]) -> Callable[[Path], Outcome]:
    def outcome(path: Path) -> Outcome:
        try:
            load(path)
        except ConfigError as exc:
            return "refused", _first(list(exc.problems))
        return "loads", ""

    return outcome


def _report(path: Path) -> Outcome:
    _, documents = read_yaml_documents(path)
    if is_sensei_conversation(documents):
        return "loads", ""
    return "refused", (
        "a SENSEI report (statistics of a run), not a conversation: import-sensei skips and "
        "counts it; sparring writes its own summary and check tables"
    )


OUTCOMES: dict[str, Callable[[Path], Outcome]] = {
    "sensei-profiles": _profile,
    "tracer-profiles": _profile,
    "sensei-rules": _raising(lambda path: load_rules([path])),
    "sensei-personalities": _raising(read_persona),
    "sensei-conversations": _raising(import_sensei),
    "sensei-reports": _report,
}
"""How each family is read, as the command that takes it reads it (``validate``/``simulate``
for profiles, ``check`` for rules, ``import-sensei`` for conversations)."""


def outcome(family: str, path: Path) -> Outcome:
    """What sparring does with ``path`` of ``family``."""
    return OUTCOMES[family](path)
