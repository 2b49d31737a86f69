"""Lone UTF-16 surrogates in a JSON file (found by the fuzz sweep of
``benchmarks/bench_hostile_files.py --fuzz``): ``"\\ud800"`` is a valid JSON escape and
``json.loads`` lets their UTF-8 bytes (``ed a0 80``) through too; a record holding one
made ``sparring report`` exit 70 (``UnicodeEncodeError`` writing the page). Every JSON
read from outside has them replaced with U+FFFD, as a chatbot's reply already had."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sparring._json import loads_bounded
from sparring.cli import main
from sparring.conversations import ConversationRecord, RunManifest, RunStore, Turn

FORMS = {
    "escaped": b'{"a\\udfff": ["x\\ud800y"]}',
    "UTF-8 bytes": b'{"a\xed\xbf\xbf": ["x\xed\xa0\x80y"]}',
    "UTF-16": '{"a\\udfff": ["x\\ud800y"]}'.encode("utf-16"),
    "text": '{"a\udfff": ["x\ud800y"]}',
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_lone_surrogates_are_replaced(form: str) -> None:
    assert loads_bounded(FORMS[form]) == {"a\ufffd": ["x\ufffdy"]}


def test_plain_json_is_read_as_it_is() -> None:
    assert loads_bounded('{"é": ["\\ud83d\\ude00", "ok"]}') == {"é": ["\U0001f600", "ok"]}


def test_the_report_of_a_record_holding_one_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = RunManifest(
        run_id="r", created_at=datetime.now(UTC), sparring_version="0.1.0", planned=["c"]
    )
    store = RunStore.create(tmp_path / "run", manifest)
    store.write(
        ConversationRecord(id="c", profile="p", turns=[Turn(role="assistant", text="hello")])
    )
    record = next(store.conversations_dir.glob("*.json"))
    record.write_bytes(record.read_bytes().replace(b"hello", b"hel\xed\xa0\x80lo"))
    monkeypatch.setattr(sys, "argv", ["sparring", "report", str(store.path)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 0
    assert "hel\ufffdlo" in (store.path / "report" / "index.html").read_text(encoding="utf-8")
