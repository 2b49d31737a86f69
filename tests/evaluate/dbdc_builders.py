"""Tiny hand-made DBDC dialogues for the DBDC and bench tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def votes(*labels: str) -> list[dict[str, str]]:
    """DBDC annotations with these ``breakdown`` labels, in order."""
    return [{"breakdown": b, "annotator-id": f"a{n}", "comment": ""} for n, b in enumerate(labels)]


def system(text: str, *labels: str) -> dict[str, Any]:
    return {"speaker": "S", "utterance": text, "annotations": votes(*labels)}


def user(text: str) -> dict[str, Any]:
    return {"speaker": "U", "utterance": text, "annotations": []}


DIALOGUE_A = {
    "dialogue-id": "A",
    "turns": [
        system("Hello!"),
        user("Hi, do you like films?"),
        system("Yes, I love films.", "O", "O", "O", "T", "X"),
        user("Which one?"),
        system("The weather is cold.", "O", "T", "X", "X", "X"),
    ],
}
DIALOGUE_B = {
    "dialogue-id": "B",
    "turns": [
        user("Where do you live?"),
        system("Bananas are yellow.", "O", "T", "T", "T", "X"),
        user("What?"),
        system("I like trains.", "T", "O", "O", "T", "X"),
        user("Ok."),
        system("Good.", "O", "O", "O", "O", "O"),
    ],
}


def write_dbdc(folder: Path) -> Path:
    """Write dialogues A and B as ``folder/tiny/<id>.log.json``; returns ``folder``."""
    (folder / "tiny").mkdir(parents=True, exist_ok=True)
    for dialogue in (DIALOGUE_A, DIALOGUE_B):
        path = folder / "tiny" / f"{dialogue['dialogue-id']}.log.json"
        path.write_text(json.dumps(dialogue), encoding="utf-8")
    return folder
