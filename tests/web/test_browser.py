"""The dashboard in a real browser: headless Debian Chromium driven by Selenium through
Debian's ``chromium-driver`` (nothing downloads a browser). Skips cleanly where either is
missing.

- End to end, as a person would: sign in, create a project from the example pizzeria
  (ALICE, served over HTTP on loopback, where the Rasa runtime is missing), write its
  files in the editor, launch ``run`` from its generated form (``simulate`` while ``run``
  is not a registered job), watch the progress reach the end, open a failing
  conversation, annotate a turn, launch a second run and compare the two. The chatbot is
  called through the SSRF guard with its loopback address allow-listed explicitly.
- XSS: a run whose chatbot replied ``<script>``, ``<img onerror>``, ``javascript:`` links
  and every built-in adversarial probe payload renders inert on every page that shows it,
  also the run page's sections that htmx fetches in (nothing cached on the first visit).

Screenshots are saved under the test's temporary folder and copied to
``/tmp/sparring-screens``.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from web_helpers import PASSWORD, checked_run, json_bot

from sparring.web.models import Run

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None, reason="Debian chromium/chromium-driver missing"
    ),
    pytest.mark.django_db(transaction=True),
]
selenium = pytest.importorskip("selenium")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (  # noqa: E402
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

RELOADING = (WebDriverException,)
"""What a wait meets while htmx swaps a panel or the page reloads itself (a stale or
detached element, a document unloading): the wait tries again."""
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCREENS = Path("/tmp/sparring-screens")
RUN_SECONDS = 900
FAILING_RULE = """\
- name: never_says_you
  description: A rule made to fail (most chatbots say "you"), so a failing conversation exists
  conversations: 1
  oracle: not chatbot_returns('you')
