"""A run imported from SENSEI's files (the published pizza-order conversations) is
reported like a native one. Skips where ``../shared/data`` is absent."""

from __future__ import annotations

from pathlib import Path

from sparring.report import RunView, write_report
from sparring.runner import start


def test_imported_sensei_run_is_reported(shared_data: Path, tmp_path: Path) -> None:
    pizza = shared_data / "sensei-pizza"
    source = pizza / "conversations" / "mutant_ChangeMemoryScope_1"
    imported = start("import-sensei", {"source": str(source)}, tmp_path / "run").result
    checked = {"rules": [str(pizza / "rules")], "run": str(imported.store.path)}
    report = start("check", checked, report=False).result.report

    html = write_report(imported.store.path).read_text(encoding="utf-8")
    view = RunView.open(imported.store.path)
    assert view.imported and set(view.simulators) == {"sensei"}
    assert "import-sensei (imported)" in html
    assert '<span class="tag">sensei × 13</span>' in html
    # SENSEI recorded 500s and unfinished goals on these conversations: reported, not lost
    assert view.verdict.status == "failed"
    generic = [r for r in view.verdict.reasons if r.startswith("generic failures: ")]
    assert generic and "no_response 6" in generic[0] and "goal_not_completed 7" in generic[0]
    assert 'id="failure-no_response"' in html and 'id="failure-goal_not_completed"' in html
    failing = [r.rule for r in report.results if r.failed]
    assert failing and all(f">{rule}</a>" in html for rule in failing)
    assert html.count('"simulator":"sensei"') == imported.imported == 13
