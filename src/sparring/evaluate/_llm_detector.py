"""LLM breakdown detectors: ChatChecker's (taxonomy, chatbot description, structured output)
and Ghassel et al.'s zero-shot prompt, for comparison.

Each chatbot turn is judged in its context by one call at temperature 0 (``module=
"evaluate"``), the turns of a conversation concurrently within ``model.concurrency``. A
reply that does not validate is retried once with the errors shown (``sparring.llm.Model``),
then the turn is *unscored* (``breakdown=None``) with the raw reply kept. A turn where the
chatbot crashed (a 500/504 failure recorded at it, or an empty reply) is labelled
``chatbot crash`` without a model call (ChatChecker §3.2). Prompt, raw reply, tokens and
cost (US dollars) are stored on every judged turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord, crash_turns
from sparring.errors import ModelError, ModelRequired
from sparring.evaluate._detectors import breakdown_detector
from sparring.evaluate._prompts import detection_messages, ghassel_messages, prompt_text
from sparring.evaluate._results import (
    CHATBOT_CRASH,
    BreakdownDetector,
    ConversationBreakdowns,
    TurnBreakdown,
)
from sparring.evaluate._taxonomy import Taxonomy, load_taxonomy, match_names
from sparring.llm import Generation, Model
from sparring.precision import JudgeQuality
from sparring.types import ModelUsage, Strategy, TextModel

MODULE = "evaluate"
"""The cost module of every evaluation call."""


class BreakdownReply(BaseModel):
    """ChatChecker's structured reply for one utterance."""

    reasoning: str = Field(description="Why the utterance is or is not a breakdown")
    score: float = Field(ge=0.0, le=1.0, description="0 = complete breakdown, 1 = seamless")
    decision: Literal["breakdown", "no_breakdown"]
    breakdown_types: list[str] = Field(
        default_factory=list, description="Every fitting error type; empty without breakdown"
    )


class GhasselReply(BaseModel):
    """Ghassel et al.'s reply: a list of one object, or the object itself."""

    reasoning: str
    decision: Literal["BREAKDOWN", "NON-BREAKDOWN"]
    score: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="before")
    @classmethod
    def _first_of_list(cls, data: Any) -> Any:
        if isinstance(data, list) and len(data) >= 1:
            return data[0]
        return data


def usage_of(generation: Generation) -> ModelUsage:
    """A generation's tokens and cost (US dollars) as one call's usage."""
    return ModelUsage(
        calls=1,
        prompt_tokens=generation.prompt_tokens,
        completion_tokens=generation.completion_tokens,
        cost=generation.cost,
    )


