"""The Rasa mutation operators on a Rasa 3.x YAML project (``fixtures_rasa.RASA3``):
every operator's locations, and the exact unified diff and description of its mutants.

Blank context lines of a diff are written without their trailing space (``_diff``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures_rasa import RASA3, write_project

from sparring.mutation import OPERATORS, unified_diff
from sparring.mutation._operators import rasa  # noqa: F401  (registers the operators)

LOCATIONS = {
    "rasa.change_regex": [
        ("data/nlu.yml", "regex:quantity/pattern 1/offset 0", 17),
        ("data/nlu.yml", "regex:quantity/pattern 1/offset 5", 17),
        ("data/nlu.yml", "regex:quantity/pattern 1/offset 11", 17),
    ],
    "rasa.delete_story_action": [
        ("data/rules.yml", "rule:greet/step 2", 7),
        ("data/rules.yml", "rule:NLU fallback/step 2", 13),
        ("data/stories.yml", "story:price/step 2", 7),
    ],
    "rasa.delete_step": [
        ("data/rules.yml", "rule:greet/step 1", 6),
        ("data/rules.yml", "rule:greet/step 2", 7),
        ("data/rules.yml", "rule:NLU fallback/step 1", 12),
        ("data/rules.yml", "rule:NLU fallback/step 2", 13),
        ("data/stories.yml", "story:price/step 1", 6),
        ("data/stories.yml", "story:price/step 2", 7),
    ],
    "rasa.delete_fallback": [
        ("data/rules.yml", "rule:NLU fallback", 10),
        ("config.yml", "pipeline:FallbackClassifier", 3),
    ],
    "rasa.delete_intent": [
        ("domain.yml", "intent:greet", 4),
        ("domain.yml", "intent:ask_price", 5),
        ("domain.yml", "intent:inform", 6),
    ],
    "rasa.delete_response_parameter": [
        ("domain.yml", "response:utter_greet[1]/button 1/size", 13),
        ("domain.yml", "response:utter_price[1]/{size}", 15),
        ("domain.yml", "response:utter_price[1]/{price}", 15),
    ],
    "rasa.delete_synonyms": [
        ("data/nlu.yml", "synonym:large", 19),
    ],
    "rasa.keep_two_examples": [
        ("data/nlu.yml", "intent:greet", 4),
    ],
    "rasa.swap_responses": [
        ("domain.yml", "response:utter_greet<>utter_price", 9),
        ("domain.yml", "response:utter_price<>utter_default", 14),
    ],
}

MUTANTS = [
    (
        "rasa.change_regex",
        "regex:quantity/pattern 1/offset 5",
        "Regex `quantity`: quantifier + removed (exactly once) at offset 5"
        " (`[0-9]+ cans?` → `[0-9] cans?`).",
        """\
--- a/data/nlu.yml
+++ b/data/nlu.yml
@@ -14,7 +14,7 @@

   - regex: quantity
     examples: |
-      - [0-9]+ cans?
+      - [0-9] cans?

   - synonym: large
     examples: |
""",
    ),
    (
        "rasa.delete_story_action",
        "rule:greet/step 2",
        "Deleted action `utter_greet` (step 2) of rule `greet`.",
        """\
--- a/data/rules.yml
+++ b/data/rules.yml
@@ -4,7 +4,6 @@
   - rule: greet
     steps:
       - intent: greet
-      - action: utter_greet

   # What the bot says when it does not understand.
   - rule: NLU fallback
""",
    ),
    (
        "rasa.delete_step",
        "rule:NLU fallback/step 1",
        "Deleted intent `nlu_fallback` (step 1) of rule `NLU fallback`.",
        """\
--- a/data/rules.yml
+++ b/data/rules.yml
@@ -9,5 +9,4 @@
   # What the bot says when it does not understand.
   - rule: NLU fallback
     steps:
-      - intent: nlu_fallback
       - action: utter_default
""",
    ),
    (
        "rasa.delete_fallback",
        "rule:NLU fallback",
        "Deleted the fallback rule `NLU fallback`.",
        """\
