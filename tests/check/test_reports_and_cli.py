"""``sparring check``: console, CSV, JUnit, JSON, verdicts stored in the run, exit codes."""

from __future__ import annotations

import csv
import json
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
from check_builders import record, write_rules
from typer.testing import CliRunner

from sparring import __version__
from sparring.check import CheckReport, junit_xml
from sparring.cli import app, main
from sparring.conversations import ConversationRecord, RunManifest, RunStore

cli = CliRunner()

RULES = {
    "price": """
        name: small_price
        when: size[0] == 'small'
        oracle: extract_float(price) >= 10
        yields: f"Wrong price {price}"
        """,
    "pairs": """
        name: same_size_same_price
        conversations: 2
        when: conv[0].size == conv[1].size
        then: conv[0].price == conv[1].price
        """,
    "ids": "name: unique_ids\nconversations: all\nthen: is_unique('order_id')\n",
}


def conversations() -> list[ConversationRecord]:
    def order(id: str, size: str, price: str, order_id: str) -> ConversationRecord:
        return record(
            id,
            variables={"size": [size]},
            outputs={"price": price, "order_id": order_id},
            turns=[("user", f"a {size} pizza"), ("assistant", f"That is {price}")],
        )

    return [order("a", "small", "8$", "1"), order("b", "small", "12$", "2"),
            order("c", "big", "20$", "3")]  # fmt: skip


def native_run(path: Path, records: list[ConversationRecord]) -> Path:
    manifest = RunManifest(run_id="r1", created_at=datetime.now(UTC), sparring_version=__version__,
                           planned=[r.id for r in records])  # fmt: skip
    store = RunStore.create(path, manifest)
    for item in records:
        store.write(item)
    return path


def test_check_a_native_run_writes_every_report_and_stores_verdicts(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", **RULES)
    run_dir = native_run(tmp_path / "run", conversations())
    out = tmp_path / "out"
    out.mkdir()
    result = cli.invoke(app, ["check", str(rules), "--run", str(run_dir),
                              "--csv", str(out / "r.csv"), "--junit", str(out / "r.xml"),
                              "--json", str(out / "r.json")])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "FAIL  small_price" in result.output and "message: Wrong price 8$" in result.output
    rows = {row["rule"]: row for row in csv.DictReader((out / "r.csv").open())}
    assert list(rows["small_price"].values()) == ["small_price", "3", "1", "1", "1", "50.00%", "0"]
    assert rows["same_size_same_price"]["checks"] == "6"
    assert rows["same_size_same_price"]["fail"] == "2"
    assert rows["unique_ids"]["pass"] == "1"
    assert rows["goal_not_completed"]["pass"] == "3"
    report = CheckReport.model_validate_json((out / "r.json").read_text())
    assert report.result("small_price").verdicts[0].message == "Wrong price 8$"
    stored = list((run_dir / "verdicts").glob("*.json"))
    assert len(stored) == 1 and stored[0].name == f"rules-{report.ruleset}.json"
    assert json.loads(stored[0].read_text())["conversations"] == ["a", "b", "c"]
    cases = {c.get("name"): c for c in ET.parse(out / "r.xml").getroot().iter("testcase")}
    assert set(cases) >= {"small_price", "same_size_same_price", "unique_ids"}
    assert len(cases) == len(report.results) + len(report.generic)  # one case per rule
    failure = cases["small_price"].find("failure")
    assert failure is not None and "1 failed" in (failure.get("message") or "")
    assert "conversations: " in (failure.text or "") and "Wrong price 8$" in (failure.text or "")


def test_check_a_sensei_folder_passes_and_stores_nothing(tmp_path: Path, shared_data: Path) -> None:
    folder = shared_data / "sensei-wild" / "output" / "kuki"
    rules = write_rules(tmp_path / "rules", ok="name: has_turns\nthen: len(interaction) > 0\n")
    counted = cli.invoke(app, ["check", str(rules), "--run", str(folder)])
    assert counted.exit_code == 1  # 7 conversations did not complete their goals
    assert "generic failures: goal_not_completed 7" in counted.output
    result = cli.invoke(app, ["check", str(rules), "--run", str(folder), "--no-generic"])
    assert result.exit_code == 0, result.output
    assert "PASS  has_turns" in result.output
    assert not (folder / "verdicts").exists()


def test_a_bad_rule_exits_2_naming_file_line_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = write_rules(tmp_path / "rules", bad="name: bad\nconversations: two\nthen: True\n")
    run_dir = native_run(tmp_path / "run", conversations())
    monkeypatch.setattr(sys, "argv", ["sparring", "check", str(rules), "--run", str(run_dir)])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    assert f"{rules / 'bad.yaml'}:2 [conversations]" in capsys.readouterr().err.replace("\n", "")


def test_no_conversations_is_a_user_error(tmp_path: Path) -> None:
    rules = write_rules(tmp_path / "rules", ok="name: ok\nthen: True\n")
    (tmp_path / "empty").mkdir()
    result = cli.invoke(app, ["check", str(rules), "--run", str(tmp_path / "empty")])
    assert result.exit_code != 0
    assert "no conversations found" in str(result.exception)


def test_junit_has_one_case_per_rule_and_conversation(tmp_path: Path) -> None:
    from sparring.check import check, load_rules

    report = check(load_rules([write_rules(tmp_path / "rules", **RULES)]), conversations())
    root = ET.fromstring(junit_xml(report, per_conversation=True))
    cases = root.findall("testsuite[@name='same_size_same_price']/testcase")
    assert [c.get("name") for c in cases] == ["a", "b", "c"]
    assert cases[2].find("skipped") is not None  # c has no partner of the same size
    assert root.get("tests") == str(sum(int(s.get("tests", "0")) for s in root))


def test_console_groups_unscored_verdicts_by_reason(tmp_path: Path) -> None:
    rules = write_rules(
        tmp_path / "rules", topics="name: on_topic\noracle: only_talks_about('pizza')\n"
    )
    run = native_run(tmp_path / "run", conversations())
    result = cli.invoke(app, ["check", str(rules), "--run", str(run), "--no-store"])
    out = " ".join(result.output.split())
    assert "3 unscored: only_talks_about needs a language model" in out
    assert out.count("unscored: only_talks_about") == 1
