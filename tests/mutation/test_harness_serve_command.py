"""Serving builds with a command (Taskyto's server, or any): port, chatbot.yaml, stop on
close, stillborn when the command dies or never listens; then a whole ``taskyto`` job whose
server is a small stand-in speaking Taskyto's HTTP API and answering from the project's
question-answering module."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

from sparring.mutation._build_command import ServeCommandBuilder
from sparring.mutation._builders import BuildFailed
from sparring.mutation._job import MutateJob, MutateSettings, builder_for
from sparring.runner import start

SERVER = '''
"""Taskyto's HTTP API over the question-answering modules of the project (cwd)."""
import json, sys, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
import yaml

pairs, fallback = [], "Sorry?"
for path in sorted(Path(".").glob("*.yaml")):
    data = yaml.safe_load(path.read_text())
    for module in data.get("modules", [data]):
        fallback = module.get("fallback", fallback)
        for qa in module.get("questions", []) or []:
            pairs.append((qa["question"].lower().rstrip("?"), qa["answer"].strip()))

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        if self.path.endswith("/new"):
            reply = {"id": uuid.uuid4().hex, "message": "Welcome!"}
        else:
            text = body["message"].lower()
            answer = next((a for q, a in pairs if q in text), fallback)
            reply = {"message": answer}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''
TOP_LEVEL = """\
modules:
- name: top-level
  kind: menu
  presentation: A pizza shop.
  fallback: I'm sorry, I did not get what you said.
  items:
  - title: Pizza Q&A
    kind: module
    reference: pizza_qa
"""
PIZZA_QA = """\
name: pizza_qa
kind: question_answering
description: Questions on the pizza shop.
questions:
- question: What are the opening hours?
  answer: Every day from 1pm to 11pm
- question: Do you deliver?
  answer: We do not deliver.
"""
CHATBOT = "connector: taskyto\nparams:\n  url: http://localhost:1\n  timeout: 5\n"
PROFILE = """\
test_name: asks_the_hours
llm: {model: gpt-4o-mini}
user:
  language: English
  role: You ask a pizza shop when it opens.
  context: []
  goals: [What are the opening hours?]
chatbot: {is_starter: false, fallback: "I'm sorry, I did not get what you said.", output: []}
conversation: {number: 1, goal_style: {steps: 1}, interaction_style: [single question]}
"""
RULE = """\
name: tells_the_hours
active: True
conversations: 1
oracle: "'1pm' in reply_to('opening hours')"
"""


def make(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "bot" / "taskyto"
    project.mkdir(parents=True)
    (project / "top-level.yaml").write_text(TOP_LEVEL, encoding="utf-8")
    (project / "pizza_qa.yaml").write_text(PIZZA_QA, encoding="utf-8")
    (tmp_path / "bot" / "chatbot.yaml").write_text(CHATBOT, encoding="utf-8")
    server = tmp_path / "server.py"
    server.write_text(SERVER, encoding="utf-8")
    return project, server


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_build_is_served_on_its_own_port_and_stopped(tmp_path: Path) -> None:
    project, server = make(tmp_path)
    chatbot = tmp_path / "bot" / "chatbot.yaml"
    builder = ServeCommandBuilder([sys.executable, str(server), "{port}"], chatbot)
    first = await builder.build(project, tmp_path / "w1")
    second = await builder.build(project, tmp_path / "w2")
    urls = [yaml.safe_load(b.chatbot.read_text())["params"]["url"] for b in (first, second)]
    assert urls[0] != urls[1] and all(u.startswith("http://127.0.0.1:") for u in urls)
    assert yaml.safe_load(first.chatbot.read_text())["connector"] == "taskyto"
    from sparring.mutation._processes import tracked

    pids = [pid for pid, what in tracked().items() if "server" in what]
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    await first.close()
    await second.close()
    assert not any(alive(pid) for pid in pids)


async def test_a_command_that_dies_or_never_listens_is_stillborn(tmp_path: Path) -> None:
    project, _ = make(tmp_path)
    chatbot = tmp_path / "bot" / "chatbot.yaml"
    dies = ServeCommandBuilder(
        [sys.executable, "-c", "import sys; print('bad chatbot'); sys.exit(3)"], chatbot
    )
    with pytest.raises(BuildFailed, match="exited with 3: bad chatbot"):
        await dies.build(project, tmp_path / "w1")
    silent = ServeCommandBuilder(
        [sys.executable, "-c", "import time; time.sleep(30)"], chatbot, ready_timeout=1.0
    )
    with pytest.raises(BuildFailed, match="did not open port"):
        await silent.build(project, tmp_path / "w2")
    missing = ServeCommandBuilder(["no-such-taskyto-serve"], chatbot)
    with pytest.raises(BuildFailed, match="not installed"):
        await missing.build(project, tmp_path / "w3")
    not_executable = tmp_path / "serve.txt"
    not_executable.write_text("not a program")
    unstartable = ServeCommandBuilder([str(not_executable)], chatbot)
    with pytest.raises(BuildFailed, match="could not start"):
        await unstartable.build(project, tmp_path / "w4")
    from sparring.mutation._builders import _reserved

    assert not _reserved  # every port handed out went back


def test_taskyto_projects_are_served_by_taskyto_serve_by_default(tmp_path: Path) -> None:
    project, _ = make(tmp_path)
    settings = MutateSettings.model_validate(
        {"project": project, "kind": "taskyto", "profiles": [tmp_path], "rules": [tmp_path]}
    )
    builder = builder_for(settings)
    assert isinstance(builder, ServeCommandBuilder)
    assert builder.command == ["taskyto-serve", "--chatbot", "{project}"]
    assert builder.env == {"FLASK_SERVER_NAME": "127.0.0.1:{port}"}


def test_a_taskyto_job_kills_the_mutant_that_loses_the_answer(tmp_path: Path) -> None:
    project, server = make(tmp_path)
    (tmp_path / "profile.yaml").write_text(PROFILE, encoding="utf-8")
    (tmp_path / "rule.yaml").write_text(RULE, encoding="utf-8")
    settings = MutateSettings.model_validate(
        {"project": project, "kind": "taskyto", "profiles": [tmp_path / "profile.yaml"],
         "rules": [tmp_path / "rule.yaml"],
         "serve_command": [sys.executable, str(server), "{port}"]}
    )  # fmt: skip
    result = start(MutateJob(), settings, tmp_path / "out").result
    assert result.original is not None and result.original.false_positives == []
    statuses = {m.id: (m.status, m.killed_by) for m in result.mutants}
    questions = "taskyto.delete_question@pizza_qa.yaml#pizza_qa/questions/"
    assert statuses[questions + "0"] == ("killed", ["tells_the_hours"])  # the hours
    assert statuses[questions + "1"] == ("live", [])  # delivery: no profile asks
    assert statuses["taskyto.swap_answers@pizza_qa.yaml#pizza_qa/questions/0,1"][0] == "killed"
    # no profile says anything the bot cannot answer: losing the fallback goes unseen
    assert statuses["taskyto.delete_fallback@top-level.yaml#top-level/fallback"][0] == "live"
    assert result.complete
