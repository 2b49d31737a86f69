"""``PlanJob``: weakness planning (``sparring adversarial plan``), from the static scan,
the developer interview and documents to ``weaknesses.yaml``.

Two strategies (docs/architecture.md, "Two strategies"):

- **offline** (no model): the static scan of ``source``, each finding written as a
  weakness with ``sources: [static-scan]`` and templated example tests. Without
  ``source`` there is nothing offline can do: ``ModelRequired`` before any work; the
  interview, documents and search need a model too.
- **llm**: the scan (when ``source`` is given), the interview (answers file, or a
  terminal), lessons from documents and search, then the model's proposal.

Beside the weaknesses file, ``<stem>.plan.json`` (``PlanRecord``) keeps the findings, the
graph summary and the graph itself (node-link data), the interview, the lessons, the
strategy and the model usage; it is rewritten after each step, so a failed proposal
keeps the scan and the interview.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from sparring._atomic import atomic_write
from sparring.adversarial._plan._findings import Finding, ScanResult
from sparring.adversarial._plan._interview import (
    MAX_QUESTIONS,
    AnswersFile,
    FileInterviewer,
    Interview,
    Interviewer,
    interview,
    load_answers,
)
from sparring.adversarial._plan._knowledge import (
    SEARCH_PROVIDERS,
    Lesson,
    document_lessons,
    read_documents,
    search_lessons,
)
from sparring.adversarial._plan._propose import MAX_WEAKNESSES, propose_weaknesses
from sparring.adversarial._plan._scan import (
    findings_text,
    graph_summary,
    scan_source,
    weaknesses_from_findings,
)
from sparring.adversarial._weaknesses import WeaknessFile, write_weaknesses
from sparring.connectors import ChatbotConfig, load_chatbot_config
from sparring.errors import ModelRequired, Problem, UserInputError
from sparring.jobs import Job, JobContext, JobSettings, ModelNeed, Needs, Outcome, job_inputs
from sparring.jobs import outcome as outcomes
from sparring.llm import CACHE_HELP, MODEL_BASE_URL_HELP, MODEL_HELP
from sparring.types import ModelUsage, Strategy, TextModel

PLAN_SCHEMA_VERSION = 1


class PlanSettings(JobSettings):
    """What ``sparring adversarial plan`` was asked: paths, the model (``None``: offline)
    and the bounds (questions asked, weaknesses proposed)."""

    job: ClassVar[str] = "adversarial-plan"

    chatbot: Path = Field(description="chatbot.yaml (its info describes the bot).")
    source: Path | None = Field(
        None, description="The agent's code (Python) or Rasa project: scanned offline."
    )
    answers: Path | None = Field(
        None, description="YAML answers to the interview (CI); needs --model."
    )
    docs: Path | None = Field(None, description="Folder of .md/.txt documents read for lessons.")
    search: str | None = Field(
        None, description="A search provider plug-in to ask (none by default)."
    )
    model: str | None = Field(None, description=MODEL_HELP)
    model_base_url: str | None = Field(None, description=MODEL_BASE_URL_HELP)
    cache: bool = Field(False, description=CACHE_HELP)
    out: Path = Field(Path("weaknesses.yaml"), description="The weaknesses file.")
    max_questions: int = Field(
        default=MAX_QUESTIONS, ge=0, le=20, description="Interview questions at most (0: none)."
    )
    max_weaknesses: int = Field(
        default=MAX_WEAKNESSES, ge=1, le=50, description="Weaknesses the model proposes at most."
    )


class PlanRecord(BaseModel):
    """``<stem>.plan.json``: what planning gathered and how (see the module docstring)."""

    schema_version: int = PLAN_SCHEMA_VERSION
    settings: dict[str, Any] = Field(default_factory=dict, description="PlanSettings, as JSON.")
    chatbot: str | None
    strategy: Strategy
    model: str | None = None
    scanner: str | None = None
    findings: list[Finding] = Field(default_factory=list)
    graph_summary: str = ""
    graph: dict[str, Any] = Field(default_factory=dict)
    interview: Interview = Field(default_factory=Interview)
    lessons: list[Lesson] = Field(default_factory=list)
    weaknesses: int = 0
    usage: ModelUsage = Field(default_factory=ModelUsage)


@dataclass
class PlanResult:
    """The outcome: the weaknesses file written (``None`` when there was nothing to
    write: an offline scan with no finding), its path, the scan and the record."""

    weaknesses: WeaknessFile | None
    path: Path | None
    record_path: Path
    record: PlanRecord
    scan: ScanResult | None


@dataclass(frozen=True)
class _PlanInputs:
    """What planning reads before any work: chatbot.yaml, the interview's answers (``None``:
    no answers file) and the documents."""

    config: ChatbotConfig
    answers: AnswersFile | None
    documents: list[tuple[str, str]]


class PlanJob(Job[PlanSettings, PlanResult]):
    """``adversarial plan`` on the runner (``sparring.runner.start(PlanJob(), settings)``): it
    writes the weaknesses file and its record (``settings.out``), no run. ``model``
    overrides ``settings.model`` (tests pass a ``ScriptedModel``); ``interviewer`` answers
    the interview when there is no answers file (the CLI passes a terminal)."""

    name: ClassVar[str] = PlanSettings.job
    settings_type: ClassVar[type[PlanSettings]] = PlanSettings
    creates_run: ClassVar[bool] = False
    needs: ClassVar[Needs] = Needs(model=ModelNeed.OPTIONAL)

    def __init__(
        self, model: TextModel | None = None, interviewer: Interviewer | None = None
    ) -> None:
        self.model = model
        self.interviewer = interviewer

    def load_inputs(self, settings: PlanSettings) -> _PlanInputs:
        """Read chatbot.yaml, the answers and the documents and check the rest before the
        model is loaded: ``ConfigError`` for a bad chatbot.yaml or answers file,
        ``UserInputError`` for a missing source or docs folder, ``UnknownName`` for an
        unknown search provider, ``ModelRequired`` (naming ``--model``) offline when a
        step needs a model."""
        config = load_chatbot_config(settings.chatbot)
        answers = load_answers(settings.answers) if settings.answers else None
        documents = read_documents(settings.docs) if settings.docs else []
        if settings.source is not None and not settings.source.exists():
            raise UserInputError(Problem(str(settings.source), None, "--source", "no such path"))
        if settings.search:
            SEARCH_PROVIDERS.get(settings.search)
        if self.model is None and not settings.model:
            _offline_checks(settings)
        return _PlanInputs(config, answers, documents)

    async def execute(self, settings: PlanSettings, ctx: JobContext) -> PlanResult:
        inputs = job_inputs(ctx, self.load_inputs, settings)
        return await _plan(settings, inputs, ctx.model, self.interviewer)

    def outcome(self, result: PlanResult) -> Outcome:
        """``pass`` when weaknesses were written, ``no_verdict`` when none was found."""
        if result.path is None or result.weaknesses is None:
            return outcomes.no_verdict("no weakness found: nothing written")
        return outcomes.passed(f"{len(result.weaknesses.weaknesses)} weaknesses in {result.path}")


async def _plan(
    settings: PlanSettings,
    inputs: _PlanInputs,
    model: TextModel | None,
    interviewer: Interviewer | None,
) -> PlanResult:
    import networkx as nx

    config, answers, documents = inputs.config, inputs.answers, inputs.documents
    name = config.info.name or settings.chatbot.stem
    record = PlanRecord(
        settings=settings.model_dump(mode="json"),
        chatbot=name,
        strategy=Strategy.OFFLINE if model is None else Strategy.LLM,
        model=None if model is None else model.name,
    )
    record_path = settings.out.with_name(f"{settings.out.stem}.plan.json")
    scan = scan_source(settings.source) if settings.source else None
    if scan is not None:
        record.scanner, record.findings = scan.scanner, scan.findings
        record.graph_summary = graph_summary(scan)
        record.graph = nx.node_link_data(scan.graph, edges="edges")
        _write_record(record, record_path)
    if model is None:
        assert scan is not None
        weaknesses = weaknesses_from_findings(scan.findings)
    else:
        agent = config.info.prompt_text() or f"A chatbot named {name}."
        context = agent
        if scan is not None:
            context += f"\n\nStatic scan:\n{record.graph_summary}"
            context += f"\n\nFindings:\n{findings_text(scan.findings) or '(none)'}"
        who: Interviewer | None = FileInterviewer(answers) if answers else interviewer
        if who is not None and settings.max_questions:
            record.interview = await interview(
                model, context, who, settings.max_questions, record.usage
            )
            _write_record(record, record_path)
        record.lessons = await document_lessons(documents, model, agent, record.usage)
        if settings.search:
            queries = [f"{config.info.description or name} chatbot failures"]
            record.lessons += await search_lessons(
                settings.search, queries, model, agent, usage=record.usage
            )
        if record.lessons:
            _write_record(record, record_path)
        weaknesses = await propose_weaknesses(
            model,
            agent,
            graph=record.graph_summary,
            findings=record.findings,
            interview=record.interview,
            lessons=record.lessons,
            max_weaknesses=settings.max_weaknesses,
            usage=record.usage,
        )
    record.weaknesses = len(weaknesses)
    _write_record(record, record_path)
    if not weaknesses:
        return PlanResult(None, None, record_path, record, scan)
    file = WeaknessFile(chatbot=name, weaknesses=weaknesses)
    path = write_weaknesses(file, settings.out)
    return PlanResult(file, path, record_path, record, scan)


def _offline_checks(settings: PlanSettings) -> None:
    """Without a model only the static scan runs: stop before any work otherwise."""
    if settings.answers or settings.docs or settings.search:
        step = (
            "the developer interview (--answers)"
            if settings.answers
            else "reading documents (--docs)"
            if settings.docs
            else "search (--search)"
        )
        raise ModelRequired(step, "only the static scan (--source) runs offline")
    if settings.source is None:
        raise ModelRequired(
            "weakness planning", "offline, pass --source DIR to plan from the static scan"
        )


def _write_record(record: PlanRecord, path: Path) -> None:
    """Write ``record`` atomically (``sparring._atomic``)."""
    text = json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False)
    atomic_write(path, text, durable=False)
