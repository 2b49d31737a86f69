"""The Rasa mutation operators on a Rasa 1.x Markdown project (``fixtures_rasa.RASA1``):
every operator's locations, and the exact unified diff and description of its mutants.

Blank context lines of a diff are written without their trailing space (``_diff``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_rasa import RASA1, write_project

from sparring.mutation import OPERATORS, unified_diff
from sparring.mutation._operators import rasa  # noqa: F401  (registers the operators)

LOCATIONS = {
    "rasa.change_regex": [
        ("data/nlu.md", "regex:zipcode/pattern 1/offset 0", 10),
    ],
    "rasa.delete_story_action": [
        ("data/stories.md", "story:greet/step 2", 3),
        ("data/stories.md", "story:book/step 2", 7),
    ],
    "rasa.delete_step": [
        ("data/stories.md", "story:greet/step 1", 2),
        ("data/stories.md", "story:greet/step 2", 3),
        ("data/stories.md", "story:book/step 1", 6),
        ("data/stories.md", "story:book/step 2", 7),
    ],
    "rasa.delete_fallback": [
        ("config.yml", "policies:FallbackPolicy", 3),
    ],
    "rasa.delete_intent": [
        ("domain.yml", "intent:greet", 2),
        ("domain.yml", "intent:book", 3),
    ],
    "rasa.delete_response_parameter": [
        ("domain.yml", "response:utter_greet[1]/{name}", 7),
    ],
    "rasa.delete_synonyms": [
        ("data/nlu.md", "synonym:large", 6),
    ],
    "rasa.keep_two_examples": [
        ("data/nlu.md", "intent:greet", 1),
    ],
    "rasa.swap_responses": [
        ("domain.yml", "response:utter_greet<>utter_ask_time", 6),
    ],
}

MUTANTS = [
    (
        "rasa.change_regex",
        "regex:zipcode/pattern 1/offset 0",
        "Regex `zipcode`: class [0-9] narrowed to [0-8] at offset 0 (`[0-9]{5}` → `[0-8]{5}`).",
        """\
--- a/data/nlu.md
+++ b/data/nlu.md
@@ -7,4 +7,4 @@
 - big

 ## regex:zipcode
-- [0-9]{5}
+- [0-8]{5}
""",
    ),
    (
        "rasa.delete_story_action",
        "story:book/step 2",
        "Deleted action `utter_ask_time` (step 2) of story `book`.",
        """\
--- a/data/stories.md
+++ b/data/stories.md
@@ -4,5 +4,4 @@

 ## book
 * book{"date": "today"}
-  - utter_ask_time
   - form{"name": "book_form"}
""",
    ),
    (
        "rasa.delete_step",
        "story:greet/step 1",
        "Deleted intent `greet` (step 1) of story `greet`.",
        """\
--- a/data/stories.md
+++ b/data/stories.md
@@ -1,5 +1,4 @@
 ## greet
-* greet
   - utter_greet

 ## book
""",
    ),
    (
        "rasa.delete_fallback",
        "policies:FallbackPolicy",
        "Deleted `FallbackPolicy` from the policies of config.yml.",
        """\
--- a/config.yml
+++ b/config.yml
@@ -1,4 +1,2 @@
 policies:
   - name: MemoizationPolicy
-  - name: FallbackPolicy
-    fallback_action_name: action_default_fallback
""",
    ),
    (
        "rasa.delete_intent",
        "intent:greet",
        "Deleted intent `greet` and its training data (3 examples).",
        """\
--- a/data/nlu.md
+++ b/data/nlu.md
@@ -1,8 +1,3 @@
-## intent:greet
-- hi
-- hello
-- hey
-
 ## synonym:large
 - big

--- a/domain.yml
+++ b/domain.yml
@@ -1,5 +1,4 @@
 intents:
-  - greet
   - book

 templates:
""",
    ),
    (
        "rasa.delete_response_parameter",
        "response:utter_greet[1]/{name}",
        "Deleted the parameter {name} from response `utter_greet`.",
        """\
--- a/domain.yml
+++ b/domain.yml
@@ -4,6 +4,6 @@

 templates:
   utter_greet:
-  - text: "Hi {name}!"
+  - text: "Hi!"
   utter_ask_time:
   - text: "What time?"
""",
    ),
    (
        "rasa.delete_synonyms",
        "synonym:large",
        "Deleted the synonyms of `large` (1 value).",
        """\
--- a/data/nlu.md
+++ b/data/nlu.md
@@ -3,8 +3,5 @@
 - hello
 - hey

-## synonym:large
-- big
-
 ## regex:zipcode
 - [0-9]{5}
""",
    ),
    (
        "rasa.keep_two_examples",
        "intent:greet",
        "Kept the first two of the 3 training examples of intent `greet`.",
        """\
--- a/data/nlu.md
+++ b/data/nlu.md
@@ -1,7 +1,6 @@
 ## intent:greet
 - hi
 - hello
-- hey

 ## synonym:large
 - big
""",
    ),
    (
        "rasa.swap_responses",
        "response:utter_greet<>utter_ask_time",
        "Swapped responses `utter_greet` and `utter_ask_time`.",
        """\
--- a/domain.yml
+++ b/domain.yml
@@ -4,6 +4,6 @@

 templates:
   utter_greet:
+  - text: "What time?"
+  utter_ask_time:
   - text: "Hi {name}!"
-  utter_ask_time:
-  - text: "What time?"
""",
    ),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path, RASA1)


def _diff(diff: str) -> str:
    return "\n".join(line.rstrip(" ") for line in diff.split("\n"))


@pytest.mark.parametrize("operator", sorted(LOCATIONS))
def test_locations(project: Path, operator: str) -> None:
    found = OPERATORS.get(operator).locations(project)
    assert [(loc.file, loc.key, loc.line) for loc in found] == LOCATIONS[operator]


@pytest.mark.parametrize(("operator", "key", "description", "diff"), MUTANTS)
def test_mutant_diff(project: Path, operator: str, key: str, description: str, diff: str) -> None:
    op = OPERATORS.get(operator)
    location = next(loc for loc in op.locations(project) if loc.key == key)
    files, said = op.apply(project, location)
    assert said == description
    assert _diff(unified_diff(project, files)) == diff
