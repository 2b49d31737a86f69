"""The adversarial report section: the model's summary and recommendations when written
(only measured parts otherwise), per-weakness scores and trajectories, and the bubble
chart whose bubbles link to their conversation pages."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from sparring.adversarial import ADVERSARIAL_FILE
from sparring.report import write_report

from .test_threads import Finished, finished

__all__ = ["finished"]  # the fixture, shared with test_threads


def _section(html: str) -> str:
    start = html.index('<section id="adversarial"')
    return html[start : html.index("</section>", start)]


def test_the_section_shows_scores_trajectories_and_the_analysis(finished: Finished) -> None:
    run_dir, _, _ = finished
    section = _section(write_report(run_dir).read_text())
    assert "The bot leaks nothing but accepts pineapple." in section
    assert "5.50 → 7.93 → 8.96 → 9.31" in section and "5.50 → 3.07 → 2.04 → 1.69" in section
    assert "13: 8 scored, 3 unscored, 2 chatbot failures" in section
    recommendations = section[section.index("<h3>Recommendations</h3>") :]
    assert recommendations.index("Menu.") < recommendations.index("Catch it.")  # priority 1 first
    assert "Accepts what it cannot deliver." in section


def test_every_scored_test_is_a_bubble_linking_to_its_conversation(finished: Finished) -> None:
    run_dir, result, _ = finished
    section = _section(write_report(run_dir).read_text())
    svg = section[section.index("<svg") : section.index("</svg>")]
    links = re.findall(r'<a xlink:href="(#conv=[^"]+)"', svg)
    scored = [t for t in result.tests if t.score is not None]
    assert len(links) == len(scored) == 8
    assert (
        "#conv=instructions-leak%2Fround-3" in links and "#conv=crypto-payment%2Fround-1" in links
    )
    unscored = ("judge-fails", "crypto-payment%2Fround-2", "slow-kitchen")
    assert not any(name in link for link in links for name in unscored)
    assert "target=" not in svg  # opens in this page, where the conversation pages are
    assert "<script" not in section and not re.search(r'(src|href)="https?:', section)  # no CDN


def test_without_an_analysis_only_the_measured_parts(finished: Finished, tmp_path: Path) -> None:
    run_dir, _, _ = finished
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("report"))
    data = json.loads((copy / ADVERSARIAL_FILE).read_text())
    data["analysis"], data["analysis_error"] = None, "the model could not write the analysis: x"
    (copy / ADVERSARIAL_FILE).write_text(json.dumps(data))
    section = _section(write_report(copy).read_text())
    assert "only the measured parts are shown" in section
    assert "Recommendations" not in section and "Executive summary" not in section
    assert "5.50 → 7.93 → 8.96 → 9.31" in section and "<svg" in section
