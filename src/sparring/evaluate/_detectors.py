"""Breakdown detectors by name: ``BREAKDOWN_DETECTORS`` holds a factory per name.

Built in: ``offline`` (the shipped classifier, ``OfflineBreakdownDetector``),
``always`` (every chatbot turn a breakdown: the majority baseline of DBDC3's English
development data, where 67.3 % of the turns are breakdowns), and the LLM detectors
``chatchecker`` and ``ghassel`` (``sparring.evaluate._llm_detector``). ``sparring evaluate
--detector NAME`` and ``sparring bench dbdc --detector NAME`` look every name up here, so a
plug-in detector works in both. Other packages add theirs with
``@breakdown_detector("name")`` or through the entry-point group
``sparring.breakdown_detectors`` (an entry point loads a factory)::

    @breakdown_detector("mine")
    def mine(*, model: TextModel | None = None, taxonomy: Taxonomy | None = None)
        -> BreakdownDetector: ...

A factory takes the model (``None``: none configured) and returns a stateless detector;
one that cannot work without a model raises ``sparring.errors.ModelRequired``.
``taxonomy`` is passed only when the user gave a taxonomy file (``--taxonomy``); a factory
without that keyword still works with the shipped taxonomy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sparring.connectors import ChatbotInfo
from sparring.conversations import ConversationRecord
from sparring.evaluate._results import BreakdownDetector, ConversationBreakdowns, TurnBreakdown
from sparring.evaluate._taxonomy import Taxonomy
from sparring.registry import Registry
from sparring.types import Strategy, TextModel


class DetectorFactory(Protocol):
    """Builds a breakdown detector; ``model`` is ``None`` when no model is configured."""

    def __call__(
        self, *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
    ) -> BreakdownDetector: ...


BREAKDOWN_DETECTORS: Registry[DetectorFactory] = Registry(
    "breakdown detector",
    group="sparring.breakdown_detectors",
    builtins=(
        "sparring.evaluate._detectors",
        "sparring.evaluate._offline",
        "sparring.evaluate._llm_detector",
    ),
)


def breakdown_detector(name: str) -> Callable[[DetectorFactory], DetectorFactory]:
    """``@breakdown_detector("name")``: register a detector factory under ``name``."""
    return BREAKDOWN_DETECTORS.decorator(name)


def make_detector(
    name: str, *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """The detector registered as ``name``, built with ``model`` (and ``taxonomy`` when
    given). Raises ``UnknownName`` (a ``UserInputError`` listing the names, with "did you
    mean") for an unregistered one, ``ModelRequired`` for an LLM detector without a
    model."""
    factory = BREAKDOWN_DETECTORS.get(name)
    if taxonomy is None:
        return factory(model=model)
    return factory(model=model, taxonomy=taxonomy)


class AlwaysBreakdownDetector:
    """Judges every chatbot turn a breakdown (score 0): the majority baseline."""

    name = "always"
    strategy = Strategy.OFFLINE

    async def detect(
        self, record: ConversationRecord, chatbot: ChatbotInfo, taxonomy: list[str]
    ) -> ConversationBreakdowns:
        """Every assistant turn of ``record``, a breakdown with score 0."""
        return ConversationBreakdowns(
            conversation=record.id,
            profile=record.profile,
            detector=self.name,
            turns=[
                TurnBreakdown(
                    turn=i,
                    breakdown=True,
                    score=0.0,
                    reasoning="baseline: every turn is a breakdown",
                    detector=self.name,
                    strategy=self.strategy,
                )
                for i, turn in enumerate(record.turns)
                if turn.role == "assistant"
            ],
        )


@breakdown_detector("always")
def always_detector(
    *, model: TextModel | None = None, taxonomy: Taxonomy | None = None
) -> BreakdownDetector:
    """The majority baseline (``AlwaysBreakdownDetector``); ``model`` is ignored."""
    return AlwaysBreakdownDetector()
