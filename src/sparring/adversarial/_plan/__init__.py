"""Weakness planning (``sparring adversarial plan``): the static scan of an agent's code
or Rasa project into typed findings and a graph of states and transitions, the developer
interview, lessons from documents and search providers, and the weaknesses the model
proposes (or, offline, the findings written as weaknesses) — docs/adversarial-plan.md.
"""

from sparring.adversarial._plan._common import MODULE
from sparring.adversarial._plan._findings import Finding, FindingKind, ScanResult, Severity
from sparring.adversarial._plan._interview import (
    AnswersFile,
    FileInterviewer,
    Interview,
    Interviewer,
    InterviewTurn,
    NextQuestion,
    ScriptedAnswer,
    TerminalInterviewer,
    interview,
    load_answers,
)
from sparring.adversarial._plan._job import (
    PlanJob,
    PlanRecord,
    PlanResult,
    PlanSettings,
)
from sparring.adversarial._plan._knowledge import (
    SEARCH_PROVIDERS,
    Lesson,
    LessonDrafts,
    SearchHit,
    SearchProvider,
    document_lessons,
    read_documents,
    search_lessons,
)
from sparring.adversarial._plan._propose import WeaknessDraft, WeaknessDrafts, propose_weaknesses
from sparring.adversarial._plan._scan import (
    STATIC_SCAN,
    graph_summary,
    scan_source,
    weaknesses_from_findings,
)

__all__ = [
    "MODULE",
    "SEARCH_PROVIDERS",
    "STATIC_SCAN",
    "AnswersFile",
    "FileInterviewer",
    "Finding",
    "FindingKind",
    "Interview",
    "InterviewTurn",
    "Interviewer",
    "Lesson",
    "LessonDrafts",
    "NextQuestion",
    "PlanJob",
    "PlanRecord",
    "PlanResult",
    "PlanSettings",
    "ScanResult",
    "ScriptedAnswer",
    "SearchHit",
    "SearchProvider",
    "Severity",
    "TerminalInterviewer",
    "WeaknessDraft",
    "WeaknessDrafts",
    "document_lessons",
    "graph_summary",
    "interview",
    "load_answers",
    "propose_weaknesses",
    "read_documents",
    "scan_source",
    "search_lessons",
    "weaknesses_from_findings",
]
