"""A Rasa project's entity synonyms reach the profile: read from Rasa 3.x YAML
(``synonym:`` blocks, ``[words]{"entity": …, "value": …}``), Rasa 1.x Markdown
(``## synonym:``, ``[words](entity:value)``) and Rasa 1.x JSON (``entity_synonyms``,
annotated ``common_examples``), in two domains (a veterinary clinic, a car rental); a
generated profile carries those of its values as ``chatbot.synonyms``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.errors import ConfigError
from sparring.explore import read_definition
from sparring.explore._project import synonyms_for

DOMAIN = "intents: [book]\nentities: [service]\nslots:\n  service: {type: text}\n"
VET_YAML = """version: "3.1"
nlu:
- intent: book
  examples: |
    - I need a [check-up]{"entity": "service", "value": "Physical examination"}
    - book a [vaccination](service)
- synonym: Physical examination
  examples: |
    - check
    - Medical examination
"""
CAR_MD = """## intent:rent
- I want a [4x4](car:SUV) tomorrow
- a [small car]{"entity": "car", "value": "economy"} please

## synonym:SUV
- off-roader
"""
CAR_JSON = {
    "rasa_nlu_data": {
        "common_examples": [
            {"text": "rent me a jeep", "intent": "rent",
             "entities": [{"start": 10, "end": 14, "value": "SUV", "entity": "car"}]},
            {"text": "a van", "intent": "rent",
             "entities": [{"start": 2, "end": 5, "value": "van", "entity": "car"}]},
        ],
        "entity_synonyms": [{"value": "economy", "synonyms": ["budget car"]}],
    }
}  # fmt: skip


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "domain.yml").write_text(DOMAIN, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / "data").mkdir(exist_ok=True)
        (tmp_path / "data" / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_rasa_3_yaml_synonyms_blocks_and_annotations(tmp_path: Path) -> None:
    definition = read_definition(_project(tmp_path, {"nlu.yml": VET_YAML}))
    assert definition.synonyms == {
        "Physical examination": ["check-up", "check", "Medical examination"]
    }


def test_rasa_1_markdown_and_json_synonyms(tmp_path: Path) -> None:
    files = {"nlu.md": CAR_MD, "nlu.json": json.dumps(CAR_JSON)}
    definition = read_definition(_project(tmp_path, files))
    assert definition.synonyms == {
        "SUV": ["4x4", "off-roader", "jeep"],
        "economy": ["small car", "budget car"],
    }  # "van" typed as its own value is no synonym


def test_a_broken_json_training_file_is_a_located_error(tmp_path: Path) -> None:
    project = _project(tmp_path, {"nlu.json": '{"rasa_nlu_data": {\n  "common_examples": [,]}}'})
    with pytest.raises(ConfigError) as raised:
        read_definition(project)
    problem = raised.value.problems[0]
    assert (problem.file, problem.line) == ("data/nlu.json", 2)


def test_a_profile_carries_the_synonyms_of_its_own_values() -> None:
    known = {"SUV": ["4x4", "off-roader"], "economy": ["small car"], "van": ["minibus"]}
    said = ["rent a car", "4x4", "Small Cars"]
    assert synonyms_for(known, said) == {"SUV": ["4x4", "off-roader"], "economy": ["small car"]}