class _LlmDetector:
    """What both LLM detectors share: crash turns, bounded concurrency, unscored turns."""

    name = "llm"
    strategy = Strategy.LLM

    def __init__(self, model: Model, taxonomy: Taxonomy | None = None) -> None:
        self.model = model
        self.taxonomy = taxonomy if taxonomy is not None else load_taxonomy()

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """Judge every chatbot turn of ``record`` (crash turns without a model call) and
        return the judgements in turn order. ``taxonomy`` lists the allowed type names."""
        crashes = crash_turns(record)
        slots = asyncio.Semaphore(max(1, self.model.concurrency))

        async def judge(index: int) -> TurnBreakdown:
            if index in crashes:
                return self._crash(index, crashes[index])
            async with slots:
                return await self._judge(record, index, chatbot, taxonomy)

        indexes = sorted(
            {i for i, t in enumerate(record.turns) if t.role == "assistant"} | set(crashes)
        )
        turns = await asyncio.gather(*(judge(i) for i in indexes))
        return ConversationBreakdowns(
            conversation=record.id, profile=record.profile, detector=self.name, turns=turns
        )

    def _crash(self, index: int, reason: str) -> TurnBreakdown:
        return TurnBreakdown(
            turn=index,
            breakdown=True,
            score=0.0,
            error_types=[CHATBOT_CRASH],
            reasoning=reason,
            detector=self.name,
            strategy=self.strategy,
        )

    async def _judge(
        self, record: ConversationRecord, index: int, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> TurnBreakdown:
        messages = self._messages(record, index, chatbot, taxonomy)
        prompt = prompt_text(messages)
        try:
            generation = await self.model.generate(
                messages, self._schema(), module=MODULE, temperature=0.0
            )
        except ModelError as exc:
            return TurnBreakdown(
                turn=index,
                breakdown=None,
                reasoning=f"unscored: {exc}",
                detector=self.name,
                strategy=self.strategy,
                prompt=prompt,
                raw=exc.raw,
            )
        breakdown, score, types, reasoning = self._read(generation.parsed, taxonomy)
        return TurnBreakdown(
            turn=index,
            breakdown=breakdown,
            score=score,
            error_types=types,
            reasoning=reasoning,
            detector=self.name,
            strategy=self.strategy,
            prompt=prompt,
            raw=generation.text,
            usage=usage_of(generation),
        )

    def _messages(
        self, record: ConversationRecord, index: int, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> list[dict[str, str]]:
        raise NotImplementedError

    def _schema(self) -> type[BaseModel]:
        raise NotImplementedError

    def _read(self, parsed: Any, taxonomy: list[str]) -> tuple[bool, float, list[str], str]:
        raise NotImplementedError


class ChatCheckerDetector(_LlmDetector):
    """ChatChecker's breakdown detector (Mayr, Schimpf, Bohné 2025, §3.2): the taxonomy's
    types with their descriptions and the chatbot's description in the prompt; the reply
    gives decision, score in [0, 1], fitting error types (matched onto the allowed names,
    others dropped) and reasoning. ``taxonomy`` supplies the descriptions (default: the
    shipped 26 types)."""

    name = "chatchecker"
    quality = JudgeQuality(
        judge="chatchecker",
        strategy=Strategy.LLM,
        labels=True,
        summary=(
            "labels turns with the model you give it; not measured by sparring (no model on "
            "its test machines). Published: with GPT-4o, accuracy 0.669 and F1 0.764 on DBDC5's "
            "English evaluation data (Mayr et al. 2025, §4); other models: not measured"
        ),
    )
    """What is known of its verdicts: published figures only (``measurements`` empty)."""

    def _messages(
        self, record: ConversationRecord, index: int, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> list[dict[str, str]]:
        described = [(name, self._description(name)) for name in taxonomy]
        return detection_messages(record.turns, index, described, chatbot)

    def _description(self, name: str) -> str:
        known = self.taxonomy.get(name)
        return known.description if known is not None else "(no description)"

    def _schema(self) -> type[BaseModel]:
        return BreakdownReply

    def _read(self, parsed: Any, taxonomy: list[str]) -> tuple[bool, float, list[str], str]:
        reply: BreakdownReply = parsed
        breakdown = reply.decision == "breakdown"
        types = match_names(reply.breakdown_types, taxonomy) if breakdown else []
        return breakdown, reply.score, types, reply.reasoning


class GhasselDetector(_LlmDetector):
    """Ghassel et al.'s zero-shot detector ("Are Large Language Models General-Purpose
    Solvers for Dialogue Breakdown Detection?", CCECE 2024), as ChatChecker compares
    against it: breakdown definition only, no taxonomy (``error_types`` stay empty) and
    no chatbot description; decision, score and reasoning."""

    name = "ghassel"
    quality = JudgeQuality(
        judge="ghassel",
        strategy=Strategy.LLM,
        labels=True,
        summary=(
            "labels turns with the model you give it; not measured by sparring (no model on "
            "its test machines): ChatChecker's baseline, kept for comparison"
        ),
    )
    """What is known of its verdicts: nothing measured (``measurements`` empty)."""

    def _messages(
        self, record: ConversationRecord, index: int, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> list[dict[str, str]]:
        return ghassel_messages(record.turns, index)

    def _schema(self) -> type[BaseModel]:
        return GhasselReply

    def _read(self, parsed: Any, taxonomy: list[str]) -> tuple[bool, float, list[str], str]:
        reply: GhasselReply = parsed
        return reply.decision == "BREAKDOWN", reply.score, [], reply.reasoning


def total_usage(usages: Iterable[ModelUsage | None]) -> ModelUsage:
    """Calls, tokens and cost (US dollars) summed (``None`` counts nothing)."""
    total = ModelUsage()
    for usage in usages:
        if usage is not None:
            total.calls += usage.calls
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
            total.cost += usage.cost
    return total


def detector_usage(results: Iterable[ConversationBreakdowns]) -> ModelUsage:
    """Calls, tokens and cost (US dollars) summed over every judged turn."""
    return total_usage(turn.usage for conversation in results for turn in conversation.turns)


def _needs(model: TextModel | None, name: str) -> Model:
    if model is None:
        raise ModelRequired(f"breakdown detection with the {name} detector")
    if not isinstance(model, Model):
        raise TypeError(f"the {name} detector needs a sparring.llm.Model, not {model!r}")
    return model


@breakdown_detector("chatchecker")
def chatchecker_detector(
    *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """ChatChecker's detector (``ChatCheckerDetector``); ``ModelRequired`` without a model."""
    return ChatCheckerDetector(_needs(model, "chatchecker"), taxonomy)


@breakdown_detector("ghassel")
def ghassel_detector(
    *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """Ghassel et al.'s detector (``GhasselDetector``); ``ModelRequired`` without a model."""
    return GhasselDetector(_needs(model, "ghassel"), taxonomy)
