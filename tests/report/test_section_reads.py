"""``ReportSection.reads``: a section that names the parts of the run it reads renders the
same without every other part — what lets the dashboard keep a rendered section until one
of its parts changes (a stored check re-renders only the sections that read ``verdicts``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from sparring.conversations import Slot
from sparring.pipeline import RunJob, RunSettings
from sparring.report import REPORT_SECTIONS, ROOT, RunView, render_section, sections
from sparring.runner import start
from tests.explore.conftest import pizza_chatbot_yaml

FAILING_RULE = """\
- name: never_mentions_pizza
  description: made to fail, so that the failures section has rows
  conversations: 1
  oracle: not chatbot_returns('pizza')
"""
PARTS = {ROOT, *(slot.value for slot in Slot)}


def test_every_built_in_section_renders_the_same_from_only_the_parts_it_reads(
    tmp_path: Path,
) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, "buttons")
    rules = tmp_path / "rules.yaml"
    rules.write_text(FAILING_RULE, encoding="utf-8")
    settings = RunSettings(chatbot=chatbot, sessions=4, turns=6, rules=[rules])
    run = start(RunJob(), settings, tmp_path / "run").result.path
    folders = {p.name for p in run.iterdir() if p.is_dir()}
    assert {"conversations", "verdicts", "explore"} <= folders  # a run with several slots
    whole = RunView.open(run)
    shown = 0
    for section in sections():
        assert section.reads is not None and section.reads <= PARTS, section.name
        copy = tmp_path / f"only-{section.name}"
        shutil.copytree(run, copy)
        for folder in folders - section.reads:
            shutil.rmtree(copy / folder)
        alone = render_section(section, RunView.open(copy))
        full = render_section(section, whole)
        assert (alone is None) == (full is None), section.name
        if alone is not None and full is not None:
            shown += 1
            assert str(alone.html).replace(str(copy), str(run)) == str(full.html), section.name
            assert alone.summary == full.summary, section.name
    assert shown >= 5  # overview, failures, rules, exploration, response times…
    failures = render_section(REPORT_SECTIONS.items()["failures"], whole)
    assert failures is not None and "never_mentions_pizza" in str(failures.html)


def test_a_plug_in_section_reads_the_whole_run_unless_it_says() -> None:
    from sparring.report import ReportSection, SectionHtml

    class Plugin(ReportSection):
        name, title = "plug", "Plug"

        def render(self, run: RunView) -> SectionHtml:
            return SectionHtml("")

    assert Plugin.reads is None and REPORT_SECTIONS.items()["rules"].reads == {"verdicts"}
