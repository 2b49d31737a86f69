"""What the model writes over all the tests (Agent-Testing Agent, arXiv 2508.17393, §3.3:
the report): an executive summary, patterns across weaknesses and prioritised code
recommendations; and ``ask``, a follow-up question answered from the stored results.

Both read the results as text (``results_context``): per weakness its scores,
difficulties, criteria and observations, never the full transcripts, so the context stays
small (about 150 words per test).
"""

from __future__ import annotations

from sparring.adversarial._results import AdversarialResult, Analysis
from sparring.llm import Meter, Model

ANALYSIS_MODULE = "adversarial_report"
ASK_MODULE = "adversarial_ask"
ANALYST_ROLE = "You are the analyst of an adversarial test run of a chatbot"
"""The first words of the analysis instructions (scripted models in tests match them)."""
ASK_ROLE = "You answer questions about an adversarial test run of a chatbot"


def results_context(result: AdversarialResult) -> str:
    """The results as plain text: one block per weakness (mean score, difficulty
    trajectory, each test's goal, score, failing criteria and observations)."""
    blocks: list[str] = []
    for weakness in result.weaknesses:
        mean = result.mean_score(weakness.id)
        trajectory = " → ".join(f"{d:.2f}" for d in result.trajectory(weakness.id))
        lines = [
            f"Weakness {weakness.id} ({weakness.category.value}): {weakness.title}",
            f"  mean score: {mean if mean is not None else 'unscored'}; difficulty: {trajectory}",
        ]
        for test in result.tests_of(weakness.id):
            score = f"{test.score:.2f}/10" if test.score is not None else test.status
            goal = test.plan.goal if test.plan is not None else "(no plan)"
            lines.append(
                f"  round {test.round + 1} (difficulty {test.difficulty:.2f}, conversation "
                f"{test.conversation_id}): {goal} → {score}"
            )
            low = [
                f"{c.criterion} {c.score}/5: {c.reasoning}" for c in test.criteria if c.score <= 3
            ]
            lines.extend(f"    low: {item}" for item in low)
            lines.extend(f"    observed: {o}" for o in test.observations)
            if test.reason:
                lines.append(f"    note: {test.reason}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


async def analyse(model: Model, result: AdversarialResult, meter: Meter | None = None) -> Analysis:
    """The executive summary, patterns and prioritised recommendations for ``result``
    (module ``adversarial_report``). Raises ``ModelError``, ``BudgetExceeded``."""
    system = (
        f"{ANALYST_ROLE}. From the judged tests below write: executive_summary (a short "
        "paragraph for the developer), patterns (failures that recur across weaknesses), "
        "recommendations (each with priority 1 = first to 5, the weakness ids it addresses "
        "and the change to make in the chatbot's code, data or prompts). Answer as JSON."
    )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": results_context(result)},
    ]
    generation = await model.generate(messages, Analysis, module=ANALYSIS_MODULE, meter=meter)
    analysis = generation.parsed
    assert isinstance(analysis, Analysis)
    analysis.recommendations.sort(key=lambda r: r.priority)
    return analysis


async def ask(model: Model, result: AdversarialResult, question: str) -> str:
    """The model's answer to ``question`` from the stored results (module
    ``adversarial_ask``). Raises ``ModelError``."""
    system = (
        f"{ASK_ROLE}. Answer only from the results below; cite weakness ids, rounds and "
        "conversation ids; say so when the results do not tell."
    )
    analysis = ""
    if result.analysis is not None:
        analysis = f"\n\nExecutive summary: {result.analysis.executive_summary}"
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Results:\n{results_context(result)}{analysis}"},
        {"role": "user", "content": f"Question: {question}"},
    ]
    generation = await model.generate(messages, module=ASK_MODULE)
    return generation.text.strip()
