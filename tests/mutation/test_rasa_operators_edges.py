"""Edge cases of the Rasa operators: regex sites, payloads with several entities,
repeated story names, stale locations, one-step stories, a ``domain/`` folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_rasa import RASA3, write_project

from sparring.mutation import OPERATORS, Location, unified_diff
from sparring.mutation._operators import rasa  # noqa: F401  (registers the operators)
from sparring.mutation._operators.rasa_domain import payload_entities
from sparring.mutation._operators.rasa_model import delete_lines
from sparring.mutation._operators.rasa_regex import regex_sites


@pytest.mark.parametrize(
    ("pattern", "mutants"),
    [
        (r"\d{3,5}", [r"\d{3}"]),
        (r"[a-z0-9_]+", ["[a-z0-9]+", "[a-z0-9_]"]),
        (r"[^\]x]*?", [r"[^\]]*?", r"[^\]x]+?"]),
        ("[ab]", ["[a]"]),
        ("[a]", []),
        ("[0-1]", ["[0]"]),
        ("(?:ab)+c?", ["(?:ab)c?", "(?:ab)+c"]),
        (r"x{2}\b\s", []),
        ("a|b*", ["a|b+"]),
    ],
)
def test_regex_sites(pattern: str, mutants: list[str]) -> None:
    assert [site.apply(pattern) for site in regex_sites(pattern)] == mutants


def test_payload_entities() -> None:
    assert payload_entities('/inform{"a": "x", "b": 2}') == ("/inform", {"a": "x", "b": 2})
    assert payload_entities("/greet") is None
    assert payload_entities("/inform{not json}") is None
    assert payload_entities("https://example.com") is None


def test_a_payload_keeps_its_other_entities(tmp_path: Path) -> None:
    domain = """\
responses:
  utter_pick:
    - text: "Pick one"
      buttons:
        - title: "Big hawaiian"
          payload: '/inform{"size": "large", "pizza": "hawaiian"}'
"""
    root = write_project(tmp_path, {"domain.yml": domain})
    operator = OPERATORS.get("rasa.delete_response_parameter")
    keys = [loc.key for loc in operator.locations(root)]
    assert keys == [
        "response:utter_pick[1]/button 1/size",
        "response:utter_pick[1]/button 1/pizza",
    ]
    files, _ = operator.apply(root, Location(file="domain.yml", key=keys[0]))
    assert files["domain.yml"].endswith("""payload: '/inform{"pizza": "hawaiian"}'\n""")


def test_repeated_story_names_are_numbered_and_one_step_stories_kept(tmp_path: Path) -> None:
    stories = """\
stories:
  - story: same
    steps:
      - intent: greet
      - action: utter_greet
  - story: same
    steps:
      - intent: bye
      - action: utter_bye
  - story: lonely
    steps:
      - action: utter_hello
"""
    root = write_project(tmp_path, {"data/stories.yml": stories})
    operator = OPERATORS.get("rasa.delete_story_action")
    assert [loc.key for loc in operator.locations(root)] == [
        "story:same/step 2",
        "story:same (2)/step 2",
    ]
    files, said = operator.apply(
        root, Location(file="data/stories.yml", key="story:same (2)/step 2")
    )
    assert said == "Deleted action `utter_bye` (step 2) of story `same`."
    assert "utter_bye" not in files["data/stories.yml"]


def test_a_stale_location_raises_value_error(tmp_path: Path) -> None:
    root = write_project(tmp_path, RASA3)
    operator = OPERATORS.get("rasa.delete_synonyms")
    (location,) = operator.locations(root)
    nlu = root / "data" / "nlu.yml"
    nlu.write_text(nlu.read_text(encoding="utf-8").split("  - synonym:")[0], encoding="utf-8")
    with pytest.raises(ValueError, match="synonym:large"):
        operator.apply(root, location)
    with pytest.raises(ValueError):
        OPERATORS.get("rasa.delete_intent").apply(root, Location(file="domain.yml", key="intent:x"))


def test_a_domain_folder(tmp_path: Path) -> None:
    files = {
        "domain/a.yml": "intents:\n  - greet\n",
        "domain/b.yml": 'responses:\n  utter_a:\n    - text: "a"\n  utter_b:\n    - text: "b"\n',
    }
    root = write_project(tmp_path, files)
    intents = OPERATORS.get("rasa.delete_intent").locations(root)
    assert [(loc.file, loc.key) for loc in intents] == [("domain/a.yml", "intent:greet")]
    swap = OPERATORS.get("rasa.swap_responses")
    (location,) = swap.locations(root)
    changed, _ = swap.apply(root, location)
    assert changed == {
        "domain/b.yml": 'responses:\n  utter_a:\n    - text: "b"\n  utter_b:\n    - text: "a"\n'
    }
    assert unified_diff(root, changed).startswith("--- a/domain/b.yml\n+++ b/domain/b.yml\n")


def test_delete_lines_keeps_one_blank_separator() -> None:
    text = "items:\n  - a\n\n  # about b\n  - b\n\n  - c\nnext: 1\n"
    assert delete_lines(text, 4, 5) == "items:\n  - a\n\n  - c\nnext: 1\n"
    assert delete_lines(text, 6, 7) == "items:\n  - a\n\n  # about b\n  - b\nnext: 1\n"
    assert delete_lines(text, 1, 2) == "items:\n  # about b\n  - b\n\n  - c\nnext: 1\n"


def test_markdown_rules_and_or_intents(tmp_path: Path) -> None:
    stories = "## s\n* greet OR hello\n  - utter_greet\n\n>> r\n* bye\n  - utter_bye\n"
    root = write_project(tmp_path, {"data/core.md": stories})
    operator = OPERATORS.get("rasa.delete_step")
    assert [loc.key for loc in operator.locations(root)] == [
        "story:s/step 1",
        "story:s/step 2",
        "rule:r/step 1",
        "rule:r/step 2",
    ]
    _, said = operator.apply(root, Location(file="data/core.md", key="story:s/step 1"))
    assert said == "Deleted intent `greet OR hello` (step 1) of story `s`."
