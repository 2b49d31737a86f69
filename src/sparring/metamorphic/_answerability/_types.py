"""The answerability contract between the metamorphic job and its two analysers.

MORTAR (Guo et al., arXiv 2412.15557, §3.3 "equivalent context"): a question of a
follow-up dialogue is *answerable* when it is self-contained, or when the part of the
dialogue's knowledge graph it needs was already introduced by the rounds before it in the
follow-up (or by the story). The source dialogue is analysed once
(``DialogueAnalysis``, one ``RoundAnalysis`` per source round); every follow-up — a
sequence of source-round indexes, possibly reordered, reduced or duplicated — is then
judged by ``DialogueAnalysis.follow_up(order)`` without analysing text again.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from sparring.types import Strategy


class SeedRound(BaseModel):
    """One round of a seed dialogue: the user's question and the reply to it (the bot's
    source output, or a gold answer for a question-answering file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str
    answer: str | None = None


class SeedDialogue(BaseModel):
    """A seed dialogue: its rounds in order and, for question answering, the story."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    rounds: list[SeedRound]
    story: str | None = None


class RoundAnalysis(BaseModel):
    """What one source round needs and brings into the context.

    ``needs`` and ``introduces`` are canonical graph elements: entity names (lower-case
    lemmas, ``"the boy"`` → ``"boy"``) and relation triples written ``"subject|relation|object"``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int = Field(ge=0, description="The round's index in the source dialogue.")
    question: str
    self_contained: bool
    needs: list[str] = Field(default_factory=list)
    introduces: list[str] = Field(default_factory=list)
    reason: str = ""
    focus: str | None = Field(
        default=None,
        description="What an elliptical question right after this round continues: what "
        "its reply states, else what its question asked, else its last fact or reference, "
        "else the round itself ('round N').",
    )
    continues: str | None = Field(
        default=None,
        description="For an elliptical question: the focus it continues; it is answerable "
        "only right after a round with that focus.",
    )


class RoundAnswerability(BaseModel):
    """The verdict for one round of a follow-up dialogue."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    position: int = Field(ge=0, description="The round's index in the follow-up.")
    source_round: int = Field(ge=0, description="The source round it came from.")
    question: str
    self_contained: bool
    answerable: bool
    missing: list[str] = Field(
        default_factory=list, description="Needed graph elements absent from its context."
    )
    strategy: Strategy
    reason: str


class DialogueAnalysis(BaseModel):
    """A source dialogue analysed once, by one strategy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dialogue_id: str
    strategy: Strategy
    story_introduces: list[str] = Field(
        default_factory=list, description="Graph elements the story (if any) puts in context."
    )
    rounds: list[RoundAnalysis]

    def follow_up(self, order: Sequence[int]) -> list[RoundAnswerability]:
        """Answerability of each round of the follow-up whose rounds come from the source
        rounds ``order`` (indexes into ``rounds``; repeats allowed). A self-contained
        question is answerable; another is answerable when every element it needs was
        introduced by the story or by an earlier round of the follow-up, and, if it is
        elliptical (``continues``), when the round right before it has that focus. Raises
        ``IndexError`` for an index outside the source dialogue."""
        context = set(self.story_introduces)
        verdicts: list[RoundAnswerability] = []
        previous: RoundAnalysis | None = None
        for position, index in enumerate(order):
            if not 0 <= index < len(self.rounds):
                raise IndexError(f"source round {index} is not in dialogue {self.dialogue_id}")
            analysis = self.rounds[index]
            missing = (
                []
                if analysis.self_contained
                else [need for need in analysis.needs if need not in context]
            )
            detached = (
                not analysis.self_contained
                and analysis.continues is not None
                and analysis.continues not in missing
                and (previous is None or previous.focus != analysis.continues)
            )
            if detached and analysis.continues is not None:
                missing.append(analysis.continues)
            if analysis.self_contained:
                reason = "self-contained question"
            elif detached:
                reason = f"elliptical: continues {analysis.continues}, not the round before it"
            elif missing:
                reason = "needs " + ", ".join(missing) + " not yet in the context"
            else:
                reason = "everything it needs is already in the context"
            verdicts.append(
                RoundAnswerability(
                    position=position,
                    source_round=index,
                    question=analysis.question,
                    self_contained=analysis.self_contained,
                    answerable=analysis.self_contained or not missing,
                    missing=missing,
                    strategy=self.strategy,
                    reason=reason,
                )
            )
            context.update(analysis.introduces)
            previous = analysis
        return verdicts
