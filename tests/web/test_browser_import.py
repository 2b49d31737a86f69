"""The laptop flows of issue 37 in Chromium (helpers and fixtures of ``test_browser``):

- **Zero set-up, local mode**: the real server process (``python -m sparring.web``, as
  ``sparring web`` execs it) on loopback with a fresh data folder and no
  ``SPARRING_WEB_SSRF_ALLOW``; the first owner signs in with the printed link, sets a
  password, writes a chatbot.yaml for a bot on ``127.0.0.1`` and a profile, and the run
  launched from the form (which says *Local mode*) reaches the bot and ends.
- **A SENSEI project brought in as a .zip and run**: the zip (connector file, profile,
  rule, a standard personality, a README) chosen in the project page's form, the import
  page listing what became of each file, then the connector file picked on the launch
  form and the run followed to its end; and a file dropped onto the drop zone.
- **An invitation by link**: the owner invites, a browser with no session opens the link,
  creates the account and lands on the project as editor; the link is then spent.

Screenshots go to the test's folder and ``/tmp/sparring-screens`` (``local-*``,
``import-*``, ``invite-*``).
"""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_browser import (  # skips where Chromium, its driver or Selenium is missing
    PASSWORD,
    By,
    Select,
    Shots,
    WebDriver,
    _new_file,
    _sign_in,
    _text,
    _wait,
    browser,  # noqa: F401 (a fixture)
    real_worker,  # noqa: F401 (a fixture)
)
from web_helpers import PROFILE, json_bot

SRC = Path(__file__).resolve().parents[2] / "src"
RUN_SECONDS = 600
SMALL_PROFILE = PROFILE.replace("  number: 2\n", "  number: 1\n")
RULE = "name: answered\ndescription: the bot answers\noracle: len(chatbot_phrases) > 0\n"


@pytest.fixture
def bot() -> Iterator[tuple[str, list[Any]]]:
    with json_bot(lambda data: f"Sure! You said: {data.get('message', '')}") as found:
        yield found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """``python -m sparring.web`` on loopback with a fresh data folder: its base URL and
    the lines it printed (URL, sign-in link, local mode)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "SPARRING_WEB_DATA": str(tmp_path / "data")}
    for name in ("DJANGO_SETTINGS_MODULE", "SPARRING_WEB_MODE", "SPARRING_WEB_SSRF_ALLOW"):
        env.pop(name, None)
    port = _free_port()
    command = [sys.executable, "-m", "sparring.web", "--port", str(port), "--no-browser"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline().strip() for _ in range(3)]
        _wait_listening(port)
        yield f"http://127.0.0.1:{port}", lines
    finally:
        process.terminate()
        process.wait(timeout=60)


def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    pytest.fail("the server never listened")


def _create_project(driver: WebDriver, name: str) -> int:
    driver.find_element(By.ID, "id_name").send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    _wait(driver, 30).until(lambda d: d.find_elements(By.LINK_TEXT, name))
    driver.find_element(By.LINK_TEXT, name).click()
    _wait(driver, 30).until(lambda d: re.search(r"/projects/\d+/$", d.current_url))
    return int(driver.current_url.rstrip("/").split("/")[-1])


def _launch(driver: WebDriver, base: str, project: int, chatbot: str, shots: Shots) -> str:
    """Launch simulate with ``chatbot`` and the project's profiles; the run page's URL."""
    driver.get(f"{base}/projects/{project}/launch/simulate/")
    Select(driver.find_element(By.ID, "id_chatbot")).select_by_value(chatbot)
    boxes = driver.find_elements(By.CSS_SELECTOR, 'input[name="profiles"][value="profiles"]')
    if boxes and not boxes[0].is_selected():
        boxes[0].click()
    shots.take("launch")
    driver.find_element(By.ID, "launch").click()
    _wait(driver, 30).until(lambda d: re.search(r"/runs/\d+/$", d.current_url))
    return str(driver.current_url)


def _wait_for_the_verdict(driver: WebDriver) -> str:
    """The run page's text once the run has ended (the page reloads itself then)."""
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:
        if driver.find_elements(By.ID, "verdict") or driver.find_elements(
            By.CSS_SELECTOR, "pre.error"
        ):
            break
        time.sleep(1)
    text = _text(driver, "main")
    assert driver.find_elements(By.ID, "verdict"), text[:3000]
    return text


def test_zero_set_up_on_a_laptop_tests_a_loopback_bot_in_local_mode(
    browser: WebDriver,  # noqa: F811
    server: tuple[str, list[str]],
    bot: tuple[str, list[Any]],
    tmp_path: Path,
) -> None:
    base, printed = server
    url, seen = bot
    driver, shots = browser, Shots(browser, tmp_path, "local")
    assert printed[0] == f"sparring dashboard on {base}/", printed
    assert printed[1].startswith("sign in once with: "), printed
    assert printed[2].startswith("local mode:"), printed
    driver.get(printed[1].removeprefix("sign in once with: "))
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    _wait(driver, 30).until(lambda d: "/account/password/" in d.current_url)
    driver.find_element(By.NAME, "new_password1").send_keys(PASSWORD)
    driver.find_element(By.NAME, "new_password2").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    _wait(driver, 30).until(lambda d: d.current_url.endswith("/projects/"))
    project = _create_project(driver, "my laptop bot")
    chatbot = (
        f"connector: rest\nparams:\n  base_url: {url}\n"
        "  send_message: {path: /chat, payload_template: {message: '{user_msg}'}}\n"
        "  response_path: reply\n"
    )
    _new_file(driver, base, project, "chatbot", "chatbot.yaml", chatbot)
    _new_file(driver, base, project, "profile", "profiles/order.yaml", SMALL_PROFILE)
    run_page = _launch(driver, base, project, "chatbot.yaml", shots)
    assert run_page.startswith(base)
    text = _wait_for_the_verdict(driver)
    shots.take("run")
    assert "refused" not in text, text[:3000]
    assert seen, "the loopback bot was called"


