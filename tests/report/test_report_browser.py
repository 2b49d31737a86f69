"""The report as a person sees it: headless Chromium (Debian's ``chromium``) loads it
with no network, runs its script without console errors, builds the conversation index
and a conversation's page, and draws a page that is not blank. Skips where Chromium is
absent."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_builders import standard_run

from sparring.report import write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def chromium(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
        "--v=0", *extra, url,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def console_errors(stderr: str) -> list[str]:
    """Lines where the page logged to the console or threw (Chromium logs both)."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@pytest.fixture
def report(tmp_path: Path) -> Path:
    return write_report(standard_run(tmp_path).path)


def test_the_script_builds_the_index_without_console_errors(tmp_path: Path, report: Path) -> None:
    done = chromium(tmp_path, report.as_uri(), "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_errors(done.stderr) == []
    rows = re.findall(r'<tr><td><a href="#conv=([^"]+)">', done.stdout)
    assert rows == ["ok%2F0", "rude%2F0", "slow%2F0"]
    assert "1–3 of 3" in done.stdout
    visible = done.stdout.split("sparring-conversations")[0]
    assert "pwned" in visible and "<img src=" not in visible


def test_a_conversation_page_opens_from_its_link(tmp_path: Path, report: Path) -> None:
    done = chromium(tmp_path, report.as_uri() + "#conv=rude%2F0", "--dump-dom")
    assert console_errors(done.stderr) == []
    assert '<body class="conversation-mode">' in done.stdout
    page = done.stdout.split('id="conversation-page"')[1]
    assert "<h3>rude/0</h3>" in page
    assert page.count('class="bubble user') == 3 and page.count('class="bubble assistant') == 3
    assert '<div class="bubble assistant hit">' in page  # the reply that failed the rule
    assert "&lt;/script&gt;&lt;script&gt;alert" in page  # hostile text shown as text


def test_screenshot_is_not_blank(tmp_path: Path, report: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    png = tmp_path / "report.png"
    done = chromium(tmp_path, report.as_uri(), f"--screenshot={png}", "--window-size=1280,2000")
    assert png.is_file(), done.stderr[-2000:]
    with image.open(png) as shot:
        assert shot.size == (1280, 2000)
        colours = shot.convert("RGB").getcolors(maxcolors=1_000_000) or []
    assert len(colours) > 50  # text, tables, the plot: not a blank or error page
