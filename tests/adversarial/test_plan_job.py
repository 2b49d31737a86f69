"""``PlanJob``: the offline strategy (the scan's findings as weaknesses), the model path
with the ``scripted`` model (interview from an answers file, lessons from documents, the
proposal reading everything), a search provider plug-in, and the stops before any work."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sparring.adversarial import (
    SEARCH_PROVIDERS,
    STATIC_SCAN,
    PlanJob,
    PlanSettings,
    SearchHit,
    load_weaknesses,
)
from sparring.adversarial._plan import FileInterviewer, NextQuestion, interview, load_answers
from sparring.errors import ConfigError, ModelRequired, UnknownName
from sparring.jobs import run_blocking
from sparring.llm import ScriptedModel
from sparring.runner import start

ROOT = Path(__file__).resolve().parents[2]
PIZZERIA = ROOT / "examples" / "pizzeria"
EXAMPLES = ROOT / "examples" / "adversarial"
ANSWERS = EXAMPLES / "pizzeria-answers.yaml"

PROPOSAL = {
    "weaknesses": [
        {
            "title": "Yes or no outside the drink question",
            "description": "affirm has no rule; users answer yes to anything.",
            "category": "functional",
            "criteria": ["A bare yes gets an answer that fits the last question."],
            "examples": [
                {"difficulty": "hard", "test": "Say yes, but large, to the pizza question."},
                {"difficulty": "easy", "test": "Answer yes to the greeting."},
                {"difficulty": "medium", "test": "Answer no to the size question."},
            ],
            "based_on": ["[intent-unhandled:affirm]", "interview"],
        },
        {
            "title": "Cancelling an order",
            "description": "The pilot notes say the bot cannot cancel and does not say so.",
            "category": "functional",
            "criteria": ["The bot says it cannot cancel."],
            "examples": [
                {"difficulty": "easy", "test": "Ask to cancel a placed order."},
                {"difficulty": "medium", "test": "Ask to cancel mid-order."},
                {"difficulty": "hard", "test": "Insist the order was cancelled."},
            ],
            "based_on": ["docs"],
        },
    ]
}


def _responder(questions: list[str]) -> Any:
    """A scripted planner: asks ``questions`` in turn, then says enough; summarises any
    document into one lesson; proposes ``PROPOSAL``."""

    def reply(messages: list[dict[str, str]]) -> Any:
        system, user = messages[0]["content"], messages[-1]["content"]
        if "interview its developer" in system:
            asked = user.count("\nQ: ") + user.startswith("Q: ")
            if asked < len(questions):
                return {"enough": False, "question": questions[asked], "reason": "r"}
            return {"enough": True, "reason": "enough"}
        if "lessons it teaches" in system:
            return {"lessons": ["The bot cannot cancel an order and does not say so."]}
        return PROPOSAL

    return reply


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "plan" / "weaknesses.yaml"


def test_offline_the_pizzerias_findings_become_weaknesses(out: Path) -> None:
    settings = PlanSettings(chatbot=PIZZERIA / "chatbot.yaml", source=PIZZERIA / "rasa", out=out)
    result = start(PlanJob(), settings).result
    loaded = load_weaknesses(out)  # the file the user edits loads with the same loader
    assert loaded == result.weaknesses
    assert loaded.chatbot == "Sparring Pizzeria"
    assert [w.id for w in loaded.weaknesses][:2] == [
        "intent-unhandled-affirm",
        "form-interruption-unhandled-pizza-form-greet",
    ]
    assert all(w.sources == [STATIC_SCAN] for w in loaded.weaknesses)
    levels = [[e.difficulty for e in w.examples] for w in loaded.weaknesses]
    assert all(level == ["easy", "medium", "hard"] for level in levels)
    affirm = loaded.weaknesses[0]
    assert "domain.yml:11" in affirm.description and "`affirm`" in affirm.criteria[0]
    # example tests say what users say: the intent's NLU examples
    assert [e.test for e in affirm.examples] == [
        'Right after the greeting, say "yes".',
        'When the bot asks a question, answer "yes please".',
        'In the middle of a task, say "yeah", then go on with the task.',
    ]
    record = json.loads(result.record_path.read_text())
    assert record["strategy"] == "offline" and record["usage"]["calls"] == 0
    assert record["settings"]["source"] == str(PIZZERIA / "rasa")
    assert len(record["findings"]) == len(loaded.weaknesses) == 6
    assert record["graph"]["nodes"] and record["graph_summary"].startswith("rasa project")


def test_offline_without_findings_writes_nothing(tmp_path: Path, out: Path) -> None:
    (tmp_path / "bot.py").write_text("def respond(text):\n    return text\n", encoding="utf-8")
    settings = PlanSettings(chatbot=EXAMPLES / "chatbot.yaml", source=tmp_path, out=out)
    result = start(PlanJob(), settings).result
    assert result.path is None and result.weaknesses is None and not out.exists()
    assert json.loads(result.record_path.read_text())["weaknesses"] == 0


@pytest.mark.parametrize(
    ("extra", "step"),
    [
        ({}, "weakness planning"),
        ({"source": EXAMPLES, "answers": ANSWERS}, "the developer interview (--answers)"),
        ({"source": EXAMPLES, "docs": EXAMPLES / "docs"}, "reading documents (--docs)"),
    ],
)
def test_steps_that_need_a_model_stop_before_any_work(
    out: Path, extra: dict[str, Path], step: str
) -> None:
    settings = PlanSettings(chatbot=EXAMPLES / "chatbot.yaml", out=out, **extra)
    with pytest.raises(ModelRequired, match="--model") as caught:
        start(PlanJob(), settings)
    assert caught.value.step == step
    assert not out.parent.exists()


def test_with_a_model_the_whole_plan_reads_scan_interview_and_documents(out: Path) -> None:
    questions = [
        "Who uses the bot?",
        "What does it say when it does not understand?",
        "Any incidents in the pilot?",
    ]
    model = ScriptedModel(_responder(questions), cost_per_call=0.002)
    settings = PlanSettings(
        chatbot=PIZZERIA / "chatbot.yaml",
        source=PIZZERIA / "rasa",
        answers=ANSWERS,
        docs=EXAMPLES / "docs",
        out=out,
    )
    result = start(PlanJob(model=model), settings).result
    record = result.record
    # the interview: one question per call, each answered by the matching answer
    turns = record.interview.turns
    assert [t.question for t in turns] == questions and record.interview.stopped == "enough"
    assert turns[0].answer.startswith("People ordering one pizza")
    assert turns[1].answer.startswith("It says")
    assert turns[2].answer.startswith("In the pilot")
    assert "intent-unhandled" in model.requests[0][-1]["content"]  # the scan's summary read
    # four interview calls, one per document, one proposal
    assert len(model.requests) == 6 and record.usage.calls == 6
    assert record.usage.cost == pytest.approx(0.012)
    assert [lesson.source for lesson in record.lessons] == ["pilot-notes.md"]
    proposal = model.requests[-1][-1]["content"]
    assert "[intent-unhandled:affirm] high domain.yml:11" in proposal
    assert "A: People ordering one pizza" in proposal
    assert "- The bot cannot cancel an order" in proposal
    # the weaknesses written: ids, sources and examples ordered easy → hard
    loaded = load_weaknesses(out)
    assert [w.id for w in loaded.weaknesses] == [
        "yes-or-no-outside-the-drink-question",
        "cancelling-an-order",
    ]
    assert loaded.weaknesses[0].sources == ["model", STATIC_SCAN, "interview"]
    assert loaded.weaknesses[1].sources == ["model", "docs"]
    assert [e.difficulty for e in loaded.weaknesses[0].examples] == ["easy", "medium", "hard"]
    assert record.strategy == "llm"
    assert json.loads(result.record_path.read_text())["weaknesses"] == 2


def test_a_proposal_without_three_difficulties_is_asked_again(out: Path) -> None:
    bad = json.loads(json.dumps(PROPOSAL))
    bad["weaknesses"][0]["examples"][0]["difficulty"] = "easy"  # two easy, no hard
    model = ScriptedModel([bad, PROPOSAL])
    settings = PlanSettings(chatbot=PIZZERIA / "chatbot.yaml", out=out, max_weaknesses=1)
    result = start(PlanJob(model=model), settings).result
    assert len(model.requests) == 2
    assert "one easy, one medium and one hard" in model.requests[1][-1]["content"]
    assert result.weaknesses is not None and len(result.weaknesses.weaknesses) == 1


def test_the_interview_stops_at_the_limit_or_when_answers_run_out(tmp_path: Path) -> None:
    endless = ScriptedModel([{"enough": False, "question": f"Question {i}?"} for i in range(10)])
    answers = tmp_path / "answers.yaml"
    answers.write_text("- one\n- two\n- three\n", encoding="utf-8")
    answerer = FileInterviewer(load_answers(answers))
    limited = run_blocking(interview(endless, "a bot", answerer, max_questions=2))
    assert [t.answer for t in limited.turns] == ["one", "two"] and limited.stopped == "limit"
    ran_out = run_blocking(interview(endless, "a bot", answerer, max_questions=9))
    assert [t.answer for t in ran_out.turns] == ["three"] and ran_out.stopped == "no-answer"
    assert len(endless.requests) == 2 + 2


def test_next_question_needs_a_question_unless_enough() -> None:
    with pytest.raises(ValueError, match="question"):
        NextQuestion.model_validate({"enough": False})
    assert NextQuestion.model_validate({"enough": True}).question is None


def test_an_answers_file_with_an_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text("answers:\n  - answer: yes\n    matches: x\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_answers(path)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 3, "answers[0].matches")


class _FakeSearch:
    def __init__(self) -> None:
        self.queries: list[str] = []

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        self.queries.append(query)
        return [SearchHit(title="Chatbot incident", url="https://example.org", snippet="x")]


@pytest.fixture
def fake_search() -> Iterator[_FakeSearch]:
    provider = _FakeSearch()
    with SEARCH_PROVIDERS.override("fake", lambda: provider):
        yield provider


def test_a_search_provider_is_called_only_when_named(out: Path, fake_search: _FakeSearch) -> None:
    model = ScriptedModel(_responder([]))
    base = PlanSettings(chatbot=PIZZERIA / "chatbot.yaml", out=out)
    start(PlanJob(model=model), base)
    assert fake_search.queries == []
    result = start(PlanJob(model=model), base.model_copy(update={"search": "fake"})).result
    [query] = fake_search.queries
    assert query.startswith("Takes pizza orders:") and query.endswith("chatbot failures")
    assert [lesson.source for lesson in result.record.lessons] == ["search:fake"]
    calls = len(model.requests)
    with pytest.raises(UnknownName, match="search provider 'nope'"):
        start(PlanJob(model=model), base.model_copy(update={"search": "nope"}))
    assert len(model.requests) == calls  # stopped before any model call


def test_the_terminal_interviewer_asks_until_an_empty_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sparring.adversarial._plan import TerminalInterviewer

    typed = iter(["Pizza lovers on phones.", "  "])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(typed)

    monkeypatch.setattr("rich.prompt.Prompt.ask", ask)
    model = ScriptedModel([{"enough": False, "question": f"Q{i}?"} for i in range(5)])
    result = run_blocking(interview(model, "a bot", TerminalInterviewer(), max_questions=5))
    assert [(t.question, t.answer) for t in result.turns] == [("Q0?", "Pizza lovers on phones.")]
    assert result.stopped == "no-answer" and len(asked) == 2 and "Q1?" in asked[1]
