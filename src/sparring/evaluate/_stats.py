"""Dialogue statistics per conversation and per run: ChatChecker's table columns (Mayr,
Schimpf, Bohné 2025, §4, tables 2–4).

Turns by role; words per turn (whitespace words) as five-number summaries (min, Q1,
median, Q3, max; linear interpolation, numpy's default); lexical diversity as MTLD
(McCarthy & Jarvis 2010) over every token a role said, computed by ``lexical-diversity``
(the implementation ChatChecker uses: its tokenizer, TTR threshold 0.72, factors of at
least 10 tokens, the mean of the forward and backward passes); dialogues with
breakdowns, total breakdowns, breakdowns per chatbot turn (over every chatbot turn, the
labelled ones counted beside), unique breakdown types,
the turn of the first breakdown (1-based turn number in the conversation), chatbot
crashes, unscored turns, mean rating per dimension, and model cost (US dollars).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from sparring.conversations import ConversationRecord, crash_turns, percentile
from sparring.evaluate._ratings import ConversationRatings
from sparring.evaluate._results import EVALUATION_SCHEMA_VERSION, ConversationBreakdowns


class FiveNumbers(BaseModel):
    """Tukey's five-number summary of a sample."""

    min: float
    q1: float
    median: float
    q3: float
    max: float


def five_numbers(values: Sequence[float]) -> FiveNumbers | None:
    """The five-number summary of ``values`` (``None`` when empty)."""
    if not values:
        return None
    data = [float(v) for v in values]
    return FiveNumbers(
        min=min(data),
        q1=percentile(data, 25),
        median=percentile(data, 50),
        q3=percentile(data, 75),
        max=max(data),
    )


def tokens(text: str) -> list[str]:
    """``text`` as MTLD tokens (``lexical_diversity.lex_div.tokenize``: lower case,
    punctuation dropped, split on whitespace; empty strings removed)."""
    from lexical_diversity import lex_div  # type: ignore[import-untyped]

    return [t for t in lex_div.tokenize(text) if t]


def mtld(words: Sequence[str]) -> float | None:
    """MTLD of a token sequence (``None`` without tokens)."""
    if not words:
        return None
    from lexical_diversity import lex_div

    return float(lex_div.mtld(list(words)))


class BreakdownStats(BaseModel):
    """Breakdown columns of one conversation or a run (``first_breakdown_turn`` is a turn
    number for a conversation, the mean over conversations with a breakdown for a run;
    ``ranked_turns`` are the unscored turns a ranking detector gave a score to;
    ``labelled_turns`` the turns labelled breakdown or not; ``breakdowns_per_chatbot_turn``
    divides by every judged chatbot turn, labelled or not)."""

    detector: str
    judged_turns: int = 0
    labelled_turns: int = 0
    unscored_turns: int = 0
    ranked_turns: int = 0
    dialogues_with_breakdowns: int = 0
    breakdowns: int = 0
    breakdowns_per_chatbot_turn: float | None = None
    unique_types: int = 0
    types: dict[str, int] = Field(default_factory=dict)
    first_breakdown_turn: float | None = None
    mean_score: float | None = None


class _Columns(BaseModel):
    """The columns a conversation and a run share: turns, words per turn, MTLD, crashes,
    breakdowns and costs (US dollars)."""

    user_turns: int
    chatbot_turns: int
    user_words: FiveNumbers | None = None
    chatbot_words: FiveNumbers | None = None
    user_mtld: float | None = None
    chatbot_mtld: float | None = None
    crashes: int = 0
    breakdowns: BreakdownStats | None = None
    simulation_cost: float = 0.0
    evaluation_cost: float = 0.0


class ConversationStats(_Columns):
    """ChatChecker's columns for one conversation."""

    conversation: str
    profile: str = ""
    ratings: dict[str, int] = Field(default_factory=dict)


class RunStats(_Columns):
    """ChatChecker's columns for a run: sums, five-number summaries of turns per
    conversation and of words per turn, MTLD over every turn of a role, breakdown columns,
    mean rating per dimension, costs (US dollars)."""

    conversations: int
    user_turns_per_conversation: FiveNumbers | None = None
    chatbot_turns_per_conversation: FiveNumbers | None = None
    mean_ratings: dict[str, float] = Field(default_factory=dict)
    rated_conversations: int = 0


