"""Two small Rasa projects for the operator tests: a 3.x YAML one and a 1.x Markdown one."""

from __future__ import annotations

from pathlib import Path

RASA3 = {
    "domain.yml": """\
version: "3.1"

intents:
  - greet
  - ask_price
  - inform

responses:
  utter_greet:
    - text: "Hello! What would you like?"
      buttons:
        - title: "Large"
          payload: "/inform{\\"size\\":\\"large\\"}"
  utter_price:
    - text: "A {size} pizza costs {price} euros."
  utter_default:
    - text: "Sorry, I didn't get that."
""",
    "data/nlu.yml": """\
version: "3.1"

nlu:
  - intent: greet
    examples: |
      - hi
      - hello
      - hey there

  - intent: ask_price
    examples: |
      - how much is it
      - what's the price

  - regex: quantity
    examples: |
      - [0-9]+ cans?

  - synonym: large
    examples: |
      - big
""",
    "data/rules.yml": """\
version: "3.1"

rules:
  - rule: greet
    steps:
      - intent: greet
      - action: utter_greet

  # What the bot says when it does not understand.
  - rule: NLU fallback
    steps:
      - intent: nlu_fallback
      - action: utter_default
""",
    "data/stories.yml": """\
version: "3.1"

stories:
  - story: price
    steps:
      - intent: ask_price
      - action: utter_price
""",
    "config.yml": """\
pipeline:
  - name: WhitespaceTokenizer
  - name: FallbackClassifier
    threshold: 0.4

policies:
  - name: RulePolicy
""",
}
"""A Rasa 3.x project: domain with buttons and slot placeholders, NLU, rules, a story."""

RASA1 = {
    "domain.yml": """\
intents:
  - greet
  - book

templates:
  utter_greet:
  - text: "Hi {name}!"
  utter_ask_time:
  - text: "What time?"
""",
    "data/nlu.md": """\
## intent:greet
- hi
- hello
- hey

## synonym:large
- big

## regex:zipcode
- [0-9]{5}
""",
    "data/stories.md": """\
## greet
* greet
  - utter_greet

## book
* book{"date": "today"}
  - utter_ask_time
  - form{"name": "book_form"}
""",
    "config.yml": """\
policies:
  - name: MemoizationPolicy
  - name: FallbackPolicy
    fallback_action_name: action_default_fallback
""",
}
"""A Rasa 1.x project: Markdown NLU and stories, ``templates`` in the domain."""


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path → text) under ``root``; returns ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
