"""Rasa 1.x JSON training data (``{"rasa_nlu_data": {...}}``), read for what it says about
entity values: the ``entity_synonyms`` (``{"value": …, "synonyms": [...]}``) and the
``common_examples`` whose entity's ``value`` differs from the words the user typed (an
inline synonym). Source: Rasa 1.10's ``rasa.nlu.training_data.formats.rasa.RasaReader``.

JSON files are read, never located line by line: nothing edits them (mutation operators
work on YAML and Markdown), so a parse keeps the values only.
"""

from __future__ import annotations

from typing import Any

from sparring._json import JsonLimitError, loads_bounded
from sparring.errors import ConfigError, Problem
from sparring.rasa_project._model import JsonTrainingFile


def read_training(path: str, text: str) -> JsonTrainingFile:
    """The synonyms (value → the words taken for it, in file order) of a JSON training
    file; ``ConfigError`` naming the file and line when it is not JSON. A JSON file that
    is no Rasa training data gives none."""
    try:
        data = loads_bounded(text)
    except JsonLimitError as exc:
        raise ConfigError(Problem(path, exc.line, "", f"not valid JSON: {exc}")) from exc
    nlu = data.get("rasa_nlu_data") if isinstance(data, dict) else None
    if not isinstance(nlu, dict):
        return JsonTrainingFile(path)
    found: dict[str, list[str]] = {}
    for entry in _dicts(nlu.get("entity_synonyms")):
        value, words = entry.get("value"), entry.get("synonyms")
        if isinstance(value, str) and isinstance(words, list):
            found.setdefault(value, []).extend(w for w in words if isinstance(w, str))
    for example in _dicts(nlu.get("common_examples")):
        said = example.get("text")
        for entity in _dicts(example.get("entities")):
            value, start, end = entity.get("value"), entity.get("start"), entity.get("end")
            if isinstance(said, str) and isinstance(value, str) and _span(start, end, said):
                typed = said[start:end]
                if typed.strip() and typed.strip().lower() != value.strip().lower():
                    found.setdefault(value, []).append(typed.strip())
    return JsonTrainingFile(path, tuple((v, tuple(w)) for v, w in found.items()))


def _dicts(node: Any) -> list[dict[str, Any]]:
    return [item for item in node if isinstance(item, dict)] if isinstance(node, list) else []


def _span(start: Any, end: Any, text: str) -> bool:
    ints = isinstance(start, int) and isinstance(end, int)
    return ints and 0 <= start < end <= len(text)
