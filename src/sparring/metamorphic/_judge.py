"""Judging follow-ups as their records arrive: the source replays first (a round whose
replies vary between them is nondeterministic and not checked) and the source rounds asked
alone (a round whose reply then changes depends on its context), then every relation on
each follow-up, ``metamorphic.json`` rewritten as it goes."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sparring.conversations import ConversationRecord
from sparring.metamorphic._answerability import DialogueAnalysis
from sparring.metamorphic._perturb import FollowUp
from sparring.metamorphic._relations import Similarity, check_follow_up
from sparring.metamorphic._replay import link_of, replies_of
from sparring.metamorphic._result import FollowUpSummary, MetamorphicResult
from sparring.metamorphic._seeds import Seed


class Judge:
    """Judges follow-ups as their records arrive (a follow-up of a question-answering
    seed waits for the seed's own replay) and rewrites ``metamorphic.json`` at most
    twice a second."""

    def __init__(
        self,
        result: MetamorphicResult,
        seeds: dict[str, Seed],
        analyses: dict[str, DialogueAnalysis],
        similarity: Similarity,
        out: Path,
        source_replays: int = 1,
        isolated: dict[str, int] | None = None,
    ) -> None:
        self.result = result
        self.source_replays = source_replays
        self.sources: dict[str, dict[str, list[str | None]]] = {}
        self.unstable: dict[str, set[int]] = {}
        self.isolated_expected = isolated or {}
        self.isolated: dict[str, dict[int, str | None]] = {}
        self.dependent: dict[str, set[int]] = {}
        self.seeds = seeds
        self.analyses = analyses
        self.similarity = similarity
        self.out = out
        self.follow_ups: dict[str, FollowUp] = {}
        self.on_follow_up: Callable[[FollowUpSummary], None] | None = None
        self.source_replies: dict[str, list[str | None]] = {}
        self.waiting: dict[str, list[ConversationRecord]] = {}
        self.checks = 0
        self.written = 0.0

    def add(self, record: ConversationRecord) -> None:
        link = link_of(record)
        if link is None or link.seed not in self.seeds:
            return
        if link.role == "source":
            self.sources.setdefault(link.seed, {})[record.id] = replies_of(record)
            self._ready(link.seed)
        elif link.role == "isolated":
            replies = replies_of(record)
            if link.order:
                self.isolated.setdefault(link.seed, {})[link.order[0]] = (
                    replies[0] if replies else None
                )
            self._ready(link.seed)
        elif link.seed in self.source_replies:
            self._judge(record, link.seed)
        else:
            self.waiting.setdefault(link.seed, []).append(record)
        self.flush()

    def _ready(self, seed: str) -> None:
        """Once every source replay and every isolated round of ``seed`` is in: the source
        replies, the unstable and the context-dependent rounds, then the waiting
        follow-ups."""
        replays = self.sources.get(seed, {})
        isolated = self.isolated.get(seed, {})
        if seed in self.source_replies or len(replays) < self.source_replays:
            return
        if len(isolated) < self.isolated_expected.get(seed, 0):
            return
        first, *others = (replays[k] for k in sorted(replays))
        self.source_replies[seed] = first
        self.unstable[seed] = self._unstable(first, others)
        self.dependent[seed] = self._dependent(first, isolated)
        for waiting in self.waiting.pop(seed, []):
            self._judge(waiting, seed)

    def _dependent(self, source: list[str | None], alone: dict[int, str | None]) -> set[int]:
        """Source rounds whose reply asked alone is not similar to their source reply."""
        out = set()
        for index, reply in alone.items():
            reference = source[index] if index < len(source) else None
            if reply is None or reference is None:
                continue
            if self.similarity(reply, reference) < self.similarity.threshold:
                out.add(index)
        return out

    def _unstable(self, first: list[str | None], others: list[list[str | None]]) -> set[int]:
        """Source rounds whose replies differ between the replays of the source."""
        out = set()
        for index, reply in enumerate(first):
            for other in others:
                again = other[index] if index < len(other) else None
                if reply is None or again is None:
                    continue
                if self.similarity(reply, again) < self.similarity.threshold:
                    out.add(index)
        return out

    def _judge(self, record: ConversationRecord, seed_id: str) -> None:
        link = link_of(record)
        assert link is not None
        follow_up = self.follow_ups.get(record.id)
        summary = FollowUpSummary(
            id=record.id, seed=seed_id, perturbation=link.perturbation or "", order=link.order
        )
        analysis = self.analyses.get(seed_id)
        seed = self.seeds[seed_id]
        if follow_up is None:
            summary.note = "a user transformation: judged by its rule (sparring check)"
        elif analysis is None:
            summary.note = "no answerability analysis of its seed"
        else:
            checks = check_follow_up(
                follow_up,
                analysis,
                self.source_replies[seed_id],
                replies_of(record),
                self.similarity,
                seed.gold,
                record.started_at.date() if record.started_at else None,
                self.unstable.get(seed_id, set()),
                self.dependent.get(seed_id, set()),
            )
            bugs = [c for c in checks if not c.passed]
            summary.checks, summary.bugs = len(checks), len(bugs)
            skipped = sorted(self.unstable.get(seed_id, set()) & set(follow_up.order))
            if skipped:
                summary.note = f"source rounds {skipped} not checked: their replies vary"
            dependent = sorted(self.dependent.get(seed_id, set()) & set(follow_up.order))
            if dependent:
                note = (
                    f"source rounds {dependent} depend on their context for this bot: held "
                    "to MR1 only after the same rounds as in the source"
                )
                summary.note = f"{summary.note}; {note}" if summary.note else note
            if not checks:
                summary.note = summary.note or (
                    "no round got replies on both sides" if record.errors else "no relation applied"
                )
            self.checks += len(checks)
            self.result.bugs.extend(bugs)
        self.result.follow_ups.append(summary)
        if self.on_follow_up is not None:
            self.on_follow_up(summary)

    def flush(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.written < 0.5:
            return
        self.result.follow_ups.sort(key=lambda f: f.id)
        self.result.recount(self.checks)
        self.result.write(self.out)
        self.written = now
