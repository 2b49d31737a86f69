"""The breakdown section: what the ``evaluate`` job's detectors found (ChatChecker §3.2).

Reads ``evaluations/breakdowns-<detector>.json`` (the ``ConversationBreakdowns`` of each
conversation, ``sparring.evaluate``'s public type) and shows, for every stored detector,
judged turns, breakdowns, unscored turns and cost; for the main one (``chatchecker``, else
``offline``, else the first stored) a heatmap of breakdown types × profile (as ChatChecker's
per-persona heatmap) and the breakdown turns with their types, score and reasoning, the
turns around each and a link to its conversation. 20 excerpts, then up to 300 links.
Beside each detector, its strategy and measured quality (``JudgeQuality``) or "not
measured"; a detector that ranks turns without labelling them (the offline one) gets
its ``RANKED`` most likely breakdowns listed as turns to review, not as verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from sparring.conversations import Slot, read_json, validate_model
from sparring.errors import Problem, UserInputError
from sparring.evaluate import (
    EVALUATION_SCHEMA_VERSION,
    BreakdownEvaluation,
    ConversationBreakdowns,
)
from sparring.precision import JudgeQuality
from sparring.report._excerpt import conversation_href, excerpt_html
from sparring.report._plots import _figure, _svg
from sparring.report._section import (
    ReportSection,
    SectionHtml,
    render_template,
    report_section,
    unreadable_html,
)
from sparring.report._view import RunView

FOLDER, PREFIX = "evaluations", "breakdowns-"
PREFERENCE = ("chatchecker", "offline", "ghassel")
EXCERPTS, LINKS = 20, 300
RANKED = 10
"""Turns shown from a ranking detector's ranking (lowest scores first)."""
MAX_PROFILES = 30
"""Profiles shown as heatmap columns (those with the most breakdowns; the rest summed)."""


@dataclass(frozen=True)
class Stored:
    """One detector's stored judgements."""

    detector: str
    model: str | None
    conversations: list[ConversationBreakdowns]
    cost: float
    quality: JudgeQuality | None = None


def read_breakdowns(path: Path) -> tuple[list[Stored], list[Problem]]:
    """Every ``breakdowns-*.json`` of the run at ``path`` that this sparring reads, main
    detector first, and one located ``Problem`` per file that does not read (not JSON, not
    a ``BreakdownEvaluation``: file, line or key). A file of a newer ``schema_version`` is
    skipped without a problem (a newer sparring wrote it)."""
    found: list[Stored] = []
    problems: list[Problem] = []
    for file in sorted((path / FOLDER).glob(f"{PREFIX}*.json")):
        try:
            data = read_json(file)
            version = data.get("schema_version", 1) if isinstance(data, dict) else 1
            if isinstance(version, int) and version > EVALUATION_SCHEMA_VERSION:
                continue
            stored = validate_model(file, data, BreakdownEvaluation)
        except UserInputError as exc:
            problems.extend(exc.problems)
            continue
        found.append(
            Stored(stored.detector, stored.model, stored.conversations, stored.usage.cost,
                   stored.quality)
        )  # fmt: skip
    found.sort(key=lambda s: PREFERENCE.index(s.detector) if s.detector in PREFERENCE else 99)
    return found, problems


def stored_breakdowns(path: Path) -> list[Stored]:
    """Every ``breakdowns-*.json`` of the run at ``path`` that this sparring reads, main
    detector first; a file that does not read is left out (``read_breakdowns`` names it:
    the breakdown section shows it, the conversation pages go on without its marks)."""
    return read_breakdowns(path)[0]


def heatmap(counts: dict[str, Counter[str]]) -> Markup | None:
    """Breakdown counts as a heatmap: types (rows) × profiles (columns), each cell
    annotated; ``None`` when there is nothing to draw."""
    totals = Counter({profile: sum(c.values()) for profile, c in counts.items()})
    profiles = [p for p, n in totals.most_common(MAX_PROFILES) if n]
    if not profiles:
        return None
    rest = [p for p in counts if p not in profiles]
    columns = {p: counts[p] for p in profiles}
    if rest:
        columns[f"{len(rest)} others"] = sum((counts[p] for p in rest), Counter())
    types = sorted(
        {t for c in columns.values() for t in c},
        key=lambda t: (-sum(c[t] for c in columns.values()), t),
    )
    grid = [[columns[p][t] for p in columns] for t in types]
    figure = _figure(min(4.5 + 0.55 * len(columns), 16.0), 2.0 + 0.3 * len(types))
    axes = figure.add_subplot()
    image = axes.imshow(grid, cmap="Reds", aspect="auto", vmin=0)
    labels = [p if len(p) <= 28 else p[:27] + "…" for p in columns]
    axes.set_xticks(range(len(columns)), labels, rotation=45, ha="right")
    axes.set_yticks(range(len(types)), types)
    top = max(max(row) for row in grid)
    for y, row in enumerate(grid):
        for x, value in enumerate(row):
            if value:
                colour = "white" if value > top / 2 else "black"
                axes.text(x, y, str(value), ha="center", va="center", color=colour, fontsize=8)
    figure.colorbar(image, ax=axes, label="breakdowns", shrink=0.8)
    return _svg(figure, "breakdowns")