"""


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1400"):
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


class Shots:
    """Screenshots named in order, in the test's folder and copied for the lead."""

    def __init__(self, driver: WebDriver, folder: Path, prefix: str) -> None:
        self.driver, self.folder, self.prefix, self.count = driver, folder, prefix, 0
        SCREENS.mkdir(parents=True, exist_ok=True)

    def take(self, name: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.driver.set_window_size(1280, 1400)
        height = self.driver.execute_script("return document.body.scrollHeight")
        self.driver.set_window_size(1280, min(max(int(height) + 40, 800), 4000))
        self.driver.save_screenshot(str(path))
        shutil.copy(path, SCREENS / path.name)
        return path


def _sign_in(driver: WebDriver, base: str, name: str) -> None:
    driver.get(base + "/login/")
    driver.find_element(By.NAME, "username").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(
        By.CSS_SELECTOR, "form button[type=submit], form input[type=submit]"
    ).click()
    _wait(driver, 30).until(lambda d: "/projects/" in d.current_url)


def _wait(driver: WebDriver, seconds: float) -> WebDriverWait[WebDriver]:
    """A wait that tries again when the page swaps under it (see ``RELOADING``): a form's
    redirect may replace the element between finding it and reading its text."""
    return WebDriverWait(driver, seconds, ignored_exceptions=RELOADING)


def _text(driver: WebDriver, selector: str) -> str:
    """The text of the first element matching ``selector`` ('' when none), read in one
    script call (an element found first may be replaced before its text is read)."""
    script = "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';"
    return str(driver.execute_script(script, selector))


def _click(driver: WebDriver, selector: str) -> None:
    """Click the first element matching ``selector``, found again if htmx swaps it out
    between finding and clicking."""
    _wait(driver, 30).until(lambda d: d.find_element(By.CSS_SELECTOR, selector).click() or True)


def _set(driver: WebDriver, element: Any, text: str) -> None:
    driver.execute_script("arguments[0].value = arguments[1];", element, text)


def _alice_over_http() -> Iterator[str]:
    """ALICE (``examples/alice``) behind a JSON endpoint on loopback: ``POST /chat``
    ``{"message", "session"}`` → ``{"reply"}``."""
    pytest.importorskip("aiml")
    sys.path.insert(0, str(EXAMPLES / "alice"))
    from alice_bot import AliceBot  # type: ignore[import-not-found]

    bots: dict[str, Any] = {}

    def answer(data: dict[str, Any]) -> str:  # json_bot holds its lock
        bot = bots.setdefault(str(data.get("session")), AliceBot())
        return str(bot.respond(str(data.get("message", ""))))

    with json_bot(answer) as (url, _):
        yield url


@pytest.fixture
def chatbot(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """``(name, chatbot.yaml text, a profile's text)``: the pizzeria on Rasa when its
    runtime is set up, otherwise (or with ``SPARRING_TEST_BROWSER_BOT=alice``) ALICE over
    HTTP."""
    sys.path.insert(0, str(ROOT / "tests" / "integration"))
    from integration_support import free_port, rasa_bot  # type: ignore[import-not-found]

    bot = rasa_bot()
    wanted = os.environ.get("SPARRING_TEST_BROWSER_BOT", "pizzeria")
    if wanted != "alice" and bot.venv_is_ready() and bot.model_path().exists():
        servers = bot.RasaServers(free_port(), free_port(), log_dir=tmp_path / "rasa")
        config = yaml.safe_load((EXAMPLES / "pizzeria" / "chatbot.yaml").read_text())
        config["params"]["url"] = servers.url
        profile = (EXAMPLES / "pizzeria" / "profiles" / "sizes.yaml").read_text()
        with servers:
            servers.wait_ready(timeout=600)
            yield "pizzeria", yaml.safe_dump(config, sort_keys=False), profile
        return
    for url in _alice_over_http():
        config = {
            "connector": "rest",
            "params": {
                "base_url": url,
                "send_message": {
                    "path": "/chat",
                    "payload_template": {"message": "{user_msg}", "session": "{session_id}"},
                },
                "response_path": "reply",
                "timeout": 20,
            },
            "info": {"name": "ALICE", "type": "conversational", "languages": ["en"]},
        }
        profile = (EXAMPLES / "alice" / "profiles" / "small-talk.yaml").read_text()
        yield "ALICE", yaml.safe_dump(config, sort_keys=False), profile


@pytest.fixture
def ssrf_allows_loopback() -> Iterator[None]:
    """The server's SSRF guard, with loopback allow-listed explicitly (the test's bots)."""
    from sparring._ssrf import NetworkPolicy, install_policy, installed_policy

    before = installed_policy()
    install_policy(NetworkPolicy.from_entries(["127.0.0.0/8", "localhost"]))
    yield
    install_policy(before)


@pytest.fixture
def real_worker(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The dashboard's worker with the runner's in-process executor, its thread started."""
    from sparring.web import _worker

    worker = _worker.Worker()
    monkeypatch.setattr(_worker, "_worker", worker)
    worker.start()
    return worker


def _new_file(driver: WebDriver, base: str, project: int, kind: str, name: str, text: str) -> None:
    driver.get(f"{base}/projects/{project}/files/new/")
    Select(driver.find_element(By.ID, "id_kind")).select_by_value(kind)
    driver.find_element(By.ID, "id_name").send_keys(name)
    _set(driver, driver.find_element(By.ID, "id_content"), text)
    driver.find_element(By.ID, "save").click()
    _wait(driver, 30).until(lambda d: "/files/new/" not in d.current_url)
    assert "Not saved" not in driver.page_source, _text(driver, "main")


def _launch(driver: WebDriver, base: str, project: int, job: str, shots: Shots | None) -> int:
    driver.get(f"{base}/projects/{project}/launch/{job}/")
    Select(driver.find_element(By.ID, "id_chatbot")).select_by_value("chatbot.yaml")
    values = {"concurrency": "1", "max_turns": "6", "sessions": "2", "turns": "6"}
    for name, value in values.items():
        found = driver.find_elements(By.ID, f"id_{name}")
        if found:
            found[0].clear()
            found[0].send_keys(value)
    for folder in ("rules", "profiles"):
        boxes = driver.find_elements(By.CSS_SELECTOR, f'input[name="{folder}"][value="{folder}"]')
        if boxes and not boxes[0].is_selected():
            boxes[0].click()
    if shots is not None:
        shots.take(f"launch-{job}")
    driver.find_element(By.ID, "launch").click()
    _wait(driver, 30).until(lambda d: "/runs/" in d.current_url)
    return int(driver.current_url.rstrip("/").split("/")[-1])


def _wait_for_the_end(driver: WebDriver, run: int, shots: Shots | None) -> None:
    seen_progress = False
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:
        if driver.find_elements(By.ID, "verdict") or driver.find_elements(
            By.CSS_SELECTOR, "pre.error"
        ):
            break
        try:  # htmx replaces the panel every second: an element found may be gone
            planned = driver.find_element(By.ID, "progress-planned").text
        except (NoSuchElementException, StaleElementReferenceException):
            planned = ""
        if not seen_progress and planned not in ("", "0"):
            seen_progress = True  # the job planned its conversations: the bar moves now
            if shots is not None:
                shots.take("progress")
        time.sleep(1)
    status = Run.objects.get(pk=run).status
    assert status == "finished", (status, Run.objects.get(pk=run).error)
    # the page refreshed itself at the end (HX-Refresh): no reload by the test
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "verdict"))


def _annotate(driver: WebDriver, label: str, breakdown: str, comment: str) -> None:
    """Annotates the second turn; the form is found again when the page swaps a part of
    itself under the test (htmx) between finding the form and filling it."""
    for attempt in range(3):
        try:
            form = driver.find_elements(By.CSS_SELECTOR, "li.turn form.annotate")[1]
            Select(form.find_element(By.NAME, "label")).select_by_value(label)
            form.find_element(By.NAME, "breakdown").send_keys(breakdown)
            form.find_element(By.NAME, "comment").send_keys(comment)
            form.find_element(By.CSS_SELECTOR, "button").click()
            return
        except RELOADING:
            if attempt == 2:
                raise
            time.sleep(1)


def test_sign_in_create_launch_watch_open_a_failure_annotate_and_compare(
    browser: WebDriver,
    live_server: Any,
    make_user: Any,
    chatbot: tuple[str, str, str],
    ssrf_allows_loopback: None,
    real_worker: Any,
    tmp_path: Path,
) -> None:
    from sparring.runner import JOBS

    base, driver = live_server.url, browser
    name, chatbot_yaml, profile = chatbot
    shots = Shots(driver, tmp_path, f"e2e-{name.lower()}")
    # zero-config `run` explores a task bot's functionalities; a chit-chat bot (ALICE, where
    # the Rasa runtime is missing) has none, and its run rightly tests nothing: drive simulate
    chit_chat = yaml.safe_load(chatbot_yaml).get("info", {}).get("type") == "conversational"
    job = "run" if "run" in JOBS.items() and not chit_chat else "simulate"
    make_user("maria")

    _sign_in(driver, base, "maria")
    driver.find_element(By.ID, "id_name").send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    # the POST answers with a redirect to the list: wait for the page that has the new
    # project (finding it at once raced the navigation on a loaded CI machine)
    try:
        _wait(driver, 30).until(lambda d: d.find_elements(By.LINK_TEXT, name))
    except TimeoutException:
        pytest.fail(f"no link to the new project on: {_text(driver, 'main')[:2000]}")
    driver.find_element(By.LINK_TEXT, name).click()
    project = int(driver.current_url.rstrip("/").split("/")[-1])
    _new_file(driver, base, project, "chatbot", "chatbot.yaml", chatbot_yaml)
    _new_file(driver, base, project, "profile", "profiles/first.yaml", profile)
    _new_file(driver, base, project, "rules", "rules/never_says_you.yaml", FAILING_RULE)
    driver.get(f"{base}/projects/{project}/")
    shots.take("project")

    first = _launch(driver, base, project, job, shots)
    _wait_for_the_end(driver, first, shots)
    shots.take("run-page")
    # htmx may still swap the verdict's placeholder in: found again until it shows
    _wait(driver, 30).until(lambda d: d.find_element(By.ID, "verdict").is_displayed())

    _click(driver, "#conversations-link")
    _wait(driver, 30).until(lambda d: "/conversations/" in d.current_url)
    shots.take("conversations")
    failing = driver.find_elements(By.CSS_SELECTOR, "#conversations tr.failing a")
    assert failing or job != "run", "a run checked with a rule made to fail has a failing one"
    _click(driver, "#conversations tr.failing a" if failing else "#conversations td a")
    _wait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "li.turn"))
    shots.take("failing-conversation")

    _annotate(driver, "wrong", "ignore question", "did not answer the size")
    _wait(driver, 30).until(lambda d: "ignore question" in _text(d, ".annotation"))
    shots.take("annotated")

    second = _launch(driver, base, project, job, None)
    _wait_for_the_end(driver, second, None)
    driver.get(f"{base}/compare/")
    Select(driver.find_element(By.NAME, "a")).select_by_value(str(first))
    Select(driver.find_element(By.NAME, "b")).select_by_value(str(second))
    driver.find_element(By.ID, "compare").click()
    _wait(driver, 30).until(lambda d: "/compare/?" in d.current_url)
    shots.take("compare")
    if job == "run":  # both runs were checked: the comparison itself is shown
        assert driver.find_elements(By.ID, "diff")
    assert f"a={first}" in driver.current_url and f"b={second}" in driver.current_url


def test_hostile_chatbot_text_renders_inert_in_chromium(
    browser: WebDriver, live_server: Any, make_user: Any, tmp_path: Path
) -> None:
    from sparring.web._imports import import_run
    from sparring.web._views import create_project

    owner = make_user("owner")
    project = create_project(owner, "hostile")
    run = import_run(checked_run(tmp_path / "hostile-run", 40, hostile=True), project)
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "xss")
    _sign_in(driver, base, "owner")
    pages = [f"/runs/{run.pk}/", f"/runs/{run.pk}/conversations/"]
    pages += [f"/runs/{run.pk}/conversations/order%2F{i}" for i in range(12)]
    for page in pages:
        driver.get(base + page)
        if page == pages[0]:  # nothing cached yet: htmx fills the placeholders in
            _wait(driver, 120).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".pending"))
            assert driver.find_elements(By.ID, "failures") and "Verdict: failed" in (
                driver.find_element(By.ID, "verdict").text
            )
            shots.take("run-page-filled-by-htmx")
        assert driver.execute_script("return window.__xss === undefined"), page
        found = driver.execute_script(
            """return {
              scripts: [...document.scripts].filter(s => !s.src).length,
              handlers: document.querySelectorAll('[onerror],[onload],[onclick]').length,
              js_links: document.querySelectorAll('a[href^="javascript:"]').length,
              frames: document.querySelectorAll('iframe,object,embed').length,
              images: [...document.querySelectorAll('main img')].filter(
                i => !i.src.startsWith('data:image/svg+xml;')).length,
            }"""
        )
        assert found == {"scripts": 0, "handlers": 0, "js_links": 0, "frames": 0, "images": 0}, (
            page,
            found,
        )
    driver.get(base + f"/runs/{run.pk}/conversations/order%2F0")
    assert "<script>window.__xss = 1</script>" in driver.find_element(By.TAG_NAME, "main").text
    shots.take("conversation")
    driver.get(base + f"/runs/{run.pk}/")
    shots.take("run-page")
    time.sleep(0.5)
    assert driver.execute_script("return window.__xss === undefined")


def test_members_secrets_and_tokens_pages_in_chromium(
    browser: WebDriver, live_server: Any, make_user: Any, tmp_path: Path
) -> None:
    """An owner adds a member and changes its role, sets a secret and sees only ``…abcd``,
    creates an API token and sees it once, uses it, then revokes it."""
    import httpx

    from sparring.web._views import create_project
    from sparring.web.models import DeviceToken, Membership

    owner = make_user("olga")
    make_user("ben")
    project = create_project(owner, "shop")
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "admin")
    _sign_in(driver, base, "olga")

    members = f"{base}/projects/{project.pk}/members/"
    driver.get(members)
    table = driver.find_element(By.ID, "members")
    assert "the only owner" in table.text and not table.find_elements(By.XPATH, ".//button")
    driver.find_element(By.ID, "id_who").send_keys("ben")
    Select(driver.find_element(By.ID, "id_role")).select_by_value("editor")
    driver.find_element(By.CSS_SELECTOR, "#add-member button").click()
    _wait(driver, 30).until(lambda d: "ben" in d.find_element(By.ID, "members").text)
    assert Membership.objects.get(project=project, user__username="ben").role == "editor"
    shots.take("member-added")
    role = Select(driver.find_element(By.CSS_SELECTOR, 'select[aria-label="role of ben"]'))
    role.select_by_value("viewer")
    row = driver.find_element(By.XPATH, '//select[@aria-label="role of ben"]/ancestor::form')
    row.find_element(By.TAG_NAME, "button").click()
    _wait(driver, 30).until(lambda d: "ben is now viewer" in _text(d, "main"))
    assert Membership.objects.get(project=project, user__username="ben").role == "viewer"
    shots.take("member-role-changed")

    key = "sk-browser-test-0123456789abcd"
    driver.get(f"{base}/projects/{project.pk}/secrets/")
    driver.find_element(By.ID, "id_name").send_keys("OPENAI_API_KEY")
    driver.find_element(By.ID, "id_value").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#set-secret button").click()
    _wait(driver, 30).until(lambda d: "OPENAI_API_KEY" in d.find_element(By.ID, "secrets").text)
    assert "…abcd" in _text(driver, "#secrets")
    assert key not in driver.page_source and key[:-4] not in driver.page_source
    shots.take("secret-set")

    driver.get(f"{base}/projects/{project.pk}/")
    driver.find_element(By.ID, "quotas-link").click()
    conversations = _wait(driver, 30).until(lambda d: d.find_element(By.ID, "id_max_conversations"))
    most = int(conversations.get_attribute("max") or 0)
    assert most >= 1  # the server's maximum, which the browser itself holds the field to
    conversations.send_keys("7")
    driver.find_element(By.CSS_SELECTOR, "#set-quotas button").click()
    _wait(driver, 30).until(lambda d: "quotas saved" in _text(d, "main"))
    assert "Conversations a run may plan\t7\t7\t" in _text(driver, "#quotas")
    project.refresh_from_db()
    assert project.max_conversations == 7
    shots.take("quotas-set")

    driver.get(f"{base}/account/tokens/")
    driver.find_element(By.ID, "id_name").send_keys("CI on main")
    Select(driver.find_element(By.ID, "id_scope")).select_by_value("run")
    days = driver.find_element(By.ID, "id_days")
    days.clear()
    days.send_keys("7")
    driver.find_element(By.CSS_SELECTOR, "#new-token-form button").click()
    shown = _wait(driver, 30).until(lambda d: d.find_element(By.ID, "new-token"))
    token = shown.find_element(By.TAG_NAME, "code").text.strip()
    assert token.startswith("spr_") and len(token) > 40
    shots.take("token-created")
    driver.get(f"{base}/account/tokens/")
    tokens = driver.find_element(By.ID, "tokens").text
    assert token not in driver.page_source and "CI on main" in tokens and "never" in tokens
    api = f"{base}/api/runs/"
    assert httpx.get(api, headers={"Authorization": f"Token {token}"}).status_code == 200
    driver.refresh()
    assert "never" not in driver.find_element(By.ID, "tokens").text  # last used: now
    shots.take("token-used")
    driver.find_element(By.CSS_SELECTOR, "#tokens button").click()
    _wait(driver, 30).until(lambda d: "No token" in d.find_element(By.ID, "tokens").text)
    assert not DeviceToken.objects.filter(user=owner).exists()
    assert httpx.get(api, headers={"Authorization": f"Token {token}"}).status_code == 401
    shots.take("token-revoked")


def test_check_applied_to_a_run_from_its_page_in_chromium(
    browser: WebDriver, live_server: Any, make_user: Any, real_worker: Any, tmp_path: Path
) -> None:
    """The run page loads its history of applied jobs (htmx), an editor checks the run with
    a project rule, the panel follows the job and the page reloads with the new verdict."""
    from test_applied import _bare_run
    from web_helpers import RULES

    from sparring.web._files import save_file
    from sparring.web._imports import import_run
    from sparring.web._views import create_project

    owner = make_user("olga")
    project = create_project(owner, "shop")
    save_file(project, "rules", "rules/sorry.yaml", RULES, owner)
    run = import_run(_bare_run(tmp_path / "bare"), project)
    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "applied")
    _sign_in(driver, base, "olga")
    driver.get(f"{base}/runs/{run.pk}/")
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "apply-check"))
    assert "failed" not in _text(driver, "#verdict")  # never checked
    driver.find_element(By.ID, "apply-check").click()
    box = driver.find_element(By.CSS_SELECTOR, 'input[name="rules"][value="rules/sorry.yaml"]')
    box.click()
    shots.take("form")
    driver.find_element(By.ID, "apply").click()
    _wait(driver, RUN_SECONDS).until(
        lambda d: "Verdict: failed" in _text(d, "main")
    )  # the check stored its verdicts in the run: the page shows them
    # the panel polls the job until its row says how it ended, then the page reloads
    _wait(driver, 60).until(
        lambda d: "finished" in _text(d, "#applied") and d.find_elements(By.ID, "apply-check")
    )
    shots.take("run-page")
