"""Helpers shared by the dashboard's tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.test import Client

PASSWORD = "a long test passphrase 7"
PROFILE = """\
test_name: order
llm: {model: gpt-4o-mini}
user:
  language: English
  role: a customer who wants to order a pizza
  context: [{personality: impatient}]
  goals: ["I would like to order a pizza"]
chatbot: {is_starter: false, fallback: "Sorry, I did not understand."}
conversation:
  number: 2
  goal_style: {steps: 2}
  interaction_style: [single question]
"""
"""A small valid SENSEI profile for runs the tests launch."""


def client_for(user: Any | None) -> Client:
    """A test client that enforces CSRF, signed in as ``user`` (anonymous for ``None``)."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def csrf_token(client: Client) -> str:
    """The CSRF token a browser holds, from a page with a form (sign-in or projects)."""
    for page in ("/login/", "/projects/"):
        if "csrftoken" not in client.cookies:
            client.get(page)
    return str(client.cookies["csrftoken"].value)


def csrf_post(client: Client, url: str, data: dict[str, Any] | None = None) -> Any:
    """POST with the CSRF token a browser would send."""
    return client.post(url, data or {}, HTTP_X_CSRFTOKEN=csrf_token(client))


def api(client: Client, method: str, url: str, data: Any = None, token: str | None = None) -> Any:
    """An API request as a browser (session + CSRF header) or, with ``token``, as CI."""
    headers: dict[str, str] = {}
    if token is not None:
        headers["Authorization"] = f"Token {token}"
    elif method != "get":
        headers["X-CSRFToken"] = csrf_token(client)
    call = getattr(client, method)
    if method == "get":
        return call(url, data or {}, headers=headers)
    return call(
        url, data if data is not None else {}, content_type="application/json", headers=headers
    )


HOSTILE = [
    "<script>window.__xss = 1</script>",
    '<img src="x" onerror="window.__xss = 2">',
    '<a href="javascript:window.__xss = 3">click me</a>',
    '<svg onload="window.__xss = 4"></svg>',
    '"><iframe src="javascript:window.__xss = 5"></iframe>',
]
"""Chatbot replies that would run script if a page pasted them as markup."""


def probe_payloads() -> list[str]:
    """Every user turn of sparring's built-in adversarial probe suites (injections,
    jailbreaks, encoded payloads…), as text."""
    from sparring.adversarial import builtin_suites, load_probe_suite

    texts: list[str] = []
    for path in builtin_suites().values():
        for probe in load_probe_suite(path).probes:
            texts += [turn if isinstance(turn, str) else str(turn) for turn in probe.turns]
    return texts


RULES = """\
- name: never_says_sorry_twice
  description: The chatbot does not apologise twice in a row
  conversations: 1
  oracle: not chatbot_returns('sorry, sorry')
"""


def checked_run(folder: Any, n: int, *, hostile: bool = False, sorry_every: int = 4) -> Any:
    """A run directory at ``folder`` with ``n`` conversations of 3 exchanges (ids
    ``order/<i>``), checked with ``RULES``: every ``sorry_every``-th conversation says
    "sorry, sorry" (fails the rule). With ``hostile``, the chatbot's replies carry
    ``HOSTILE`` markup and the probe payloads, and its buttons ``javascript:`` links."""
    from datetime import UTC, datetime
    from pathlib import Path

    from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn
    from sparring.runner import start
    from sparring.types import Button

    folder = Path(folder)
    manifest = RunManifest(
        run_id=folder.name, created_at=datetime.now(UTC), sparring_version="t", job="simulate"
    )
    store = RunStore.create(folder, manifest)
    payloads = [*HOSTILE, *probe_payloads()] if hostile else []
    records = []
    for i in range(n):
        turns = []
        for step in range(3):
            turns.append(Turn(role="user", text=f"a pizza please, step {step}"))
            reply = "sorry, sorry" if i % sorry_every == 0 and step == 2 else f"Sure ({step})."
            if payloads:
                reply += " " + payloads[(i * 3 + step) % len(payloads)]
            buttons = [Button(text="<b>Large</b>", link="javascript:window.__xss = 6")]
            turns.append(
                Turn(role="assistant", text=reply, latency=0.25, buttons=buttons if hostile else [])
            )
        record = ConversationRecord(id=f"order/{i}", profile="order", turns=turns)
        store.write(record)
        records.append(record)
    rules = folder.parent / f"{folder.name}-rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    start("check", {"rules": [str(rules)], "run": str(store.path)}, report=False)
    return folder


@contextmanager
def json_bot(
    answer: Callable[[dict[str, Any]], str],
) -> Iterator[tuple[str, list[tuple[dict[str, str], dict[str, Any]]]]]:
    """A JSON chatbot on loopback: each POST's JSON body gets ``{"reply": answer(body)}``.
    Yields its base URL and the requests it got (headers, body), in order."""
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            data = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            with lock:
                seen.append((dict(self.headers.items()), data))
                reply = answer(data)
            body = json.dumps({"reply": reply}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()


def run_through_api(client: Client, project: int, job: str, settings: dict[str, Any]) -> int:
    """Starts ``job`` with ``settings`` on the project whose pk is ``project`` through
    ``POST /api/runs/`` and waits (at most 600 s) while the dashboard's worker runs it;
    returns the run's pk. Fails the test when the API refuses or the run never ends."""
    import time

    from sparring.web.models import Run

    body = {"project": project, "job": job, "settings": settings}
    started = api(client, "post", "/api/runs/", body)
    assert started.status_code == 201, started.content
    pk = int(started.json()["id"])
    deadline = time.monotonic() + 600
    while Run.objects.get(pk=pk).status in ("queued", "running"):
        assert time.monotonic() < deadline, f"run {pk} still {Run.objects.get(pk=pk).status}"
        time.sleep(0.5)
    return pk
