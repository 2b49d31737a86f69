"""Excerpts: the few turns of a conversation around the ones a failure points at."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

from markupsafe import Markup

from sparring.conversations import ConversationRecord
from sparring.report._section import render_template

MAX_TEXT = 300
"""Characters of a turn's text shown in an excerpt (the conversation page shows all)."""
AROUND = 1
"""Turns shown before and after each turn a failure points at."""


@dataclass(frozen=True)
class ExcerptLine:
    """One line of an excerpt: a turn (``index``, 0-based; ``role``, ``text``) marked
    ``hit`` when the failure points at it, with the texts of its ``buttons``; or a gap
    (``index`` ``None``) for skipped turns."""

    index: int | None
    role: str = ""
    text: str = ""
    hit: bool = False
    buttons: tuple[str, ...] = ()


def excerpt_lines(record: ConversationRecord, turns: Iterable[int]) -> list[ExcerptLine]:
    """The turns of ``record`` within ``AROUND`` of ``turns`` (the last two turns when
    none is given or none exists), with gaps where turns are skipped; texts cut at
    ``MAX_TEXT`` characters."""
    total = len(record.turns)
    hits = {t for t in turns if 0 <= t < total}
    shown = {i for t in hits for i in range(t - AROUND, t + AROUND + 1) if 0 <= i < total}
    if not shown:
        shown = set(range(max(0, total - 2), total))
    lines: list[ExcerptLine] = []
    previous = -1
    for index in sorted(shown):
        if index > previous + 1:
            lines.append(ExcerptLine(None))
        turn = record.turns[index]
        text = turn.text_without_buttons if turn.buttons else turn.text or turn.sensei_text
        if len(text) > MAX_TEXT:
            text = text[:MAX_TEXT] + "…"
        buttons = tuple(button.text for button in turn.buttons)
        lines.append(ExcerptLine(index, turn.role, text, index in hits, buttons))
        previous = index
    if lines and previous < total - 1:
        lines.append(ExcerptLine(None))
    return lines


def excerpt_html(record: ConversationRecord, turns: Iterable[int]) -> Markup:
    """``excerpt_lines`` as an HTML fragment (escaped)."""
    return render_template("excerpt.html.j2", lines=excerpt_lines(record, turns))


def conversation_href(record_id: str) -> str:
    """The link to a conversation's page inside the report (``#conv=<id, URL-encoded>``)."""
    return "#conv=" + quote(record_id, safe="")


def anchor(*parts: str) -> str:
    """An HTML id made of ``parts``: runs of other characters than letters, digits, ``-``
    and ``_`` become ``-`` (``anchor("rule", "rules-1", "a b")`` → ``rule-rules-1-a-b``)."""
    return "-".join(re.sub(r"[^\w-]+", "-", part).strip("-") or "_" for part in parts)
