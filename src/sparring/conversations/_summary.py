"""The run summary (``summary.json``): counts, failures, response times, model usage.

Computed in one pass over a stream of records, so a run of thousands of conversations is
summarised without holding the records in memory (only the response times are kept, one
float per chatbot turn, for the 95th percentile).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, Field

from sparring.conversations._records import SCHEMA_VERSION, ConversationRecord
from sparring.types import ModelUsage


class ResponseTimes(BaseModel):
    """The chatbot's response times over every assistant turn, in seconds (``None`` when
    no turn was timed). ``p95`` is the 95th percentile, linear interpolation between
    closest ranks (numpy's default)."""

    count: int = 0
    mean: float | None = None
    min: float | None = None
    max: float | None = None
    p95: float | None = None


class Durations(BaseModel):
    """Conversation durations (wall-clock seconds); ``count`` conversations had one."""

    count: int = 0
    total: float = 0.0
    mean: float | None = None
    min: float | None = None
    max: float | None = None


class Failures(BaseModel):
    """Conversations with each failure, by failure name (``goal_not_completed``,
    ``timeout``, ... see ``ErrorCode.rule_name``); a conversation counts once per name.

    ``conversations`` is the number of conversations with at least one failure;
    ``by_profile`` maps profile → failure name → conversations.
    """

    conversations: int = 0
    by_code: dict[str, int] = Field(default_factory=dict)
    by_profile: dict[str, dict[str, int]] = Field(default_factory=dict)


class RunSummary(BaseModel):
    """``summary.json``: what a run produced.

    ``turns`` counts chatbot (assistant) turns, ``user_turns`` the user's; ``usage`` is
    tokens and cost (US dollars) by module, summed over conversations, with totals in
    ``tokens`` and ``cost``; ``profiles`` counts conversations per profile; ``started_at``
    and ``ended_at`` span the conversations' own timestamps.
    """

    schema_version: int = SCHEMA_VERSION
    conversations: int = 0
    turns: int = 0
    user_turns: int = 0
    failures: Failures = Field(default_factory=Failures)
    response_time: ResponseTimes = Field(default_factory=ResponseTimes)
    duration: Durations = Field(default_factory=Durations)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    tokens: int = 0
    cost: float = 0.0
    profiles: dict[str, int] = Field(default_factory=dict)
    started_at: datetime | None = None
    ended_at: datetime | None = None


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` by linear interpolation between
    closest ranks (numpy's default method). Raises ``ValueError`` when empty."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


class _Tally:
    """Running totals while the records stream by."""

    def __init__(self) -> None:
        self.summary = RunSummary()
        self.latencies: list[float] = []
        self.durations: list[float] = []
        self.by_code: Counter[str] = Counter()
        self.by_profile: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.profiles: Counter[str] = Counter()

    def add(self, record: ConversationRecord) -> None:
        s = self.summary
        s.conversations += 1
        self.profiles[record.profile] += 1
        for turn in record.turns:
            if turn.role == "assistant":
                s.turns += 1
                if turn.latency is not None:
                    self.latencies.append(turn.latency)
            else:
                s.user_turns += 1
        names = {error.name for error in record.errors}
        if names:
            s.failures.conversations += 1
            self.by_code.update(names)
            self.by_profile[record.profile].update(names)
        if record.duration is not None:
            self.durations.append(record.duration)
        for module, usage in record.usage.items():
            total = s.usage.setdefault(module, ModelUsage())
            total.calls += usage.calls
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
            total.cost += usage.cost
        self._span(record.started_at, record.ended_at)

    def _span(self, start: datetime | None, end: datetime | None) -> None:
        s = self.summary
        if start is not None and (s.started_at is None or start < s.started_at):
            s.started_at = start
        if end is not None and (s.ended_at is None or end > s.ended_at):
            s.ended_at = end

    def finish(self) -> RunSummary:
        s = self.summary
        s.failures.by_code = dict(sorted(self.by_code.items()))
        s.failures.by_profile = {
            p: dict(sorted(c.items())) for p, c in sorted(self.by_profile.items())
        }
        s.profiles = dict(sorted(self.profiles.items()))
        s.usage = dict(sorted(s.usage.items()))
        s.tokens = sum(u.prompt_tokens + u.completion_tokens for u in s.usage.values())
        s.cost = sum(u.cost for u in s.usage.values())
        if self.latencies:
            s.response_time = ResponseTimes(
                count=len(self.latencies),
                mean=math.fsum(self.latencies) / len(self.latencies),
                min=min(self.latencies),
                max=max(self.latencies),
                p95=percentile(self.latencies, 95),
            )
        if self.durations:
            total = math.fsum(self.durations)
            s.duration = Durations(
                count=len(self.durations),
                total=total,
                mean=total / len(self.durations),
                min=min(self.durations),
                max=max(self.durations),
            )
        return s


def summarize(records: Iterable[ConversationRecord]) -> RunSummary:
    """Summarise a stream of records in one pass (see ``RunSummary`` for the keys)."""
    tally = _Tally()
    for record in records:
        tally.add(record)
    return tally.finish()