@dataclass(frozen=True)
class Item:
    """One breakdown turn in the list."""

    conversation: str
    href: str
    turn: int
    score: float | None
    types: list[str]
    reasoning: str
    excerpt: Markup | None = None


def ranked_items(main: Stored, records: dict[str, Any]) -> list[Item]:
    """The ``RANKED`` unscored turns with the lowest scores (most likely breakdowns by the
    detector's ranking), each with its excerpt."""
    ranked = sorted(
        (
            (t.score, c.conversation, t)
            for c in main.conversations
            for t in c.turns
            if t.breakdown is None and t.score is not None
        ),
        key=lambda x: (x[0], x[1], x[2].turn),
    )[:RANKED]
    items = []
    for score, conversation, turn in ranked:
        record = records.get(conversation)
        excerpt = excerpt_html(record, [turn.turn]) if record else None
        items.append(
            Item(
                conversation,
                conversation_href(conversation),
                turn.turn,
                score,
                [],
                turn.reasoning,
                excerpt,
            )
        )
    return items


@report_section
class Breakdowns(ReportSection):
    """Breakdown detection results: detectors compared, types × profile, breakdown turns."""

    name = "dialogue-breakdowns"
    title = "Breakdowns"
    order = 45
    reads = frozenset({Slot.CONVERSATIONS, Slot.EVALUATIONS})

    def applies(self, run: RunView) -> bool:
        return any((run.path / FOLDER).glob(f"{PREFIX}*.json"))

    def render(self, run: RunView) -> SectionHtml:
        stored, problems = read_breakdowns(run.path)
        unreadable = unreadable_html(problems)
        if not stored:
            return SectionHtml(
                unreadable or "No breakdown evaluation this sparring can read.",
                summary="breakdowns unreadable" if problems else None,
            )
        main = stored[0]
        rows = [
            {
                "name": s.detector,
                "model": s.model,
                "conversations": len(s.conversations),
                "turns": sum(len(c.turns) for c in s.conversations),
                "breakdowns": sum(len(c.breakdowns) for c in s.conversations),
                "dialogues": sum(1 for c in s.conversations if c.breakdowns),
                "unscored": sum(1 for c in s.conversations for t in c.turns if t.breakdown is None),
                "ranked": sum(
                    1
                    for c in s.conversations
                    for t in c.turns
                    if t.breakdown is None and t.score is not None
                ),
                "cost": s.cost,
                "strategy": s.quality.strategy if s.quality else None,
                "quality": s.quality.summary if s.quality else "quality not measured",
            }
            for s in stored
        ]
        counts: dict[str, Counter[str]] = {}
        items: list[Item] = []
        records = run.records_by_id
        for conversation in main.conversations:
            record = records.get(conversation.conversation)
            profile = conversation.profile or (record.profile if record else "") or "(none)"
            tally = counts.setdefault(profile, Counter())
            for turn in conversation.breakdowns:
                tally.update(turn.error_types or ["(no type)"])
                excerpt = (
                    excerpt_html(record, [turn.turn]) if record and len(items) < EXCERPTS else None
                )
                items.append(
                    Item(
                        conversation.conversation,
                        conversation_href(conversation.conversation),
                        turn.turn,
                        turn.score,
                        turn.error_types,
                        turn.reasoning,
                        excerpt,
                    )
                )
        html = unreadable + render_template(
            "breakdowns.html.j2",
            detector=main.detector,
            ranks=any(
                t.breakdown is None and t.score is not None
                for c in main.conversations
                for t in c.turns
            ),
            ranked=ranked_items(main, records),
            detectors=rows,
            plot=heatmap(counts),
            items=items[:EXCERPTS],
            rest=items[EXCERPTS:LINKS],
            omitted=max(0, len(items) - LINKS),
        )
        head = rows[0]
        summary = (
            f"{head['breakdowns']} breakdowns in {head['dialogues']} of {head['conversations']} "
            f"conversations ({main.detector}"
            + (f"; {head['ranked']} turns ranked, not labelled)" if head["ranked"] else ")")
        )
        return SectionHtml(html, summary=summary)
