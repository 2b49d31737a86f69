"""The report's exploration section: the explored model, its graph with covered nodes,
and the coverage of a tested run."""

from __future__ import annotations

import shutil
from pathlib import Path

from sparring.explore import ExplorationModel, ExploreJob, ExploreSettings, save_model
from sparring.pipeline import RunJob, RunSettings
from sparring.report import write_report
from sparring.runner import start
from tests.explore.conftest import pizza_chatbot_yaml


def test_a_tested_run_shows_the_graph_and_what_was_covered(tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "buttons")
    run = start(RunJob(), RunSettings(chatbot=chatbot, sessions=20, turns=10), tmp_path / "run")
    assert run.report is not None  # written by the runner once the outcome is stored
    html = run.report.read_text(encoding="utf-8")
    assert 'id="exploration"' in html
    assert "Explored with the <strong>offline</strong> strategy" in html
    assert "functionalities explored (offline)" in html  # the summary line at the top
    for name in ("order a pizza", "choose size", "opening hours"):
        assert f">{name}</td>" in html
    assert '<span class="opt-covered">Small</span>' in html
    if shutil.which("dot"):
        section = html[html.index('id="exploration"') :]
        assert "<svg" in section[: section.index("</table>")]
        assert "#c8ecc8" in section  # covered nodes are filled green


def test_an_explore_run_shows_its_model_and_a_partial_one_says_so(tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "buttons")
    explored = start(
        ExploreJob(), ExploreSettings(chatbot=chatbot, sessions=2, turns=3), tmp_path / "r"
    ).result
    partial: ExplorationModel = explored.model.model_copy(
        update={"complete": False, "notes": ["interrupted: model error at session 2"]}
    )
    save_model(explored.store, partial)
    html = write_report(tmp_path / "r").read_text(encoding="utf-8")
    assert "(partial: the exploration was cut short)" in html
    assert "interrupted: model error at session 2" in html
    assert "Coverage by" not in html  # an explore run has no coverage
