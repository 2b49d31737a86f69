"""A run launched through the API runs through the job runner's ``InProcessExecutor``: the
project's secret reaches the chatbot, and afterwards no plaintext secret is anywhere — not
in the database file, the run directory, the logs or the process environment."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from web_helpers import PROFILE, api, client_for, json_bot

from sparring.web import _worker
from sparring.web._files import save_file
from sparring.web._secrets import set_secret
from sparring.web.models import Run

BOT_KEY = "sk-bot-PLAINTEXT-7f3e9a1c5b2d8e4f"


@pytest.fixture
def bot() -> Iterator[tuple[str, list[Any]]]:
    """A REST chatbot on loopback that records the requests (headers, body) it gets."""
    with json_bot(lambda _: "Sure, which size?") as (url, requests):
        yield url, requests


def _chatbot(url: str) -> str:
    return (
        "connector: rest\nparams:\n"
        f"  base_url: {url}\n"
        "  headers: {Authorization: 'Bearer ${BOT_KEY}'}\n"
        "  send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
        "  response_path: reply\n"
    )


@pytest.mark.django_db(transaction=True)
def test_a_run_uses_the_project_key_and_leaves_no_plaintext_anywhere(
    world: dict[str, Any],
    bot: tuple[str, list[Any]],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    url, seen = bot
    worker = _worker.Worker()  # the runner's InProcessExecutor
    monkeypatch.setattr(_worker, "_worker", worker)
    project, owner = world["project"], world["owner"]
    set_secret(project, "BOT_KEY", BOT_KEY, owner, hosts=["127.0.0.1"])
    save_file(project, "chatbot", "chatbot.yaml", _chatbot(url), owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)

    response = api(
        client_for(world["editor"]),
        "post",
        "/api/runs/",
        {
            "project": project.pk,
            "job": "simulate",
            "settings": {"chatbot": "chatbot.yaml", "profiles": ["profiles"], "concurrency": 1},
        },
    )
    assert response.status_code == 201, response.data
    pk = response.data["id"]
    worker.run_one(pk)

    run = Run.objects.get(pk=pk)
    assert run.status == "finished", run.status
    headers = [h.get("Authorization") for h, _ in seen]
    assert headers and all(header == f"Bearer {BOT_KEY}" for header in headers)  # the key was used
    assert "BOT_KEY" not in __import__("os").environ  # removed after the job

    # nowhere in plaintext: the run directory, the stored settings, the logs, the database
    for path in Path(settings.RUNS_DIR).rglob("*"):
        if path.is_file():
            assert BOT_KEY.encode() not in path.read_bytes(), path
    assert BOT_KEY not in json.dumps(run.settings)
    assert BOT_KEY not in caplog.text
    out, err = capfd.readouterr()
    assert BOT_KEY not in out + err
    copy = tmp_path / "copy.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(copy)])
    assert b"BOT_KEY" in copy.read_bytes() and BOT_KEY.encode() not in copy.read_bytes()


def test_paths_outside_the_project_and_code_running_settings_are_refused(
    world: dict[str, Any],
) -> None:
    project, editor = world["project"], client_for(world["editor"])
    set_secret(project, "BOT_KEY", BOT_KEY, world["owner"], hosts=["bot.example"])
    save_file(project, "chatbot", "chatbot.yaml", _chatbot("http://bot.example"), world["owner"])
    save_file(project, "profile", "profiles/order.yaml", PROFILE, world["owner"])
    profiles = ["profiles"]
    for settings_, key in [
        ({"chatbot": "/etc/passwd", "profiles": profiles}, "settings.chatbot"),
        ({"chatbot": "../../secret_key", "profiles": profiles}, "settings.chatbot"),
        ({"chatbot": "secret_key", "profiles": profiles}, "settings.chatbot"),
        ({"chatbot": "chatbot.yaml", "profiles": ["/etc"]}, "settings.profiles"),
        (
            {"chatbot": "chatbot.yaml", "profiles": profiles, "trust_functions": True},
            "settings.trust_functions",
        ),
    ]:
        response = api(
            editor,
            "post",
            "/api/runs/",
            {"project": project.pk, "job": "simulate", "settings": settings_},
        )
        assert response.status_code == 400, settings_
        assert key in json.dumps(response.data), response.data
    assert not Run.objects.exists()


def test_a_chatbot_may_read_only_its_projects_secrets(world: dict[str, Any]) -> None:
    project = world["project"]
    # ${BOT_KEY} is not a secret of this project yet: the server's environment stays closed
    save_file(project, "chatbot", "chatbot.yaml", _chatbot("http://bot.example"), world["owner"])
    response = api(
        client_for(world["editor"]),
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": {"chatbot": "chatbot.yaml"}},
    )
    assert response.status_code == 400
    assert "${BOT_KEY} is not a secret of this project" in json.dumps(response.data)


def test_a_connector_that_runs_code_is_refused_on_save(world: dict[str, Any]) -> None:
    response = api(
        client_for(world["editor"]),
        "post",
        "/api/files/",
        {
            "project": world["project"].pk,
            "kind": "chatbot",
            "name": "chatbot.yaml",
            "content": "connector: python\nparams: {module: os, function: system}\n",
        },
    )
    assert response.status_code == 400
    problems = response.data["problems"]
    assert any(p["file"] == "chatbot.yaml" and p["key"] for p in problems), problems


def test_a_stopped_run_resumes_from_its_folder(
    world: dict[str, Any], recording_worker: Any
) -> None:
    run = Run.objects.create(
        project=world["project"], job="simulate", path="/runs/x", status="stopped", handle="h0"
    )
    viewer, editor = client_for(world["viewer"]), client_for(world["editor"])
    assert api(viewer, "post", f"/api/runs/{run.pk}/resume/").status_code == 403
    assert api(editor, "post", f"/api/runs/{run.pk}/resume/").status_code == 202
    assert Run.objects.get(pk=run.pk).status == "queued"
    _worker.worker().run_one(run.pk)
    assert recording_worker.submitted == [("resume", {}, Path("/runs/x"))]
    assert Run.objects.get(pk=run.pk).status == "finished"
    again = api(editor, "post", f"/api/runs/{run.pk}/resume/")  # finished: nothing to resume
    assert again.status_code == 400


@pytest.mark.django_db(transaction=True)
def test_a_run_refused_by_the_ssrf_guard_fails_and_says_why(
    world: dict[str, Any], bot: tuple[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sparring._ssrf import NetworkPolicy, install_policy

    url, seen = bot
    worker = _worker.Worker()
    monkeypatch.setattr(_worker, "_worker", worker)
    project, owner = world["project"], world["owner"]
    set_secret(project, "BOT_KEY", BOT_KEY, owner, hosts=["127.0.0.1"])
    save_file(project, "chatbot", "chatbot.yaml", _chatbot(url), owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    install_policy(NetworkPolicy())  # as `sparring web` does, with no allow-list
    try:
        response = api(
            client_for(owner),
            "post",
            "/api/runs/",
            {
                "project": project.pk,
                "job": "simulate",
                "settings": {"chatbot": "chatbot.yaml", "profiles": ["profiles"]},
            },
        )
        worker.run_one(response.data["id"])
    finally:
        install_policy(None)
    run = Run.objects.get(pk=response.data["id"])
    assert run.status == "failed"
    assert "127.0.0.1 (loopback)" in run.error and BOT_KEY not in run.error
    assert not seen  # the bot was never called
    shown = api(client_for(world["viewer"]), "get", f"/api/runs/{run.pk}/").data
    assert shown["error"] == run.error


class _BrokenExecutor:
    """An executor whose submit fails (a database or disk error met while starting)."""

    def submit(self, job: str, settings: dict[str, Any], run_dir: Path) -> str:
        raise RuntimeError(f"disk full, {BOT_KEY}")

    def resume(self, run_dir: Path) -> str:
        raise RuntimeError(f"disk full, {BOT_KEY}")

    def stop(self, handle: str) -> None:
        raise AssertionError("nothing was started")

    def status(self, handle: str) -> Any:
        return None

    def error(self, handle: str) -> BaseException | None:
        return None

    def watch(self, handle: str, listener: Any) -> None:
        raise AssertionError("nothing was started")


@pytest.mark.django_db(transaction=True)
def test_a_run_the_worker_cannot_drive_fails_and_never_stays_queued(
    world: dict[str, Any],
) -> None:
    worker = _worker.Worker(executor=_BrokenExecutor())
    run = Run.objects.create(project=world["project"], job="simulate", path="/runs/y")
    assert run.status == "queued"
    worker.start()  # the dispatcher thread, as `sparring web` runs it
    worker.launch(run)
    deadline = threading.Event()
    for _ in range(200):
        if Run.objects.get(pk=run.pk).status != "queued":
            break
        deadline.wait(0.05)
    failed = Run.objects.get(pk=run.pk)
    assert failed.status == "failed" and failed.finished_at is not None
    assert "RuntimeError" in failed.error and BOT_KEY not in failed.error


def test_a_locked_database_is_waited_for_and_other_errors_raise() -> None:
    from django.db import OperationalError

    class Rows:
        def __init__(self, failures: list[Exception]) -> None:
            self.failures, self.updated = failures, dict[str, Any]()

        def update(self, **fields: Any) -> int:
            if self.failures:
                raise self.failures.pop(0)
            self.updated = fields
            return 1

    busy = Rows([OperationalError("database table is locked: sparring_web_run")] * 3)
    _worker._update(busy, status="running")  # type: ignore[arg-type]
    assert busy.updated == {"status": "running"} and not busy.failures
    broken = Rows([OperationalError("no such table: sparring_web_run")])
    with pytest.raises(OperationalError, match="no such table"):
        _worker._update(broken, status="running")  # type: ignore[arg-type]
    assert broken.updated == {}


class _Held:
    """An executor whose jobs end only when the test ends them (``end``), by the event
    the ``Executor`` protocol promises; ``status`` says ``running`` until then."""

    def __init__(self) -> None:
        self.started: list[Path] = []
        self.listeners: dict[str, list[Any]] = {}
        self.ended: set[str] = set()

    def submit(self, job: str, settings: dict[str, Any], run_dir: Path) -> str:
        self.started.append(run_dir)
        return str(run_dir)

    def resume(self, run_dir: Path) -> str:
        return self.submit("resume", {}, run_dir)

    def stop(self, handle: str) -> None:
        pass

    def status(self, handle: str) -> Any:
        from sparring.jobs import JobStatus

        return JobStatus.FINISHED if handle in self.ended else JobStatus.RUNNING

    def error(self, handle: str) -> BaseException | None:
        return None

    def watch(self, handle: str, listener: Any) -> None:
        self.listeners.setdefault(handle, []).append(listener)

    def end(self, handle: str) -> None:
        from sparring.jobs import JobStatus
        from sparring.jobs.events import Finished

        self.ended.add(handle)
        for listener in self.listeners.pop(handle):
            listener(Finished(status=JobStatus.FINISHED, verdict="pass"))


def _until(check: Any) -> None:
    """Wait (a bound on a hung worker, not a timing claim) until ``check()`` is true."""
    for _ in range(600):
        if check():
            return
        threading.Event().wait(0.05)
    raise AssertionError("the worker never got there")


@pytest.mark.django_db(transaction=True)
def test_jobs_start_when_launched_or_when_one_ends_and_rows_end_on_the_event(
    world: dict[str, Any],
) -> None:
    """The dispatcher is event-driven: with nothing queued no worker thread exists; a
    second job of a busy project starts when the first's ``Finished`` arrives (never by a
    poll of the executor, whose status alone would say nothing)."""
    executor = _Held()
    worker = _worker.Worker(executor=executor)
    before = set(threading.enumerate())
    worker.start()
    started = [t.name for t in set(threading.enumerate()) - before]
    assert not [name for name in started if name.startswith("sparring-web-")], started
    runs = [
        Run.objects.create(project=world["project"], job="simulate", path=f"/runs/{i}")
        for i in range(2)
    ]
    for run in runs:
        worker.launch(run)
    _until(lambda: len(executor.started) == 1 and "/runs/0" in executor.listeners)
    assert Run.objects.get(pk=runs[1].pk).status == "queued"  # its project is busy
    executor.end("/runs/0")
    _until(lambda: Run.objects.get(pk=runs[0].pk).status == "finished")
    assert Run.objects.get(pk=runs[0].pk).verdict == "pass"  # from the Finished event
    _until(lambda: executor.started == [Path("/runs/0"), Path("/runs/1")])
    _until(lambda: "/runs/1" in executor.listeners)
    executor.end("/runs/1")
    _until(lambda: Run.objects.get(pk=runs[1].pk).status == "finished")


@pytest.mark.django_db(transaction=True)
def test_one_account_never_holds_every_slot_whatever_its_number_of_projects(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: any account may create projects, and jobs run one per project, so an
    account that launched a long run in each of three projects held all three slots and
    every other user's run stayed queued. Now an account runs at most every slot but one:
    its third run waits, another account's run starts at once, and the waiting run starts
    when one of the account's own ends."""
    from sparring.web._views import create_project

    executor = _Held()
    worker = _worker.Worker(executor=executor)
    monkeypatch.setattr(worker, "slots", lambda: 3)
    worker.start()
    stranger = world["stranger"]
    hogs = [
        Run.objects.create(
            project=create_project(stranger, f"hog {i}"),
            job="simulate",
            path=f"/runs/hog{i}",
            created_by=stranger,
        )
        for i in range(3)
    ]
    for run in hogs:
        worker.launch(run)
    _until(lambda: len(executor.listeners) == 2)
    assert Run.objects.get(pk=hogs[2].pk).status == "queued"  # its account holds 2 of 3
    other = Run.objects.create(
        project=world["project"], job="simulate", path="/runs/owner", created_by=world["owner"]
    )
    worker.launch(other)
    _until(lambda: "/runs/owner" in executor.listeners)  # the slot left for the others
    assert Run.objects.get(pk=hogs[2].pk).status == "queued"
    executor.end("/runs/hog0")
    _until(lambda: "/runs/hog2" in executor.listeners)  # its own ended: its turn
    for handle in ("/runs/hog1", "/runs/hog2", "/runs/owner"):
        executor.end(handle)
    _until(lambda: not Run.objects.filter(status__in=["queued", "running"]).exists())


