"""The AST scan of Python agents: the planted defect of our own booking agent is found
exactly (and nothing else), each Python finding kind on a small agent, and what does not
count as a defect (guarded calls, dispatches with a fallback)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sparring.adversarial import FindingKind, scan_source

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "adversarial"


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_the_planted_defect_of_our_booking_agent_is_the_one_finding() -> None:
    scan = scan_source(AGENT)
    assert scan.scanner == "python" and scan.files == 1
    [finding] = scan.findings
    assert finding.kind is FindingKind.UNGUARDED_TOOL_CALL
    assert finding.severity == "high"
    assert finding.file == "booking_agent.py"
    assert finding.line == _line_of(AGENT / "booking_agent.py", "= book_table(day, party")
    assert finding.subject == "BookingAgent.respond->book_table"
    assert finding.evidence[0].startswith("reference = book_table(day, party, self.booked)")
    assert finding.evidence[1].startswith("Books a table and returns its reference; raises `")
    # the graph: respond calls the defective tool unguarded, check_availability guarded
    graph = scan.graph
    assert graph.nodes["fn:book_table"]["kind"] == "tool"
    assert graph.nodes["fn:BookingAgent.respond"]["kind"] == "handler"
    assert graph.edges["fn:BookingAgent.respond", "fn:book_table"]["guarded"] is False
    assert graph.edges["fn:BookingAgent.respond", "fn:check_availability"]["guarded"] is True
    branches = [n for n, d in graph.nodes(data=True) if d["kind"] == "branch"]
    assert any(graph.has_edge(b, "fn:book_table") for b in branches)


def test_the_planted_defect_is_real(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(AGENT))
    from booking_agent import BookingAgent, BookingError

    agent = BookingAgent()
    assert "seats left" in agent.respond("is a table free on friday for 4?")
    assert "Sorry, we are closed" in agent.respond("is a table free on monday?")
    with pytest.raises(BookingError, match="largest table"):
        agent.respond("book a table for 12 on friday")


def _scan(tmp_path: Path, code: str) -> list[tuple[str, str, int | None]]:
    (tmp_path / "agent.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return [(f.kind.value, f.subject, f.line) for f in scan_source(tmp_path).findings]


def test_io_calls_guarded_here_or_by_every_caller_are_not_flagged(tmp_path: Path) -> None:
    findings = _scan(
        tmp_path,
        """
        import requests

        def fetch(city):
            return requests.get("https://example.org/" + city).json()

        def handle_weather(text):
            try:
                return fetch(text)
            except requests.RequestException:
                return "The weather service is down."

        def handle_news(text):
            return requests.get("https://example.org/news").text
        """,
    )
    assert findings == [("unguarded-tool-call", "handle_news->requests.get", 14)]


def test_a_dispatch_without_else_is_flagged_one_with_a_fallback_is_not(tmp_path: Path) -> None:
    findings = _scan(
        tmp_path,
        """
        def respond(intent):
            if intent == "greet":
                reply = "hi"
            elif intent == "order":
                reply = "what pizza?"
            return reply

        def answer(intent):
            if intent == "greet":
                return "hi"
            elif intent == "order":
                return "what pizza?"
            return "Sorry?"

        def reply(intent):
            if intent == "greet":
                return "hi"
            elif intent == "order":
                return "what pizza?"
            else:
                return "Sorry?"

        def chat(intent):
            match intent:
                case "greet":
                    return "hi"
                case "order":
                    return "pizza?"
        """,
    )
    assert findings == [
        ("missing-fallback-branch", "respond:intent", 3),
        ("missing-fallback-branch", "chat:intent", 25),
    ]


def test_state_dispatch_shared_state_and_swallowed_exceptions(tmp_path: Path) -> None:
    findings = _scan(
        tmp_path,
        """
        HANDLERS = {}
        carts = {}

        class Bot:
            def respond(self, text):
                command = text.split()[0]
                reply = HANDLERS[command](text)
                first = self.history[0]
                total = self.session["total"]
                if "name" in self.session:
                    reply += self.session["name"]
                carts[text] = total
                try:
                    reply += self.memory["last"]
                except Exception:
                    pass
                return reply
        """,
    )
    assert ("unchecked-dispatch", "Bot.respond:HANDLERS", 8) in findings
    assert ("unchecked-state-read", 'Bot.respond:self.session["total"]', 10) not in findings
    assert ("unchecked-state-read", "Bot.respond:self.session['total']", 10) in findings
    assert all("name" not in subject for _, subject, _ in findings)  # checked with `in`
    assert ("shared-state-write", "Bot.respond:carts", 13) in findings
    assert ("swallowed-exception", "Bot.respond", 16) in findings
    assert len(findings) == 4  # the read inside try and the list index are not flagged


def test_global_writes_and_unparsable_files(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def (:\n", encoding="utf-8")
    findings = _scan(
        tmp_path,
        """
        count = 0

        def on_message(text):
            global count
            count += 1
            return str(count)
        """,
    )
    assert findings == [("shared-state-write", "on_message:count", 5)]
    assert scan_source(tmp_path).files == 1  # broken.py skipped


def test_one_file_can_be_scanned() -> None:
    scan = scan_source(AGENT / "booking_agent.py")
    assert [(f.file, f.subject) for f in scan.findings] == [
        ("booking_agent.py", "BookingAgent.respond->book_table")
    ]


def test_a_missing_source_is_a_user_error(tmp_path: Path) -> None:
    from sparring.errors import UserInputError

    with pytest.raises(UserInputError, match="no such file or folder"):
        scan_source(tmp_path / "nowhere")
