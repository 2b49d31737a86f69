"""``sparring diff BASELINE NEW``: regressions, fixes, changed conversations, timing."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from check_builders import record, write_rules
from typer.testing import CliRunner

from sparring.check import check, load_rules, store_verdicts
from sparring.cli import app
from sparring.conversations import RunStore
from sparring.conversations._records import RunManifest

cli = CliRunner()
RULE = "name: polite\noracle: not chatbot_returns('stupid')\n"


def _run(tmp_path: Path, name: str, replies: dict[str, str], rules: Path) -> Path:
    manifest = RunManifest(run_id=name, created_at=datetime.now(UTC), simulator="x",
                           sparring_version="0")  # fmt: skip
    store = RunStore.create(tmp_path / name, manifest)
    records = [
        record(
            cid, turns=[("user", "hi"), ("assistant", text)], latency=0.5 if name == "a" else 1.0
        )
        for cid, text in replies.items()
    ]
    for item in records:
        store.write(item)
    store_verdicts(check(load_rules([rules]), records), store.path)
    return store.path


def test_a_rule_that_newly_fails_is_a_regression_with_the_turns_that_differ(
    tmp_path: Path,
) -> None:
    rules = write_rules(tmp_path / "rules", polite=RULE)
    baseline = _run(tmp_path, "a", {"c1": "Hello!", "c2": "Hi."}, rules)
    new = _run(tmp_path, "b", {"c1": "Hello, stupid!", "c2": "Hi."}, rules)
    junit = tmp_path / "diff.xml"
    result = cli.invoke(app, ["diff", str(baseline), str(new), "--junit", str(junit)])
    output = " ".join(result.output.split())
    assert result.exit_code == 1, output
    assert "Newly failing rules: polite" in output
    assert "polite on c1: pass → fail" in output
    assert "- Hello!" in output and "+ Hello, stupid!" in output
    assert "REGRESSION" in output and "+100%" in output  # p50 0.5 s → 1.0 s
    case = next(c for c in ET.parse(junit).getroot().iter("testcase") if c.get("name") == "polite")
    assert case.find("failure") is not None
    back = cli.invoke(app, ["diff", str(new), str(baseline)])
    assert back.exit_code == 0 and "Fixed rules: polite" in " ".join(back.output.split())


def test_diff_needs_stored_verdicts(tmp_path: Path) -> None:
    manifest = RunManifest(run_id="r", created_at=datetime.now(UTC), simulator="x",
                           sparring_version="0")  # fmt: skip
    bare = RunStore.create(tmp_path / "bare", manifest).path
    result = cli.invoke(app, ["diff", str(bare), str(bare)])
    assert result.exception is not None and "no stored verdicts" in str(result.exception)
