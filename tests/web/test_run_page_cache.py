"""The run page never computes on the request path: each report section is cached under
the parts of the run it reads, a piece not yet computed is a placeholder that htmx fetches
until the worker's page thread has rendered it, and a check stored into the run re-renders
only the sections that read the check."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from web_helpers import checked_run, client_for

from sparring.web._imports import import_run
from sparring.web._page_renderer import renderer
from sparring.web._run_page import page_sections, run_page, warm
from sparring.web.models import Run

pytestmark = pytest.mark.django_db

PASSING_RULE = """\
- name: says_sure
  description: The chatbot agrees at least once
  conversations: 1
  oracle: chatbot_returns('Sure')
"""


def _pending(page: str) -> set[str]:
    """The sections shown as placeholders (fetched by htmx) on ``page``."""
    return set(re.findall(r'hx-get="/runs/\d+/sections/([\w-]+)/"', page))


@pytest.fixture
def run(world: dict[str, Any], tmp_path: Path) -> Run:
    return import_run(checked_run(tmp_path / "run-a", 12), world["project"])


def test_a_section_not_yet_computed_is_a_placeholder_then_its_content(
    world: dict[str, Any], run: Run
) -> None:
    viewer = client_for(world["viewer"])
    page = viewer.get(f"/runs/{run.pk}/").content.decode()
    # answered at once from an empty cache: every section and the verdict are placeholders
    shown = {s.name for s in page_sections()}
    assert _pending(page) and _pending(page) <= shown and "failures" in _pending(page)
    assert f'hx-get="/runs/{run.pk}/verdict/"' in page and "Being computed" in page
    assert 'hx-trigger="load delay:1s"' in page and "<script>" not in page  # no inline script
    renderer().wait()  # the page thread renders what the visit found missing
    failures = viewer.get(f"/runs/{run.pk}/sections/failures/").content.decode()
    assert 'id="failures" class="report-section"' in failures and "hx-get" not in failures
    assert "never_says_sorry_twice" in failures
    assert f'href="/runs/{run.pk}/conversations/order%2F0"' in failures
    verdict = viewer.get(f"/runs/{run.pk}/verdict/").content.decode()
    assert "Verdict: failed" in verdict and "hx-get" not in verdict
    again = viewer.get(f"/runs/{run.pk}/").content.decode()
    assert not _pending(again) and "Verdict: failed" in again and 'id="rules"' in again
    # a section that does not apply answers with nothing (htmx removes its placeholder)
    assert viewer.get(f"/runs/{run.pk}/sections/metamorphic/").content == b""
    assert viewer.get(f"/runs/{run.pk}/sections/nope/").status_code == 404
    assert client_for(world["stranger"]).get(f"/runs/{run.pk}/sections/rules/").status_code == 404
    assert client_for(world["stranger"]).get(f"/runs/{run.pk}/verdict/").status_code == 404


def test_the_page_shows_the_same_sections_as_the_report(world: dict[str, Any], run: Run) -> None:
    from sparring.report import RunView, render_section

    warm(run)
    page = run_page(run)
    view = RunView.open(run.path)
    expected = [done.name for s in page_sections() if (done := render_section(s, view)) is not None]
    assert page.ready and [s.name for s in page.sections] == expected
    assert page.verdict == view.verdict.status == "failed"
    rules = page.section("rules")
    assert rules is not None and rules.summary is not None and "1 failing" in rules.summary


def test_a_stored_check_re_renders_only_the_sections_that_read_it(
    world: dict[str, Any], run: Run, tmp_path: Path
) -> None:
    from sparring.check import check, load_rules, store_verdicts
    from sparring.conversations import RunStore

    warm(run)
    before = run_page(run)
    assert before.ready and before.section("response-times") is not None
    rules = tmp_path / "passing.yaml"
    rules.write_text(PASSING_RULE, encoding="utf-8")
    records = list(RunStore.open(Path(run.path), clean=False).iter_records())
    store_verdicts(check(load_rules([rules]), records), Path(run.path), name="second")

    viewer = client_for(world["viewer"])
    listing = viewer.get(f"/runs/{run.pk}/conversations/").content.decode()
    # the rows at once; their failed rules (from the new check) fetched again when ready
    assert "order/0" in listing and "being computed" in listing
    assert f'hx-get="/runs/{run.pk}/conversations/?page=1" hx-select="#conversations"' in listing
    one = viewer.get(f"/runs/{run.pk}/conversations/order%2F1").content.decode()
    assert "Sure (0)." in one and 'id="verdicts-pending"' in one and "says_sure" not in one
    assert f'hx-get="/runs/{run.pk}/conversations/order%2F1"' in one  # it asks again
    page = viewer.get(f"/runs/{run.pk}/").content.decode()
    pending = _pending(page)
    # what reads the check (verdicts/) is rendered again; the plots only read conversations/
    assert {"rules", "failures", "overview"} <= pending
    assert "response-times" not in pending and 'id="response-times"' in page
    assert f'hx-get="/runs/{run.pk}/verdict/"' in page
    renderer().wait()
    after = viewer.get(f"/runs/{run.pk}/").content.decode()
    assert not _pending(after) and "says_sure" in after  # the new check shows
    listing = viewer.get(f"/runs/{run.pk}/conversations/").content.decode()
    assert "being computed" not in listing and "hx-get" not in listing.split("<main>")[1]
    assert '<span class="verdict fail">never_says_sorry_twice</span>' in listing
    url = f"/runs/{run.pk}/conversations/order%2F1"
    assert viewer.get(url, HTTP_HX_REQUEST="true")["HX-Refresh"] == "true"  # ready: reload
    one = viewer.get(url).content.decode()
    assert "says_sure" in one and "verdicts-pending" not in one
    section = run_page(run).section("response-times")
    assert section is not None and section == before.section("response-times")


def test_a_run_that_cannot_be_read_says_so(world: dict[str, Any], run: Run) -> None:
    record = next((Path(run.path) / "conversations").glob("*.json"))
    record.write_text("{ not json", encoding="utf-8")
    warm(run)
    page = client_for(world["viewer"]).get(f"/runs/{run.pk}/").content.decode()
    assert "This run cannot be read" in page and "this run" in page
    assert run.path not in page and not _pending(page)  # the server's folders are not shown
