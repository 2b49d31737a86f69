"""The dashboard attacked again by an outsider (issue 32), through its API as an editor:
code run through a job the policy's loaders did not cover (``mutate`` of a Rasa project
imports its helper, a Python file the dashboard stored as a profile), and a server path
in a setting typed as text (``suites``). Each attack is refused at launch, located on
the setting, and nothing ran (tests/security/test_code_sinks.py tries each sink)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from web_helpers import api, client_for

from sparring.web.models import Run


def _saved(world: dict[str, Any], tmp_path: Path) -> Path:
    """The attack's files, saved by the editor (each validates as a profile)."""
    import importlib.util

    from sparring.web._files import save_file

    spec = importlib.util.spec_from_file_location(
        "code_sinks", Path(__file__).parents[1] / "security" / "test_code_sinks.py"
    )
    assert spec is not None and spec.loader is not None
    sinks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sinks)
    marker = tmp_path / "ran"
    project, editor = world["project"], world["editor"]
    save_file(project, "profile", "rasa_bot.py", sinks._polyglot(marker), editor)
    save_file(project, "profile", "proj/data/nlu.md", sinks.NLU_PROFILE, editor)
    save_file(project, "profile", "profiles/order.yaml", sinks._polyglot(tmp_path / "x"), editor)
    save_file(project, "rules", "rules.yaml", "rules:\n  - {name: r, oracle: 'True'}\n", editor)
    chatbot = "connector: rasa\nparams: {url: 'http://bot.example'}\n"
    save_file(project, "chatbot", "chatbot.yaml", chatbot, editor)
    return marker


def _launch(world: dict[str, Any], job: str, settings: dict[str, Any]) -> Any:
    body = {"project": world["project"].pk, "job": job, "settings": settings}
    return api(client_for(world["editor"]), "post", "/api/runs/", body)


@pytest.mark.parametrize("kind", ["rasa", "taskyto"])
def test_an_editor_cannot_run_code_through_mutate(
    world: dict[str, Any], tmp_path: Path, kind: str
) -> None:
    marker = _saved(world, tmp_path)
    settings = {
        "project": "proj",
        "kind": kind,
        "profiles": ["profiles/order.yaml"],
        "rules": ["rules.yaml"],
        "chatbot": "chatbot.yaml",
    }
    if kind == "rasa":
        settings["rasa_helper"] = "rasa_bot.py"
    response = _launch(world, "mutate", settings)
    assert response.status_code == 400, response.content
    said = json.dumps(response.data)
    assert "settings.kind" in said and "runs code" in said, said
    assert not Run.objects.exists() or all(r.status != "running" for r in Run.objects.all())
    assert not marker.exists()


@pytest.mark.parametrize("suite", ["/etc", "/etc/passwd", "/nonexistent", "../../../etc"])
def test_an_editor_cannot_read_server_files_as_probe_suites(
    world: dict[str, Any], tmp_path: Path, suite: str
) -> None:
    _saved(world, tmp_path)
    response = _launch(world, "adversarial-probe", {"chatbot": "chatbot.yaml", "suites": [suite]})
    assert response.status_code == 400, response.content
    said = json.dumps(response.data)
    assert "settings.suites" in said and "outside the project" in said, said


def test_the_server_never_runs_a_job_in_its_own_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's in-process executor puts the project's secrets into the environment of
    the process that runs the job (``_worker._isolated``): for tests only. The worker
    ``sparring web`` starts (``_worker.worker()``, what ``start_worker`` runs) hands each
    job to a job process, and no module of the dashboard but the job process itself (the
    child) builds an in-process executor."""
    import ast

    from sparring.web import _worker
    from sparring.web._job_process import ProcessExecutor

    monkeypatch.setattr(_worker, "_worker", None)
    served = _worker.worker()
    assert isinstance(served.executor, ProcessExecutor)
    assert getattr(served.executor, "prepare", None) is not None  # secrets on its stdin
    web = Path(_worker.__file__).parent
    for module in sorted(web.rglob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                assert name != "in_process_executor", (module, function.name)
                if name == "InProcessExecutor":  # only the job process, and the tests' door
                    where = (module.name, function.name)
                    assert where in {
                        ("_job_process.py", "main"),
                        ("_worker.py", "in_process_executor"),
                    }, where


def _routes() -> list[str]:
    """A concrete path for every route of the dashboard (the admin's own excepted), ids
    set to 1 and text parts to ``x``; the API's ``.json`` variants left out."""
    import re

    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns: list[Any], prefix: str) -> list[str]:
        found: list[str] = []
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and "format>" not in route:
                found.append(route)
        return found

    paths = []
    for route in walk(get_resolver().url_patterns, "/"):
        if route.startswith("/admin/"):
            continue
        path = re.sub(r"<int:\w+>|\(\?P<\w+>\[\^/\.\]\+\)", "1", route)
        path = re.sub(r"<(?:str|slug|path):\w+>|\(\?P<\w+>\.\+\)", "x", path)
        paths.append(path.replace("^", "").replace("$", ""))
    return sorted(set(paths))


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_no_route_changes_anything_without_the_csrf_token(
    world: dict[str, Any], method: str
) -> None:
    """Every route, the newest included, as a signed-in owner's browser would be made to
    send it by another site (a session cookie, no CSRF token): refused before any view
    runs (403; the token-only logout of the API answers 401)."""
    client = client_for(world["owner"])
    answered = {}
    for path in _routes():
        response = getattr(client, method)(path, {}, content_type="application/json")
        answered[path] = response.status_code
    wrong = {path: status for path, status in answered.items() if status not in (401, 403)}
    assert not wrong, wrong
    assert len(answered) > 40
