"""The conversation list's filters and search (issue 37): failing only, by rule, by error
code, by breakdown type, by annotation, and full text on the turns — in the URL, like the
runs list's.

A filter reads a per-run index, never the records: one small entry per conversation (id,
profile, turns, finish reason, generic errors, the breakdown types the run's detector
marked, the turns' text folded for search), built once by reading the run and cached
under the parts of the run it reads (``conversations``, ``evaluations``: a new evaluate
builds it again). The rules that failed come from the run page's own cache
(``_run_page.failed_rules``), the annotations from the database. The worker builds the
index when a run ends (``warm``), so filtering a 2,000-conversation run reads one cached
object and scans it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.core.cache import cache

from sparring.web.models import Annotation, Run

CONVERSATION_FILTERS = ("failing", "rule", "code", "breakdown", "annotation", "q")
"""The query parameters ``filter_conversations`` reads."""
_READS = frozenset({"conversations", "evaluations"})


@dataclass(frozen=True)
class Entry:
    """One conversation as the filters see it: ``errors`` the names of its generic
    failures (``goal_not_completed``…) with their codes (``1001``), ``breakdowns`` the
    error types of the turns the run's breakdown detector marked, ``text`` every turn's
    text case-folded."""

    id: str
    profile: str
    turns: int
    finish_reason: str | None
    errors: tuple[str, ...]
    codes: frozenset[str] = field(default_factory=frozenset)
    breakdowns: frozenset[str] = field(default_factory=frozenset)
    text: str = ""


@dataclass(frozen=True)
class Filtered:
    """The entries that match, in the run's order, and the values each filter offers
    (``rules``, ``codes``, ``breakdowns``, ``labels``)."""

    entries: list[Entry]
    rules: list[str]
    codes: list[str]
    breakdowns: list[str]
    labels: list[str]


def _key(run: Run) -> str | None:
    from sparring.web._run_page import fingerprint

    parts = fingerprint(Path(run.path), _READS)
    return None if not parts else f"sparring-conversation-index:{run.pk}:{parts}"


def _build(path: Path) -> list[Entry]:
    from sparring._gc import paused_gc
    from sparring.conversations import RunStore
    from sparring.report import stored_breakdowns

    with paused_gc():  # many short-lived acyclic objects (sparring._gc)
        store = RunStore.open(path, clean=False)
        marked: dict[str, frozenset[str]] = {}
        stored = stored_breakdowns(store.path)
        if stored:  # the main detector's marks (the run page shows the same)
            for judged in stored[0].conversations:
                types = {t for turn in judged.breakdowns for t in turn.error_types}
                marked[judged.conversation] = frozenset(types or {"breakdown"})
        return [
            Entry(
                id=r.id,
                profile=r.profile,
                turns=len(r.turns),
                finish_reason=r.finish_reason,
                errors=tuple(e.name for e in r.errors),
                codes=frozenset({e.name for e in r.errors} | {str(int(e.code)) for e in r.errors}),
                breakdowns=marked.get(r.id, frozenset()),
                text="\n".join(t.text for t in r.turns).casefold(),
            )
            for r in store.iter_records()
        ]


def conversation_index(run: Run) -> list[Entry]:
    """Every conversation of ``run`` as the filters see it, cached while its
    conversations and evaluations are unchanged. Raises ``UserInputError`` or ``OSError``
    when the run cannot be read."""
    key = _key(run)
    found: list[Entry] | None = cache.get(key) if key is not None else None
    if found is None:
        found = _build(Path(run.path))
        if key is not None:
            cache.set(key, found, timeout=None)
    return found


def active_filters(query: Mapping[str, str]) -> dict[str, str]:
    """The filters ``query`` sets (empty values left out)."""
    return {name: value for name in CONVERSATION_FILTERS if (value := query.get(name, "").strip())}


def filter_conversations(
    run: Run, query: Mapping[str, str], failed: dict[str, list[str]]
) -> Filtered:
    """The conversations of ``run`` that match every filter in ``query``: ``failing``
    (a rule failed on it or it carries a generic failure), ``rule`` (that rule failed on
    it), ``code`` (a generic failure of that name or number), ``breakdown`` (the detector
    marked a turn of that type; ``any``: any type), ``annotation`` (someone labelled it or
    one of its turns ``wrong`` or ``correct``; ``any``: any label), ``q`` (every word in
    its turns' text, case-insensitive). ``failed`` is the rules that failed by
    conversation (``_run_page.failed_rules``)."""
    entries = conversation_index(run)
    wanted = active_filters(query)
    notes = Annotation.objects.filter(run=run)
    labels = sorted(set(notes.values_list("label", flat=True)))
    annotated: set[str] | None = None
    if label := wanted.get("annotation"):
        chosen = notes if label == "any" else notes.filter(label=label)
        annotated = set(chosen.values_list("conversation", flat=True))
    words = wanted.get("q", "").casefold().split()
    matched = [e for e in entries if _matches(e, wanted, failed, annotated, words)]
    return Filtered(
        entries=matched,
        rules=sorted({rule for rules in failed.values() for rule in rules}),
        codes=sorted({name for e in entries for name in e.errors}),
        breakdowns=sorted({t for e in entries for t in e.breakdowns}),
        labels=labels,
    )


def _matches(
    entry: Entry,
    wanted: dict[str, str],
    failed: dict[str, list[str]],
    annotated: set[str] | None,
    words: list[str],
) -> bool:
    rules = failed.get(entry.id, [])
    checks: list[Any] = [
        "failing" not in wanted or bool(rules or entry.errors),
        "rule" not in wanted or wanted["rule"] in rules,
        "code" not in wanted or wanted["code"] in entry.codes,
        "breakdown" not in wanted
        or (
            bool(entry.breakdowns)
            if wanted["breakdown"] == "any"
            else wanted["breakdown"] in entry.breakdowns
        ),
        annotated is None or entry.id in annotated,
        all(word in entry.text for word in words),
    ]
    return all(checks)