def test_a_job_process_hands_on_its_events_as_they_happen(tmp_path: Path) -> None:
    """``ProcessExecutor.watch``: the job process's events (started, planned, each
    conversation) come before its one ``Finished``, which carries the verdict."""
    from sparring.jobs import JobStatus
    from sparring.jobs.events import Finished
    from sparring.web._job_process import ProcessExecutor

    (tmp_path / "chatbot.yaml").write_text("connector: scripted\nparams: {}\n")
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "order.yaml").write_text(PROFILE)
    executor = ProcessExecutor()
    executor.prepare({}, [tmp_path])
    settings = {
        "chatbot": str(tmp_path / "chatbot.yaml"),
        "profiles": [str(tmp_path / "profiles")],
        "concurrency": 1,
    }
    handle = executor.submit("simulate", settings, tmp_path / "run")  # type: ignore[arg-type]
    seen: list[Any] = []
    ended = threading.Event()

    def listen(event: Any) -> None:
        seen.append(event)
        if isinstance(event, Finished):
            ended.set()

    executor.watch(handle, listen)
    assert ended.wait(600), "the job process never ended"  # a bound on a hung process
    kinds = [event.kind for event in seen]
    assert kinds[-1] == "finished" and kinds.count("finished") == 1
    assert {"planned", "item_done"} <= set(kinds), kinds
    assert seen[-1].status is JobStatus.FINISHED and seen[-1].verdict == "recorded"
    assert executor.status(handle) is JobStatus.FINISHED
    late: list[Any] = []
    executor.watch(handle, late.append)  # after the end: its Finished at once
    assert late == [seen[-1]]
