"""The Rasa project reader's bounds (issue 36, leftover b): every YAML file of a project
holds at most ``MAX_LINED_NODES`` values (refused at its line before ruamel.yaml composes
it: 200,000 values of stories took 28 s of CPU and 329 MB), while an NLU file larger than
the 2 MiB of a profile still reads, its examples being one block scalar per intent."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring._yaml import MAX_LINED_BYTES, MAX_LINED_NODES
from sparring.errors import ConfigError
from sparring.rasa_project import intent_examples, load_project

DOMAIN = "version: '3.1'\nintents: [greet]\nresponses:\n  utter_greet:\n  - text: hi\n"


def _project(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "domain.yml").write_text(DOMAIN, encoding="utf-8")
    (tmp_path / "data" / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_stories_file_of_too_many_values_is_refused_at_its_line(tmp_path: Path) -> None:
    story = "- story: s\n  steps:\n" + "  - intent: greet\n  - action: utter_greet\n" * 10
    stories = "version: '3.1'\nstories:\n" + story * (MAX_LINED_NODES // 40)
    project = _project(tmp_path, "stories.yml", stories)
    with pytest.raises(ConfigError) as caught:
        load_project(project)
    problem = caught.value.problems[0]
    assert problem.file == "data/stories.yml" and problem.line is not None
    assert f"more than {MAX_LINED_NODES:,} values" in problem.message


def test_an_nlu_file_larger_than_a_profile_may_be_is_read(tmp_path: Path) -> None:
    examples = "".join(f"    - I would like option {n} please\n" for n in range(100))
    intents = "".join(f"- intent: ask_{n}\n  examples: |\n{examples}" for n in range(1000))
    nlu = "version: '3.1'\nnlu:\n" + intents
    assert len(nlu.encode()) > MAX_LINED_BYTES
    project = load_project(_project(tmp_path, "nlu.yml", nlu))
    assert len(intent_examples(project)["ask_999"]) == 100
