"""No value computed from a reply holds a part of a secret (issue 32, attacked again by an
outsider). Redaction of stored text finds a secret's value, not what was computed from
it: an editor's chatbot.yaml with no URL (the scripted connector) says a bound secret,
and a profile's output ``{code: {type: int}}`` took the digits of ``PIN-73914205-x`` —
stored as ``73914205`` in the record and the report, read by every member. Replies are now
cleaned where they arrive (``connectors._base.hide_secrets``: messages, buttons, images,
raw, the greeting), before output extraction, the user simulator or a rule reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring._policy import ExecutionPolicy, install_policy

SECRET = "PIN-73914205-x"

CHATBOT = """\
connector: scripted
params:
  greeting: "Hello. Your code is ${BOT_KEY}."
  fallback: "Your code is ${BOT_KEY}. Your total is ${BOT_KEY} dollars."
  rules:
    - match: "code"
      reply: "Code: ${BOT_KEY}"
      buttons: [{text: "${BOT_KEY}", link: "/pay?c=${BOT_KEY}"}]
"""

PROFILE = """\
test_name: leak
llm: {model: gpt-4o-mini}
user:
  language: English
  role: a customer
  context: [{personality: impatient}]
  goals: ["what is my code?"]
chatbot:
  is_starter: true
  fallback: "Sorry"
  output:
    - code: {type: int, description: "my code"}
    - total: {type: money, description: "the total"}
    - text: {type: string, description: "my code"}
conversation: {number: 2, goal_style: {steps: 2}, interaction_style: [single question]}
"""


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A simulate run under the dashboard's policy, the secret bound to a host."""
    from sparring.runner import InProcessExecutor

    inputs, out = tmp_path / "inputs", tmp_path / "run"
    inputs.mkdir()
    (inputs / "chatbot.yaml").write_text(CHATBOT)
    (inputs / "profile.yaml").write_text(PROFILE)
    policy = ExecutionPolicy(
        run_code=False,
        secrets={"BOT_KEY": SECRET},
        secret_hosts={"BOT_KEY": frozenset({"bot.example"})},
    )
    install_policy(policy.confined([inputs, out]))
    try:
        executor = InProcessExecutor()
        settings = {
            "chatbot": str(inputs / "chatbot.yaml"),
            "profiles": [str(inputs / "profile.yaml")],
            "concurrency": 1,
        }
        handle = executor.submit("simulate", settings, out)
        assert executor.wait(handle) == "finished", executor.error(handle)
    finally:
        install_policy(None)
    return out


def test_no_part_of_a_secret_reaches_a_run_file(run: Path) -> None:
    windows = {SECRET[i : i + 6] for i in range(len(SECRET) - 5)}
    said = b""
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        said += text.encode()
        for window in windows:
            assert window not in text, (path, window)
    assert b"Your code is ***" in said  # the bot did say it, hidden
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["redactions"].get("known", 0) >= 3  # greeting, replies: counted


def test_every_part_of_a_reply_is_hidden_where_it_arrives() -> None:
    """The boundary itself: messages, buttons, images and raw, and a greeting."""
    import asyncio

    from sparring.connectors import Reply
    from sparring.connectors._base import greeting_of, hide_secrets, timed_reply
    from sparring.connectors._secrets import Redactor
    from sparring.types import Button

    def said() -> Reply:
        return Reply(
            messages=[f"code {SECRET}"],
            buttons=[Button(text=SECRET, link=f"/x?{SECRET}")],
            images=[f"https://img.example/{SECRET}.png"],
            raw={"answer": SECRET},
        )

    async def answer() -> Reply:
        return said()

    redact = Redactor([SECRET])
    for reply in (
        hide_secrets(said(), redact),
        asyncio.run(timed_reply(answer(), 5.0, redact)),
    ):
        assert SECRET not in reply.model_dump_json(), reply

    class Opened:
        greeting = said()

    from sparring._redact import add_secrets

    add_secrets([SECRET])
    greeting = greeting_of(Opened())  # type: ignore[arg-type]
    assert greeting is not None and SECRET not in greeting.model_dump_json()
