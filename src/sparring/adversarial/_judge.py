"""The LLM judge of one adversarial test (Agent-Testing Agent, arXiv 2508.17393, §3.2:
LLM-as-a-judge with a rubric).

The judge reads the conversation and scores each criterion 1–5 with its reasoning: the
rubric's criteria, then the test's own (the weakness's and the attacker's). The overall
score (1–10) is computed from them, not asked for (``Rubric.overall``), and the judge's
written observations steer the thread's next test and are shared with the other threads.
A judge whose call fails or whose reply never validates gives an *unscored* judgement with
the reason — never a score.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from sparring.adversarial._results import CriterionScore, TestPlan
from sparring.adversarial._rubrics import Criterion, Rubric
from sparring.conversations import ConversationRecord
from sparring.errors import ModelError
from sparring.llm import Meter, Model

JUDGE_MODULE = "adversarial_judge"
JUDGE_ROLE = "You are the judge of an adversarial test of a chatbot"
"""The first words of the judge's instructions (scripted models in tests match them)."""


class ScoredCriterion(BaseModel):
    """The judge's score of the criterion numbered ``criterion`` (1-based)."""

    criterion: int = Field(ge=1)
    score: int = Field(ge=1, le=5)
    reasoning: str = ""


class JudgeReply(BaseModel):
    """The judge model's structured answer."""

    scores: list[ScoredCriterion]
    observations: list[str] = Field(
        default_factory=list,
        description="What the chatbot did wrong or right, to steer the next test.",
    )


class Judgement(BaseModel):
    """A judged test: ``score`` (overall, 1–10) and ``criteria`` when ``scored``; ``reason``
    when not (the judge failed, or scored no criterion)."""

    scored: bool
    score: float | None = None
    criteria: list[CriterionScore] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)
    reason: str | None = None


def with_test_criteria(rubric: Rubric, plan: TestPlan) -> Rubric:
    """``rubric`` with the test's own criteria appended (weight 1 each; a criterion the
    rubric already names is not repeated)."""
    known = {c.name for c in rubric.criteria}
    extra = [Criterion(name=c, description=c) for c in plan.criteria if c not in known]
    return rubric.model_copy(update={"criteria": [*rubric.criteria, *extra]})


def transcript(record: ConversationRecord) -> str:
    """The conversation as ``User: …`` / ``Chatbot: …`` lines, then how it ended."""
    lines = [
        f"{'User' if turn.role == 'user' else 'Chatbot'}: {turn.sensei_text}"
        for turn in record.turns
    ]
    for error in record.errors:
        lines.append(f"(The conversation failed: {error.message})")
    return "\n".join(lines) or "(no turns)"


def judge_messages(
    rubric: Rubric, plan: TestPlan, record: ConversationRecord
) -> list[dict[str, str]]:
    """The judge's prompt: the rubric's criteria numbered, the test and the transcript."""
    criteria = "\n".join(
        f"{n}. {c.name}: {c.description.strip()}" if c.name != c.description else f"{n}. {c.name}"
        for n, c in enumerate(rubric.criteria, start=1)
    )
    scale = "\n".join(f"{k}: {v}" for k, v in sorted(rubric.scale.items()))
    system = [
        f"{JUDGE_ROLE}. Score the chatbot's behaviour on each numbered criterion from 1 "
        "(fails it) to 5 (fully meets it), with a sentence of reasoning. Then write short "
        "observations that would help design a harder or better-aimed next test.",
        "Answer as JSON: scores (a list of {criterion: number, score: 1-5, reasoning}), "
        "observations (a list of sentences).",
    ]
    if scale:
        system.append(f"The overall utility scale these criteria feed (1-10):\n{scale}")
    user = (
        f"Test persona: {plan.persona}\nGoal: {plan.goal}\nTone: {plan.tone}\n\n"
        f"Criteria:\n{criteria}\n\nConversation:\n{transcript(record)}"
    )
    return [{"role": "system", "content": "\n".join(system)}, {"role": "user", "content": user}]


async def judge_test(
    model: Model,
    rubric: Rubric,
    plan: TestPlan,
    record: ConversationRecord,
    meter: Meter | None = None,
) -> Judgement:
    """Judge one test's conversation (module ``adversarial_judge``). Never raises for the
    judge's failure: a ``ModelError`` gives an unscored ``Judgement`` with the reason.
    Raises ``BudgetExceeded`` when ``meter`` is spent."""
    full = with_test_criteria(rubric, plan)
    try:
        generation = await model.generate(
            judge_messages(full, plan, record), JudgeReply, module=JUDGE_MODULE, meter=meter
        )
    except ModelError as exc:
        return Judgement(scored=False, reason=f"the judge failed: {exc}")
    reply = generation.parsed
    assert isinstance(reply, JudgeReply)
    return judgement_of(full, reply.scores, reply.observations)


def judgement_of(
    rubric: Rubric, scores: Sequence[ScoredCriterion], observations: Sequence[str]
) -> Judgement:
    """A judgement from the judge's numbered scores: numbers outside the rubric are
    ignored, the first score of a criterion counts; unscored when none is left."""
    by_name: dict[str, CriterionScore] = {}
    for item in scores:
        if item.criterion > len(rubric.criteria):
            continue
        name = rubric.criteria[item.criterion - 1].name
        by_name.setdefault(
            name, CriterionScore(criterion=name, score=item.score, reasoning=item.reasoning)
        )
    notes = [o.strip() for o in observations if o.strip()]
    if not by_name:
        return Judgement(
            scored=False, observations=notes, reason="the judge scored no criterion of the rubric"
        )
    ordered = [by_name[c.name] for c in rubric.criteria if c.name in by_name]
    overall = rubric.overall({c.criterion: c.score for c in ordered})
    return Judgement(scored=True, score=overall, criteria=ordered, observations=notes)
