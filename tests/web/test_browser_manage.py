"""Managing what a project holds, in headless Chromium (issue 37): delete a run after its
confirmation page (cancel first, then confirm; its folder leaves the disk), read the
deletion in the audit log filtered by action, filter and search a run's conversations,
and see a project's trend plots rendered. Screenshots: ``manage-*`` in the test's folder
and ``/tmp/sparring-screens``. Skips where Chromium or its driver is missing (see
test_browser.py, whose browser fixture and helpers these tests use)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_browser import Shots, _sign_in, _text, _wait, browser
from test_conversation_filters import _with_errors_and_breakdowns
from test_lifecycle import _dashboard_run
from web_helpers import checked_run

from sparring.web.models import Run

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["browser"]  # the fixture, used by name

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


def _rows(driver: WebDriver) -> list[str]:
    """The conversation ids the list shows, read in one script call."""
    script = (
        "return Array.from(document.querySelectorAll('#conversations tbody td:first-child a'))"
        ".map(a => a.innerText);"
    )
    return [str(text) for text in driver.execute_script(script)]


def test_delete_a_run_after_its_confirmation_then_read_it_in_the_audit_log(
    browser: WebDriver, live_server: Any, make_user: Any, tmp_path: Path
) -> None:
    from sparring.web._views import create_project

    owner = make_user("olga")
    project = create_project(owner, "dental")
    run = _dashboard_run(project)
    folder = Path(run.path)
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "manage")
    _sign_in(driver, base, "olga")

    driver.get(f"{base}/runs/{run.pk}/")
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "delete"))
    driver.find_element(By.ID, "delete").click()
    _wait(driver, 30).until(lambda d: d.current_url.endswith(f"/runs/{run.pk}/delete/"))
    assert "cannot be undone" in _text(driver, "#confirm")
    assert "its folder" in _text(driver, "#confirm")
    shots.take("delete-confirmation")
    driver.find_element(By.ID, "cancel").click()  # nothing happens on the way back
    _wait(driver, 30).until(lambda d: d.current_url.endswith(f"/runs/{run.pk}/"))
    assert Run.objects.filter(pk=run.pk).exists() and folder.is_dir()

    driver.find_element(By.ID, "delete").click()
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "confirm-delete"))
    driver.find_element(By.ID, "confirm-delete").click()
    _wait(driver, 30).until(lambda d: "/runs/?project=" in d.current_url)
    assert f"Run {run.pk} deleted." in _text(driver, ".messages")
    assert not Run.objects.filter(pk=run.pk).exists() and not folder.exists()
    shots.take("run-deleted")

    driver.get(f"{base}/audit/")
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "audit-filters"))
    Select(driver.find_element(By.NAME, "action")).select_by_visible_text("run_deleted")
    driver.find_element(By.ID, "audit-filter").click()
    _wait(driver, 30).until(lambda d: "action=run_deleted" in d.current_url)
    table = _text(driver, "#audit")
    assert "run_deleted" in table and "olga" in table and "project_created" not in table
    shots.take("audit-filtered")


def test_filter_a_runs_conversations_and_see_the_projects_trends(
    browser: WebDriver, live_server: Any, make_user: Any, tmp_path: Path
) -> None:
    from sparring.web._imports import import_run
    from sparring.web._run_page import warm
    from sparring.web._views import create_project

    owner = make_user("olga")
    project = create_project(owner, "pizzeria")
    for name, every in (("first", 2), ("second", 3)):
        warm(import_run(checked_run(tmp_path / name, 12, sorry_every=every), project))
    run = import_run(_with_errors_and_breakdowns(tmp_path / "third", 60), project)
    warm(run)
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "manage")
    _sign_in(driver, base, "olga")

    driver.get(f"{base}/runs/{run.pk}/conversations/")
    _wait(driver, 30).until(lambda d: len(_rows(d)) == 50)
    driver.find_element(By.ID, "filter-failing").click()
    driver.find_element(By.ID, "filter").click()
    _wait(driver, 30).until(lambda d: "failing=1" in d.current_url)
    _wait(driver, 30).until(lambda d: len(_rows(d)) == 18)
    assert "18 of 60 match" in _text(driver, "h1")
    shots.take("conversations-failing")
    Select(driver.find_element(By.ID, "filter-code")).select_by_visible_text("goal_not_completed")
    driver.find_element(By.ID, "filter").click()
    _wait(driver, 30).until(lambda d: "code=goal_not_completed" in d.current_url)
    _wait(driver, 30).until(lambda d: _rows(d) == ["order/1", "order/5"])
    driver.get(f"{base}/runs/{run.pk}/conversations/")
    driver.find_element(By.ID, "filter-q").send_keys("refund")
    driver.find_element(By.ID, "filter").click()
    _wait(driver, 30).until(lambda d: "q=refund" in d.current_url)
    _wait(driver, 30).until(lambda d: _rows(d) == ["order/6"])
    shots.take("conversations-search")

    driver.get(f"{base}/projects/{project.pk}/")
    driver.find_element(By.ID, "trends-link").click()
    _wait(driver, 60).until(lambda d: d.find_elements(By.ID, "trend-pass-rate"))
    rendered = (
        "return Array.from(document.querySelectorAll('.trend img'))"
        ".map(i => i.complete && i.naturalWidth > 0);"
    )
    _wait(driver, 30).until(lambda d: d.execute_script(rendered) == [True] * 4)
    assert "50.0 %" in _text(driver, "#trend-table")
    shots.take("trends")


def test_an_unchecked_runs_verdict_links_to_its_check_and_explore_shows_its_graph(
    browser: WebDriver,
    live_server: Any,
    make_user: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two bugs of issue 37 seen in the browser: the verdict of a run no rule checked
    offers *Check this run…* (which opens the check's form), and an ``explore`` run
    launched from the dashboard (the dental bot of tests/bots, the offline crawler) shows
    its workflow graph as an image that loads."""

    from test_run_page_bugs import _unchecked
    from web_helpers import client_for, run_through_api

    import tests.bots as bots
    from sparring._ssrf import NetworkPolicy, install_policy, installed_policy
    from sparring.web import _worker
    from sparring.web._files import save_file
    from sparring.web._imports import import_run
    from sparring.web._views import create_project

    owner = make_user("olga")
    project = create_project(owner, "dental")
    unchecked = import_run(_unchecked(tmp_path / "unchecked"), project)
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "manage")
    _sign_in(driver, base, "olga")
    driver.get(f"{base}/runs/{unchecked.pk}/")
    _wait(driver, 60).until(lambda d: d.find_elements(By.ID, "verdict-check"))
    assert "sparring check" not in _text(driver, "#verdict")
    shots.take("unchecked-verdict")
    driver.find_element(By.ID, "verdict-check").click()
    _wait(driver, 30).until(lambda d: d.current_url.endswith(f"/runs/{unchecked.pk}/apply/check/"))

    before = installed_policy()
    install_policy(NetworkPolicy.from_entries(["127.0.0.0/8"]))
    worker = _worker.Worker()
    monkeypatch.setattr(_worker, "_worker", worker)
    worker.start()
    try:
        with bots.serve("dental", (), tmp_path) as chatbot_yaml:
            save_file(project, "chatbot", "chatbot.yaml", chatbot_yaml.read_text(), owner)
            settings = {"chatbot": "chatbot.yaml"}
            pk = run_through_api(client_for(owner), project.pk, "explore", settings)
    finally:
        install_policy(before)
    assert Run.objects.get(pk=pk).status == "finished"
    driver.get(f"{base}/runs/{pk}/")
    loaded = (
        "const i = document.querySelector('#exploration .graph img');"
        "return !!i && i.complete && i.naturalWidth > 0;"
    )
    _wait(driver, 60).until(lambda d: d.execute_script(loaded))
    assert "Explored with the offline strategy" in _text(driver, "#exploration")
    driver.execute_script("document.getElementById('exploration').scrollIntoView();")
    shots.take("explore-graph")
