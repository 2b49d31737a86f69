"""A project's trends (issue 37): pass rate per rule, generic failures per code, response
time p50/p95 and cost across its runs, drawn server-side as SVG images; the figures they
draw in a table; readers only."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
from web_helpers import checked_run, client_for

from sparring.web._imports import import_run
from sparring.web._trends import RunPoint, run_point
from sparring.web.models import Run

pytestmark = pytest.mark.django_db


def _runs(world: dict[str, Any], tmp_path: Path) -> list[Run]:
    """Three runs of 12 conversations failing the rule on every 2nd, 4th and 12th."""
    runs = []
    for name, every in (("a", 2), ("b", 4), ("c", 12)):
        runs.append(
            import_run(checked_run(tmp_path / name, 12, sorry_every=every), world["project"])
        )
    return runs


def test_a_runs_point_counts_its_checks_times_and_cost(
    world: dict[str, Any], tmp_path: Path
) -> None:
    first = _runs(world, tmp_path)[0]
    point = run_point(first)
    assert isinstance(point, RunPoint) and point.conversations == 12
    assert point.rules == {"never_says_sorry_twice": (6, 12)}  # every 2nd fails
    assert point.p50 == pytest.approx(0.25) and point.p95 == pytest.approx(0.25)
    assert point.cost == 0.0 and point.codes == {}


def test_the_trends_page_draws_four_plots_across_the_runs(
    world: dict[str, Any], tmp_path: Path
) -> None:
    runs = _runs(world, tmp_path)
    Run.objects.filter(pk=runs[1].pk).update(archived=True)  # archived: left out
    viewer = client_for(world["viewer"])
    response = viewer.get(f"/projects/{world['project'].pk}/trends/")
    page = response.content.decode()
    assert response.status_code == 200
    for name in ("pass-rate", "failures", "latency", "cost"):
        assert f'id="trend-{name}"' in page
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(images) == 4
    pass_rate = base64.b64decode(images[0]).decode()
    assert pass_rate.startswith("<?xml") and "<svg" in pass_rate and "<script" not in pass_rate
    assert f"#{runs[0].pk}" in pass_rate and f"#{runs[2].pk}" in pass_rate
    assert f"#{runs[1].pk}" not in pass_rate and "never_says_sorry_twice" in pass_rate
    table = page.split('id="trend-table"')[1]
    assert "50.0 %" in table and "91.7 %" in table  # 6 of 12, then 11 of 12 passed
    assert (
        f'href="/projects/{world["project"].pk}/trends/"'
        in viewer.get(f"/projects/{world['project'].pk}/").content.decode()
    )
    assert (
        client_for(world["stranger"]).get(f"/projects/{world['project'].pk}/trends/").status_code
        == 404
    )


def test_a_project_without_runs_says_so(world: dict[str, Any]) -> None:
    page = client_for(world["owner"]).get(f"/projects/{world['project'].pk}/trends/")
    assert page.status_code == 200 and 'id="no-trends"' in page.content.decode()
