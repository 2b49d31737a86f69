"""The ``adversarial`` job: weakness planning, adaptive judge-steered adversarial threads
(the Agent-Testing Agent, Komoravolu and Mrini, arXiv 2508.17393) and offline probes with
oracles that need no model (docs/adversarial.md)."""

from __future__ import annotations

from sparring.adversarial._weaknesses import (
    WEAKNESSES_FILE,
    Difficulty,
    ExampleTest,
    Weakness,
    WeaknessCategory,
    WeaknessFile,
    load_weaknesses,
    write_weaknesses,
)

__all__ = [
    "WEAKNESSES_FILE",
    "Difficulty",
    "ExampleTest",
    "Weakness",
    "WeaknessCategory",
    "WeaknessFile",
    "load_weaknesses",
    "write_weaknesses",
]

# --- adversarial threads, judge, difficulty, results (sparring adversarial test / ask) ---
from sparring.adversarial._analysis import ANALYST_ROLE, ASK_ROLE, analyse, ask, results_context
from sparring.adversarial._attacker import ATTACKER_ROLE, USER_ROLE, AdversarialUser, plan_test
from sparring.adversarial._difficulty import (
    DifficultyTracker,
    difficulty_band,
    proposed_difficulty,
    turn_limit,
    weight,
    weighted_difficulty,
)
from sparring.adversarial._job import (
    AdversarialRun,
    AdversarialTestSettings,
    adversarial_resume_job,
    adversarial_resume_job_async,
    adversarial_test_job,
    adversarial_test_job_async,
    ask_async,
    load_results,
)
from sparring.adversarial._judge import JUDGE_ROLE, Judgement, judge_test
from sparring.adversarial._results import (
    ADVERSARIAL_FILE,
    AdversarialResult,
    AdversarialTest,
    Analysis,
    CriterionScore,
    Observation,
    Recommendation,
    TestPlan,
)
from sparring.adversarial._rubrics import (
    DEFAULT_RUBRIC,
    Criterion,
    Rubric,
    default_rubric_path,
    load_rubric,
)

__all__ += [
    "ADVERSARIAL_FILE",
    "ANALYST_ROLE",
    "ASK_ROLE",
    "ATTACKER_ROLE",
    "DEFAULT_RUBRIC",
    "JUDGE_ROLE",
    "USER_ROLE",
    "AdversarialResult",
    "AdversarialRun",
    "AdversarialTest",
    "AdversarialTestSettings",
    "AdversarialUser",
    "Analysis",
    "Criterion",
    "CriterionScore",
    "DifficultyTracker",
    "Judgement",
    "Observation",
    "Recommendation",
    "Rubric",
    "TestPlan",
    "adversarial_resume_job",
    "adversarial_resume_job_async",
    "adversarial_test_job",
    "adversarial_test_job_async",
    "analyse",
    "ask",
    "ask_async",
    "default_rubric_path",
    "difficulty_band",
    "judge_test",
    "load_results",
    "load_rubric",
    "plan_test",
    "proposed_difficulty",
    "results_context",
    "turn_limit",
    "weight",
    "weighted_difficulty",
]
