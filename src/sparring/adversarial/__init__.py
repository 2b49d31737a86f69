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

# Weakness planning: `sparring adversarial plan` (docs/adversarial-plan.md).
from sparring.adversarial._plan import (
    SEARCH_PROVIDERS,
    STATIC_SCAN,
    AnswersFile,
    Finding,
    FindingKind,
    PlanRecord,
    PlanResult,
    PlanSettings,
    ScanResult,
    SearchHit,
    SearchProvider,
    graph_summary,
    load_answers,
    plan_job,
    plan_job_async,
    scan_source,
    weaknesses_from_findings,
)

__all__ += [
    "SEARCH_PROVIDERS",
    "STATIC_SCAN",
    "AnswersFile",
    "Finding",
    "FindingKind",
    "PlanRecord",
    "PlanResult",
    "PlanSettings",
    "ScanResult",
    "SearchHit",
    "SearchProvider",
    "graph_summary",
    "load_answers",
    "plan_job",
    "plan_job_async",
    "scan_source",
    "weaknesses_from_findings",
]