def _words(record: ConversationRecord, role: str) -> list[int]:
    return [len(t.text.split()) for t in record.turns if t.role == role]


def _role_tokens(record: ConversationRecord, role: str) -> list[str]:
    return [tok for t in record.turns if t.role == role for tok in tokens(t.text)]


def breakdown_stats(detector: str, judged: Iterable[ConversationBreakdowns]) -> BreakdownStats:
    """The breakdown columns over ``judged`` conversations (one or a run)."""
    stats = BreakdownStats(detector=detector)
    types: Counter[str] = Counter()
    firsts: list[int] = []
    scores: list[float] = []
    for conversation in judged:
        stats.judged_turns += len(conversation.turns)
        stats.unscored_turns += sum(1 for t in conversation.turns if t.breakdown is None)
        stats.ranked_turns += sum(
            1 for t in conversation.turns if t.breakdown is None and t.score is not None
        )
        scores += [t.score for t in conversation.turns if t.score is not None]
        found = conversation.breakdowns
        if found:
            stats.dialogues_with_breakdowns += 1
            firsts.append(min(t.turn for t in found) + 1)
        stats.breakdowns += len(found)
        types.update(name for t in found for name in t.error_types)
    stats.labelled_turns = stats.judged_turns - stats.unscored_turns
    turns = stats.judged_turns
    stats.breakdowns_per_chatbot_turn = stats.breakdowns / turns if turns else None
    stats.types = dict(sorted(types.items(), key=lambda item: (-item[1], item[0])))
    stats.unique_types = len(types)
    stats.first_breakdown_turn = sum(firsts) / len(firsts) if firsts else None
    stats.mean_score = sum(scores) / len(scores) if scores else None
    return stats


def _per_turn(found: BreakdownStats) -> str:
    """Breakdowns per chatbot turn, over every chatbot turn, with the labelled count
    beside (a detector that labels few turns finds few breakdowns, not a clean bot)."""
    share = _number(found.breakdowns_per_chatbot_turn, 3)
    return f"{share} ({found.labelled_turns} of {found.judged_turns} turns labelled)"


def _unscored(found: BreakdownStats) -> str:
    """The unscored turns, saying how many were ranked rather than labelled."""
    if not found.ranked_turns:
        return str(found.unscored_turns)
    return f"{found.unscored_turns} ({found.ranked_turns} ranked by score, not labelled)"


def _evaluation_cost(
    breakdowns: Iterable[ConversationBreakdowns], ratings: ConversationRatings | None
) -> float:
    cost = sum(t.usage.cost for c in breakdowns for t in c.turns if t.usage is not None)
    if ratings is not None and ratings.usage is not None:
        cost += ratings.usage.cost
    return cost


def conversation_stats(
    record: ConversationRecord,
    breakdowns: ConversationBreakdowns | None = None,
    ratings: ConversationRatings | None = None,
    *,
    other_breakdowns: Sequence[ConversationBreakdowns] = (),
) -> ConversationStats:
    """ChatChecker's columns for ``record``, with the judgements of one detector
    (``breakdowns``) and its ``ratings`` where there are some; ``other_breakdowns`` (other
    detectors) only add to the evaluation cost."""
    return ConversationStats(
        conversation=record.id,
        profile=record.profile,
        user_turns=sum(1 for t in record.turns if t.role == "user"),
        chatbot_turns=sum(1 for t in record.turns if t.role == "assistant"),
        user_words=five_numbers(_words(record, "user")),
        chatbot_words=five_numbers(_words(record, "assistant")),
        user_mtld=mtld(_role_tokens(record, "user")),
        chatbot_mtld=mtld(_role_tokens(record, "assistant")),
        crashes=len(crash_turns(record)),
        breakdowns=breakdown_stats(breakdowns.detector, [breakdowns]) if breakdowns else None,
        ratings={k: r.rating for k, r in ratings.ratings.items()} if ratings else {},
        simulation_cost=record.cost,
        evaluation_cost=_evaluation_cost(
            [*([breakdowns] if breakdowns else []), *other_breakdowns], ratings
        ),
    )