--- a/data/rules.yml
+++ b/data/rules.yml
@@ -5,9 +5,3 @@
     steps:
       - intent: greet
       - action: utter_greet
-
-  # What the bot says when it does not understand.
-  - rule: NLU fallback
-    steps:
-      - intent: nlu_fallback
-      - action: utter_default
""",
    ),
    (
        "rasa.delete_fallback",
        "pipeline:FallbackClassifier",
        "Deleted `FallbackClassifier` from the pipeline of config.yml.",
        """\
--- a/config.yml
+++ b/config.yml
@@ -1,7 +1,5 @@
 pipeline:
   - name: WhitespaceTokenizer
-  - name: FallbackClassifier
-    threshold: 0.4

 policies:
   - name: RulePolicy
""",
    ),
    (
        "rasa.delete_intent",
        "intent:greet",
        "Deleted intent `greet` and its training data (3 examples).",
        """\
--- a/data/nlu.yml
+++ b/data/nlu.yml
@@ -1,12 +1,6 @@
 version: "3.1"

 nlu:
-  - intent: greet
-    examples: |
-      - hi
-      - hello
-      - hey there
-
   - intent: ask_price
     examples: |
       - how much is it
--- a/domain.yml
+++ b/domain.yml
@@ -1,7 +1,6 @@
 version: "3.1"

 intents:
-  - greet
   - ask_price
   - inform

""",
    ),
    (
        "rasa.delete_response_parameter",
        "response:utter_greet[1]/button 1/size",
        "Deleted entity `size` from the payload of button 1 of response `utter_greet`:"
        ' /inform{"size":"large"} → /inform.',
        """\
--- a/domain.yml
+++ b/domain.yml
@@ -10,7 +10,7 @@
     - text: "Hello! What would you like?"
       buttons:
         - title: "Large"
-          payload: "/inform{\\"size\\":\\"large\\"}"
+          payload: "/inform"
   utter_price:
     - text: "A {size} pizza costs {price} euros."
   utter_default:
""",
    ),
    (
        "rasa.delete_response_parameter",
        "response:utter_price[1]/{size}",
        "Deleted the parameter {size} from response `utter_price`.",
        """\
--- a/domain.yml
+++ b/domain.yml
@@ -12,6 +12,6 @@
         - title: "Large"
           payload: "/inform{\\"size\\":\\"large\\"}"
   utter_price:
-    - text: "A {size} pizza costs {price} euros."
+    - text: "A pizza costs {price} euros."
   utter_default:
     - text: "Sorry, I didn't get that."
""",
    ),
    (
        "rasa.delete_synonyms",
        "synonym:large",
        "Deleted the synonyms of `large` (1 value).",
        """\
--- a/data/nlu.yml
+++ b/data/nlu.yml
@@ -15,7 +15,3 @@
   - regex: quantity
     examples: |
       - [0-9]+ cans?
-
-  - synonym: large
-    examples: |
-      - big
""",
    ),
    (
        "rasa.keep_two_examples",
        "intent:greet",
        "Kept the first two of the 3 training examples of intent `greet`.",
        """\
--- a/data/nlu.yml
+++ b/data/nlu.yml
@@ -5,7 +5,6 @@
     examples: |
       - hi
       - hello
-      - hey there

   - intent: ask_price
     examples: |
""",
    ),
    (
        "rasa.swap_responses",
        "response:utter_greet<>utter_price",
        "Swapped responses `utter_greet` and `utter_price`.",
        """\
--- a/domain.yml
+++ b/domain.yml
@@ -7,11 +7,11 @@

 responses:
   utter_greet:
+    - text: "A {size} pizza costs {price} euros."
+  utter_price:
     - text: "Hello! What would you like?"
       buttons:
         - title: "Large"
           payload: "/inform{\\"size\\":\\"large\\"}"
-  utter_price:
-    - text: "A {size} pizza costs {price} euros."
   utter_default:
     - text: "Sorry, I didn't get that."
""",
    ),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path, RASA3)


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