def _sensei_zip(url: str) -> bytes:
    """A small SENSEI project of our own, zipped as a user would (one top folder)."""
    files = {
        "vet-sensei/rasa-connector.yml": (
            f"config:\n  api_url: {url}/chat\n  request_key: message\n  response_key: reply\n"
            'payload:\n  message: ""\n'
        ),
        "vet-sensei/profiles/order.yaml": SMALL_PROFILE,
        "vet-sensei/rules/answered.yaml": RULE,
        "vet-sensei/personalities/formal-user.yml": "context:\n  - Speak formally.\n",
        "vet-sensei/README.md": "# the veterinary bot's tests\n",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


DROP = """
const zone = document.getElementById('drop-zone');
const transfer = new DataTransfer();
transfer.items.add(new File([arguments[0]], 'dropped.yaml', {type: 'application/x-yaml'}));
const drop = new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true});
zone.dispatchEvent(drop);
"""


def test_a_sensei_zip_imported_from_the_project_page_and_run(
    browser: WebDriver,  # noqa: F811
    live_server: Any,
    make_user: Any,
    real_worker: Any,  # noqa: F811
    bot: tuple[str, list[Any]],
    tmp_path: Path,
    settings: Any,
) -> None:
    from sparring.web._serve import guard_network

    settings.SSRF_ALLOW = []
    base, driver = live_server.url, browser
    url, seen = bot
    shots = Shots(driver, tmp_path, "import")
    make_user("maria")  # the one account: local mode
    guard_network("127.0.0.1")
    archive = tmp_path / "vet-sensei.zip"
    archive.write_bytes(_sensei_zip(url))

    _sign_in(driver, base, "maria")
    project = _create_project(driver, "veterinary")
    shots.take("project-empty")
    driver.find_element(By.ID, "import-files").send_keys(str(archive))
    _wait(driver, 10).until(lambda d: "ready" in _text(d, "#import-count"))
    driver.find_element(By.ID, "import").click()
    _wait(driver, 60).until(lambda d: d.find_elements(By.ID, "import-summary"))
    summary = _text(driver, "#import-summary")
    shots.take("result")
    assert "Recognised: SENSEI." in summary and "3 imported" in summary, summary
    table = _text(driver, "#import-files-table")
    assert "SENSEI connector file" in table and "library persona 'formal'" in table

    run_page = _launch(driver, base, project, "rasa-connector.yml", shots)
    assert run_page.startswith(base)
    _wait_for_the_verdict(driver)
    shots.take("run")
    assert seen, "the SENSEI connector file reached the bot"

    driver.get(f"{base}/projects/{project}/")
    driver.execute_script(DROP, SMALL_PROFILE.replace("order", "dropped"))
    _wait(driver, 60).until(lambda d: d.find_elements(By.ID, "import-summary"))
    shots.take("dropped")
    assert "1 imported" in _text(driver, "#import-summary")
    driver.get(f"{base}/projects/{project}/")
    assert "dropped.yaml" in _text(driver, "#files")
    shots.take("project-after")


def test_an_owner_invites_a_teammate_by_link_who_joins_with_a_new_account(
    browser: WebDriver,  # noqa: F811
    live_server: Any,
    make_user: Any,
    tmp_path: Path,
) -> None:
    from sparring.web._views import create_project

    base, driver = live_server.url, browser
    shots = Shots(driver, tmp_path, "invite")
    project = create_project(make_user("maria"), "veterinary")
    _sign_in(driver, base, "maria")
    driver.get(f"{base}/projects/{project.pk}/members/")
    driver.find_element(By.ID, "invitations-link").click()
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "invite-form"))
    Select(driver.find_element(By.ID, "id_role")).select_by_value("editor")
    driver.find_element(By.ID, "invite").click()
    _wait(driver, 30).until(lambda d: d.find_elements(By.ID, "invitation-link"))
    link = _text(driver, "#invitation-link code").strip()
    shots.take("link")
    assert link.startswith(f"{base}/invite/"), link
    driver.delete_all_cookies()  # the teammate's browser
    driver.get(link)
    assert "as editor" in _text(driver, "#invitation-grants")
    driver.find_element(By.NAME, "username").send_keys("lucia")
    driver.find_element(By.NAME, "password1").send_keys(PASSWORD)
    driver.find_element(By.NAME, "password2").send_keys(PASSWORD)
    shots.take("accept")
    driver.find_element(By.ID, "join").click()
    _wait(driver, 30).until(lambda d: d.current_url.rstrip("/").endswith(f"/{project.pk}"))
    assert "joined veterinary as editor" in _text(driver, ".messages")
    shots.take("joined")
    driver.get(link)  # spent
    assert "used, revoked or expired" in _text(driver, "main")
