"""No green run with the chatbot down: the reachability probe, the run-health exit decision
and ``chat``'s exit code (issue 8)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import ChatbotConfig, create_connector, probe
from sparring.conversations import ConversationError, ConversationRecord, RunStore, Turn, assess_run

DATA = Path(__file__).parent / "data"
runner = CliRunner()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _down_chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "down.yaml"
    path.write_text(f"connector: rasa\nparams:\n  url: http://127.0.0.1:{_closed_port()}\n")
    return path


def _record(index: int, *codes: int) -> ConversationRecord:
    errors = [ConversationError(code=c, message=f"failure {c}") for c in codes]
    turns = [Turn(role="user", text="hi"), Turn(role="assistant", text="hello")]
    return ConversationRecord(id=f"p/{index}", profile="p", turns=turns, errors=errors)


def test_simulate_against_a_closed_port_exits_1_with_the_cause(tmp_path: Path) -> None:
    chatbot = _down_chatbot(tmp_path)
    result = runner.invoke(
        app, ["simulate", str(DATA / "profiles"), "-c", str(chatbot), "-o", str(tmp_path / "run")]
    )
    assert result.exit_code == 1, result.output
    assert "cannot be reached" in result.output
    assert "All connection attempts failed" in result.output
    error, hint = result.output.splitlines()[:2]  # no blank line left by a bar never shown
    assert error.startswith(f"error: the chatbot ({chatbot}) cannot be reached: "), error
    assert hint.endswith(f"`sparring chat --chatbot {chatbot}` talks to it by hand."), hint
    assert not (tmp_path / "run").exists()  # nothing ran


def test_without_the_probe_a_run_where_nothing_answered_still_exits_1(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", str(DATA / "profiles"), "-c", str(_down_chatbot(tmp_path)),
              "-o", str(out), "--no-probe"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "3 of 3 conversations got no answer" in " ".join(result.output.split())
    assert "All connection attempts failed" in result.output
    assert len(list(RunStore.open(out).iter_records())) == 3  # the run is still written


def test_a_reachable_chatbot_passes_the_probe_and_the_run_exits_0(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["simulate", str(DATA / "profiles"), "-c", str(DATA / "chatbot.yaml"),
              "-o", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_the_probe_accepts_any_http_status_and_reports_transport_errors() -> None:
    config = ChatbotConfig(connector="rasa", params={"url": "http://bot.test"})

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(405)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("All connection attempts failed", request=request)

    async def run(handler: object) -> tuple[bool, str | None]:
        connector = create_connector(config, transport=httpx.MockTransport(handler))  # type: ignore[arg-type]
        try:
            result = await probe(connector)
        finally:
            await connector.aclose()
        return result.reachable, result.cause

    assert asyncio.run(run(answer)) == (True, None)
    reachable, cause = asyncio.run(run(refuse))
    assert not reachable and cause is not None and "All connection attempts failed" in cause


def test_in_process_chatbots_count_as_reachable_without_a_check() -> None:
    config = ChatbotConfig(connector="scripted", params={"fallback": "Sorry."})
    result = asyncio.run(probe(create_connector(config)))
    assert result.reachable and not result.checked


def test_assess_run_share_of_chatbot_failures() -> None:
    records = [_record(0, 500), _record(1, 504), _record(2), _record(3, 1001)]
    health = assess_run(records, 0.5)
    assert health.healthy and health.chatbot_failed == 2 and health.failed == 3
    unhealthy = assess_run(records, 0.4)
    assert not unhealthy.healthy and unhealthy.cause in ("failure 500", "failure 504")


def test_assess_run_every_conversation_failed_is_unhealthy() -> None:
    health = assess_run([_record(0, 1001), _record(1, 1000)], 0.5)
    assert not health.healthy and "every conversation" in (health.problem or "")
    assert assess_run([], 0.5).healthy


def test_chat_exits_1_when_the_chatbot_cannot_be_reached(tmp_path: Path) -> None:
    result = runner.invoke(app, ["chat", "-c", str(_down_chatbot(tmp_path))], input="hello\n")
    assert result.exit_code == 1
    assert "cannot be reached" in result.output


def test_a_style_not_applied_offline_is_said_on_the_console(tmp_path: Path) -> None:
    profile = (DATA / "profiles" / "order.yaml").read_text()
    assert "interaction_style" in profile
    import re

    changed = re.sub(
        r"interaction_style:\n(\s+- .*\n)+", "interaction_style:\n    - make spelling mistakes\n"
        "    - change language: [Spanish]\n", profile,
    )  # fmt: skip
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "order.yaml").write_text(changed)
    result = runner.invoke(
        app, ["simulate", str(tmp_path / "p"), "-c", str(DATA / "chatbot.yaml"), "-o",
              str(tmp_path / "run")],
    )  # fmt: skip
    output = " ".join(result.output.split())
    assert "warning: interaction style" in output and "change language" in output, output
