"""A run imported from SENSEI's files (the published pizza-order conversations) is
reported like a native one. Skips where ``../shared/data`` is absent."""

from __future__ import annotations

from pathlib import Path

from sparring.check import check, load_rules, store_verdicts
from sparring.conversations import ImportSenseiSettings, import_sensei_job
from sparring.report import RunView, write_report


def test_imported_sensei_run_is_reported(shared_data: Path, tmp_path: Path) -> None:
    pizza = shared_data / "sensei-pizza"
    source = pizza / "conversations" / "mutant_ChangeMemoryScope_1"
    imported = import_sensei_job(ImportSenseiSettings(source=source), tmp_path / "run")
    report = check(load_rules([pizza / "rules"]), list(imported.store.iter_records()))
    store_verdicts(report, imported.store.path)

    html = write_report(imported.store.path).read_text(encoding="utf-8")
    view = RunView.open(imported.store.path)
    assert view.imported and set(view.simulators) == {"sensei"}
    assert "import-sensei (imported)" in html
    assert '<span class="tag">sensei × 13</span>' in html
    # SENSEI recorded 500s and unfinished goals on these conversations: reported, not lost
    assert view.verdict.status == "failed"
    assert any(r.startswith("generic failures: no_response") for r in view.verdict.reasons)
    assert 'id="failure-no_response"' in html and 'id="failure-goal_not_completed"' in html
    failing = [r.rule for r in report.results if r.failed]
    assert failing and all(f">{rule}</a>" in html for rule in failing)
    assert html.count('"simulator":"sensei"') == imported.imported == 13
