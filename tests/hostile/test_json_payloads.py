"""Huge and hostile JSON (issue 36, round 2): a conversation file, an imported DBDC
dialogue or a chatbot's reply body that ``json.loads`` turned into a crash (exit 70) or a
hang — nesting past the recursion limit, an integer of 5,000 digits, nesting shallow enough
to parse but too deep for every recursive walk after it, a FIFO or a ``/dev/zero`` link —
is a located error naming the file (exit 2), or the chatbot's recorded failure."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sparring.conversations import ConversationRecord, Turn, load_conversations
from sparring.errors import UserInputError
from sparring.evaluate import load_dbdc, read_annotation_labels
from sparring.metamorphic import load_seeds

DEEP = "[" * 100_000 + "]" * 100_000
RECORD = '{"id": "c", "turns": [], "x": %s}'
HOSTILE: dict[str, Callable[[Path], None]] = {
    "100,000 deep": lambda path: path.write_text(DEEP),
    "150 deep": lambda path: path.write_text(RECORD % ("[" * 150 + "]" * 150)),
    "5,000 digits": lambda path: path.write_text(RECORD % ("7" * 5000)),
    "/dev/zero": lambda path: path.symlink_to("/dev/zero"),
    "FIFO": lambda path: os.mkfifo(path),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_conversation_file_is_a_located_error(tmp_path: Path, case: str) -> None:
    folder = tmp_path / "imported"
    folder.mkdir()
    good = ConversationRecord(id="good", profile="p", turns=[Turn(role="user", text="hi")])
    (folder / "a-good.json").write_text(good.model_dump_json())
    HOSTILE[case](folder / "b-hostile.json")
    for path in (folder, folder / "b-hostile.json"):
        with pytest.raises(UserInputError) as caught:
            list(load_conversations(path))
        assert any(p.file == str(folder / "b-hostile.json") for p in caught.value.problems)
    problems: list[object] = []  # a folder read with problems collected goes on
    assert [r.id for r in load_conversations(folder, problems=problems)] == ["good"]
    assert len(problems) == 1


@pytest.mark.parametrize("case", ["100,000 deep", "5,000 digits", "/dev/zero", "FIFO"])
def test_a_hostile_dbdc_dialogue_is_a_located_error(tmp_path: Path, case: str) -> None:
    HOSTILE[case](tmp_path / "x.log.json")
    with pytest.raises(UserInputError) as caught:
        load_dbdc(tmp_path)
    assert [p.file for p in caught.value.problems] == [str(tmp_path / "x.log.json")]


def test_nesting_within_the_limit_still_loads(tmp_path: Path) -> None:
    record = ConversationRecord(id="c", profile="p", turns=[Turn(role="user", text="hi")])
    data = json.loads(record.model_dump_json())
    data["notes"] = [json.dumps([[[[["ok"]]]]])]
    (tmp_path / "c.json").write_text(json.dumps(data))
    assert [r.id for r in load_conversations(tmp_path / "c.json")] == ["c"]


@pytest.mark.parametrize("case", ["100,000 deep", "5,000 digits", "/dev/zero", "FIFO"])
def test_hostile_coqa_seeds_and_annotation_exports_are_located_errors(
    tmp_path: Path, case: str
) -> None:
    """``metamorphic --seeds file.json`` (CoQA) and an annotations export given to
    ``evaluate`` read JSON a user hands in: the same bounds."""
    path = tmp_path / "seeds.json"
    HOSTILE[case](path)
    for read in (load_seeds, read_annotation_labels):
        with pytest.raises(UserInputError) as caught:
            read(path)
        assert [p.file for p in caught.value.problems] == [str(path)]