def run_stats(
    records: Sequence[ConversationRecord],
    conversations: Sequence[ConversationStats],
    breakdowns: Sequence[ConversationBreakdowns] | None = None,
    detector: str | None = None,
) -> RunStats:
    """The run's columns from its records and their per-conversation stats; ``breakdowns``
    (of ``detector``) give the breakdown columns."""
    user_tokens = [tok for r in records for tok in _role_tokens(r, "user")]
    bot_tokens = [tok for r in records for tok in _role_tokens(r, "assistant")]
    rated: dict[str, list[int]] = {}
    for stats in conversations:
        for key, value in stats.ratings.items():
            rated.setdefault(key, []).append(value)
    return RunStats(
        conversations=len(records),
        user_turns=sum(c.user_turns for c in conversations),
        chatbot_turns=sum(c.chatbot_turns for c in conversations),
        user_turns_per_conversation=five_numbers([c.user_turns for c in conversations]),
        chatbot_turns_per_conversation=five_numbers([c.chatbot_turns for c in conversations]),
        user_words=five_numbers([n for r in records for n in _words(r, "user")]),
        chatbot_words=five_numbers([n for r in records for n in _words(r, "assistant")]),
        user_mtld=mtld(user_tokens),
        chatbot_mtld=mtld(bot_tokens),
        crashes=sum(c.crashes for c in conversations),
        breakdowns=breakdown_stats(detector, breakdowns) if breakdowns and detector else None,
        mean_ratings={k: sum(v) / len(v) for k, v in rated.items()},
        rated_conversations=sum(1 for c in conversations if c.ratings),
        simulation_cost=sum(c.simulation_cost for c in conversations),
        evaluation_cost=sum(c.evaluation_cost for c in conversations),
    )


class EvaluationStatistics(BaseModel):
    """``evaluations/statistics.json``: ChatChecker's columns per conversation and run;
    ``detector`` names whose breakdowns they count (``None``: none stored)."""

    schema_version: int = EVALUATION_SCHEMA_VERSION
    detector: str | None = None
    conversations: list[ConversationStats] = Field(default_factory=list)
    run: RunStats


def _five(summary: FiveNumbers | None) -> str:
    if summary is None:
        return "–"
    values = (summary.min, summary.q1, summary.median, summary.q3, summary.max)
    return " / ".join(f"{v:g}" for v in values)


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table_rows(stats: RunStats) -> list[tuple[str, str]]:
    """The run's columns as ``(label, value)`` lines for a terminal table (five-number
    summaries as ``min / Q1 / median / Q3 / max``; ``–`` where there is no value)."""
    rows = [
        ("conversations", str(stats.conversations)),
        ("user turns / chatbot turns", f"{stats.user_turns} / {stats.chatbot_turns}"),
        ("chatbot turns per conversation", _five(stats.chatbot_turns_per_conversation)),
        ("words per user turn", _five(stats.user_words)),
        ("words per chatbot turn", _five(stats.chatbot_words)),
        ("MTLD user / chatbot", f"{_number(stats.user_mtld)} / {_number(stats.chatbot_mtld)}"),
        ("chatbot crashes", str(stats.crashes)),
    ]
    found = stats.breakdowns
    if found is not None:
        rows += [
            ("breakdown detector", found.detector),
            (
                "dialogues with breakdowns",
                f"{found.dialogues_with_breakdowns} of {stats.conversations}",
            ),
            ("total breakdowns", str(found.breakdowns)),
            ("breakdowns per chatbot turn", _per_turn(found)),
            ("unique breakdown types", str(found.unique_types)),
            ("mean turn of the first breakdown", _number(found.first_breakdown_turn, 1)),
            ("unscored turns", _unscored(found)),
        ]
        top = ", ".join(f"{name} {count}" for name, count in list(found.types.items())[:5])
        rows.append(("most frequent types", top or "–"))
    for key, mean in stats.mean_ratings.items():
        rows.append((f"mean rating: {key}", f"{mean:.2f}"))
    rows.append(("evaluation cost (US$)", f"{stats.evaluation_cost:.4f}"))
    return rows
