"""`sparring connectors list|show` and `sparring chat` through Typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import ConfigError

CHATBOT = """\
connector: scripted
params:
  greeting: "Hi! I take [pizza] orders."
  greeting_buttons: [Order, {text: Menu, link: /menu}]
  rules:
    - match: "my name is (\\\\w+)"
      reply: ["Nice to meet you, {1}.", "Anything else?"]
      buttons: [{text: Yes, link: /affirm}]
    - match: boom
      error: crash
    - match: silence
      reply: []
"""


@pytest.fixture
def chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "chatbot.yaml"
    path.write_text(CHATBOT, encoding="utf-8")
    return path


def test_list_shows_every_built_in() -> None:
    result = CliRunner().invoke(app, ["connectors", "list"])
    assert result.exit_code == 0, result.output
    for name in ("rasa", "taskyto", "rest", "openai", "python", "scripted"):
        assert name in result.stdout
    assert "REST channel" in result.stdout


def test_show_lists_params_with_types_defaults_and_descriptions() -> None:
    result = CliRunner().invoke(app, ["connectors", "show", "taskyto"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "dict[str, str]" in result.stdout  # not eaten as Rich markup
    assert "'http://localhost:5000'" in result.stdout
    assert "Base URL of the Taskyto server." in result.stdout


def test_show_expands_nested_params() -> None:
    result = CliRunner().invoke(app, ["connectors", "show", "rest"], env={"COLUMNS": "200"})
    assert "send_message.payload_template" in result.stdout
    assert "(required)" in result.stdout  # base_url


def test_show_unknown_connector_is_a_user_error() -> None:
    result = CliRunner().invoke(app, ["connectors", "show", "nope"])
    assert result.exit_code != 0
    assert "unknown connector" in str(result.exception)


def test_chat_prints_greeting_buttons_replies_and_failures(chatbot: Path) -> None:
    stdin = "my name is Ann\nboom\n\nsomething\n/quit\nnever sent\n"
    result = CliRunner().invoke(app, ["chat", "--chatbot", str(chatbot)], input=stdin)
    assert result.exit_code == 1, result.output  # "boom" crashed: one message unanswered
    assert "1 message(s) got no usable answer" in result.stderr
    out = result.stdout
    assert "bot> Hi! I take [pizza] orders." in out
    assert "- BUTTON TEXT: Menu LINK: /menu" in out
    assert "bot> Nice to meet you, Ann.\nAnything else?" in out
    assert "- BUTTON TEXT: Yes LINK: /affirm" in out
    assert "scripted crash" in result.stderr
    assert out.count("Sorry, I did not understand.") == 1  # "never sent" came after /quit


def test_chat_ends_at_eof(chatbot: Path) -> None:
    result = CliRunner().invoke(app, ["chat", "-c", str(chatbot)], input="my name is Bo\n")
    assert result.exit_code == 0
    assert "Nice to meet you, Bo." in result.stdout


def test_chat_exits_1_on_an_empty_reply(chatbot: Path) -> None:
    result = CliRunner().invoke(app, ["chat", "-c", str(chatbot)], input="my name is Al\nsilence\n")
    assert result.exit_code == 1, result.output
    assert "(empty reply)" in result.stdout
    assert "response_path" in result.stderr


def test_chat_with_a_bad_config_raises_a_located_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "chatbot.yaml"
    bad.write_text("connector: scripted\nparams:\n  rules: 3\n")
    result = CliRunner().invoke(app, ["chat", "--chatbot", str(bad)], input="")
    assert isinstance(result.exception, ConfigError)
    assert result.exception.problems[0].line == 3


def test_chat_open_failure_exits_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "chatbot.yaml"
    config.write_text(f"connector: taskyto\nparams:\n  url: http://127.0.0.1:{port}\n")
    result = CliRunner().invoke(app, ["chat", "--chatbot", str(config)], input="hi\n")
    assert result.exit_code == 1
    first, hint = result.stderr.splitlines()[:2]  # said before any banner, with what to try
    assert first.startswith(f"error: the chatbot ({config}) cannot be reached: "), first
    assert hint.startswith("hint: start the chatbot first") and "Chatting" not in result.stderr


def test_chat_prints_terminal_escapes_from_the_bot_as_nothing(tmp_path: Path) -> None:
    """Issue 26, defect 15: raw escapes in bot text reached the terminal."""
    path = tmp_path / "chatbot.yaml"
    path.write_text(
        'connector: scripted\nparams:\n  fallback: "ok \\e[2J\\e]0;owned\\a [/] done"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["chat", "-c", str(path)], input="hello\n")
    assert "ok  [/] done" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
