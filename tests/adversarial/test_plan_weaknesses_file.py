"""The weaknesses file: hand-written files load with the same loader as planned ones, a
planned file survives the round trip, and bad files name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.adversarial import (
    PlanJob,
    PlanSettings,
    load_weaknesses,
    write_weaknesses,
)
from sparring.errors import ConfigError
from sparring.runner import start

FIXTURES = Path(__file__).parent / "plan_fixtures"
ROOT = Path(__file__).resolve().parents[2]


def test_a_hand_written_file_loads() -> None:
    file = load_weaknesses(FIXTURES / "hand-written.yaml")
    [weakness] = file.weaknesses
    assert weakness.id == "custom-pizza-toppings" and weakness.sources == ["hand-written"]
    assert [e.difficulty.value for e in weakness.examples] == ["easy", "hard"]


def test_an_unknown_key_names_file_line_and_key() -> None:
    path = FIXTURES / "unknown-key.yaml"
    with pytest.raises(ConfigError) as caught:
        load_weaknesses(path)
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.key) == (str(path), 7, "weaknesses[0].severity")
    assert problem.message == "unknown key"
    assert f"{path}:7 [weaknesses[0].severity]: unknown key" in str(caught.value)


def test_a_planned_file_edited_by_hand_still_loads(tmp_path: Path) -> None:
    out = tmp_path / "weaknesses.yaml"
    source = ROOT / "examples" / "adversarial"
    start(PlanJob(), PlanSettings(chatbot=source / "chatbot.yaml", source=source, out=out))
    planned = load_weaknesses(out)
    [weakness] = planned.weaknesses
    assert weakness.id == "unguarded-tool-call-bookingagent-respond-book-table"
    assert "booking_agent.py:" in weakness.description
    assert weakness.examples[0].test.startswith("Ask for what `book_table` does (Books a table")
    text = out.read_text(encoding="utf-8")
    out.write_text(text.replace("- static-scan", "- static-scan\n  - hand-written"), "utf-8")
    assert load_weaknesses(out).weaknesses[0].sources == ["static-scan", "hand-written"]
    again = tmp_path / "again.yaml"
    write_weaknesses(load_weaknesses(out), again)
    assert load_weaknesses(again) == load_weaknesses(out)


def test_a_duplicate_id_is_an_error(tmp_path: Path) -> None:
    text = (FIXTURES / "hand-written.yaml").read_text(encoding="utf-8")
    head, _, item = text.partition("weaknesses:\n")
    path = tmp_path / "dup.yaml"
    path.write_text(head + "weaknesses:\n" + item + item, encoding="utf-8")
    with pytest.raises(ConfigError, match="'custom-pizza-toppings' appears twice"):
        load_weaknesses(path)
