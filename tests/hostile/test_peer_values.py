"""Other tools' files with values of the wrong kind where sparring reads numbers or lists
(found by the fuzz sweep of ``benchmarks/bench_hostile_files.py --fuzz``): a DBDC turn
whose ``annotations`` is a number crashed ``load_dbdc`` (``TypeError``) — it is now a
located error naming the key, like a turn that is no mapping or has no ``speaker``; a
ChatChecker dialogue whose statistics hold text, a list, ``.inf`` or 10^400 where numbers
go, or a ``!!binary`` value in the persona beside it, is imported and stored (a value
that is no finite number counts none)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sparring.cli import main
from sparring.conversations import RunStore, import_chatchecker
from sparring.errors import UserInputError
from sparring.evaluate import load_dbdc

TURN = {"speaker": "S", "utterance": "Hello", "annotations": [{"breakdown": "O"}]}
DBDC = {
    "annotations as a number": ({"annotations": 7}, "turns.0.annotations"),
    "a turn that is a list": ([1, 2], "turns.0"),
    "no speaker": ({"speaker": None}, "turns.0.speaker"),
    "turns as a mapping": (None, "turns"),
}


@pytest.mark.parametrize("case", sorted(DBDC))
def test_a_dbdc_turn_of_the_wrong_shape_is_located(tmp_path: Path, case: str) -> None:
    change, key = DBDC[case]
    turn: Any = change if isinstance(change, list) else {**TURN, **(change or {})}
    data = {"dialogue-id": "d1", "turns": [turn] if change is not None else {"0": TURN}}
    path = tmp_path / "d1.log.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserInputError) as caught:
        load_dbdc(path)
    assert any(p.file == str(path) and p.key.startswith(key) for p in caught.value.problems)


DIALOGUE = """\
dialogue_id: persona_01_dialogue_1
user_name: persona_01
chat_history:
-   turn_id: 1
    role: dialogue_system
    content: Hi! What goal would you like to work on?
-   turn_id: 2
    role: user
    content: Running.
finish_reason: user_ended_chat
chat_statistics:
    start_time: '2025-05-19 11:01:57'
    duration: {duration}
simulation_cost_statistics:
    total_prompt_tokens: {tokens}
    cost: {cost}
"""
PERSONA_INFO = "run_id: r1\npersona:\n    persona_id: p1\n    task: !!binary AP8=\n"
CHATCHECKER = {
    "text where numbers go": {"duration": "long", "tokens": "many", "cost": "free"},
    "lists where numbers go": {"duration": "[1, 2]", "tokens": "[3]", "cost": "{a: 1}"},
    "infinities": {"duration": ".inf", "tokens": "-.inf", "cost": ".nan"},
    "numbers past the float range": {"duration": "1" + "0" * 400, "tokens": "9" * 400,
                                     "cost": "7" * 400},
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CHATCHECKER))
def test_chatchecker_statistics_of_the_wrong_kind_are_imported(
    tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs" / "persona_01"
    folder.mkdir(parents=True)
    path = folder / "dialogue_1.yaml"
    path.write_text(DIALOGUE.format(**CHATCHECKER[case]), encoding="utf-8")
    (folder / "persona_info.yaml").write_text(PERSONA_INFO, encoding="utf-8")
    record = import_chatchecker(path)
    assert record.duration is None or record.duration < 1e300
    assert all(u.cost < 1e300 for u in record.usage.values())
    out = tmp_path / "run"
    argv = ["sparring", "import-chatchecker", str(folder), "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 0
    assert len(list(RunStore.open(out, clean=False).iter_records())) == 1
