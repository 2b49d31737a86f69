"""``--project`` (the bot's definition: Rasa 1.x Markdown, Rasa 3 YAML, Taskyto, AIML) and
``--docs`` (help pages) seed the exploration; coverage against the definition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.conversations import ConversationRecord, Turn
from sparring.errors import UserInputError
from sparring.explore import (
    ExploreJob,
    ExploreSettings,
    definition_coverage,
    read_definition,
    read_definition_coverage,
)
from sparring.explore._seeds import definition_seeds, docs_seeds
from sparring.pipeline import RunJob, RunSettings
from sparring.runner import start

HERE = Path(__file__).resolve().parent

DOMAIN = """
intents: [greet, book, hours]
slots:
  date: {type: unfeaturized}
  people: {type: unfeaturized}
responses:
  utter_greet:
  - text: "Welcome to Chez Test! What can I do for you?"
  utter_ask_date:
  - text: "For which day?"
  utter_ask_people:
  - text: "For how many people?"
  utter_booked:
  - text: "Booked a table for {people} on {date}."
  utter_hours:
  - text: "We open at 19:00 every evening."
forms: [booking_form]
"""
NLU_MD = """## intent:greet
- hello
- hi

## intent:book
- I want to book a table for [4](people) on [friday](date)
- book a table for [2](people)

## intent:hours
- when do you open?
"""
STORIES_MD = """## book
* book
  - booking_form
  - form{"name": "booking_form"}
  - form{"name": null}
  - utter_booked

## hours
* hours
  - utter_hours
"""


def rasa_project(folder: Path) -> Path:
    (folder / "data").mkdir(parents=True)
    (folder / "domain.yml").write_text(DOMAIN, encoding="utf-8")
    (folder / "data" / "nlu.md").write_text(NLU_MD, encoding="utf-8")
    (folder / "data" / "stories.md").write_text(STORIES_MD, encoding="utf-8")
    return folder


class Restaurant:
    """Understands only what the definition above says (no greeting, no listed options)."""

    def __init__(self) -> None:
        self.slots: dict[str, str] = {}
        self.booking = False

    def greeting(self) -> dict[str, object]:
        return {"messages": []}

    def respond(self, text: str) -> dict[str, object]:
        said = text.lower()
        if "open" in said:
            return _say("We open at 19:00 every evening.")
        if "book" in said:
            self.booking = True
        for day in ("friday", "saturday"):
            if day in said:
                self.slots["date"] = day
        for number in ("2", "4"):
            if f" {number}" in f" {said}":
                self.slots["people"] = number
        if self.booking:
            if "people" not in self.slots:
                return _say("For how many people?")
            if "date" not in self.slots:
                return _say("For which day?")
            return _say(f"Booked a table for {self.slots['people']} on {self.slots['date']}.")
        if said in ("hello", "hi"):
            return _say("Welcome to Chez Test! What can I do for you?")
        return _say("Pardon?")


def _say(text: str) -> dict[str, object]:
    return {"messages": [text]}


def _chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "restaurant.yaml"
    target = "test_project_and_docs:Restaurant"
    path.write_text(
        json.dumps({"connector": "python", "params": {"target": target, "path": str(HERE)}})
    )
    return path


def test_a_rasa_1_project_is_read_with_examples_slots_questions_and_flows(tmp_path: Path) -> None:
    found = read_definition(rasa_project(tmp_path / "bot"))
    assert found.kind == "rasa"
    assert found.intents["book"] == ["I want to book a table for 4 on friday", "book a table for 2"]
    assert found.slots == {"date": ["friday"], "people": ["4", "2"]}
    assert found.questions == {"date": "For which day?", "people": "For how many people?"}
    assert found.flows["book"] == ["intent:book", "action:booking_form", "action:utter_booked"]
    assert found.values_for("For which day?") == ["friday"]
    seeds = definition_seeds(found)
    assert ("book a table for 2", "the definition: intent book") in seeds  # a slot left to ask


def test_rasa_3_yaml_aiml_and_taskyto_definitions_are_read(tmp_path: Path) -> None:
    rasa3 = tmp_path / "rasa3"
    (rasa3 / "data").mkdir(parents=True)
    (rasa3 / "domain.yml").write_text(DOMAIN, encoding="utf-8")
    (rasa3 / "data" / "nlu.yml").write_text(
        "nlu:\n- intent: book\n  examples: |\n    - a table for [3](people)\n", encoding="utf-8"
    )
    (rasa3 / "data" / "rules.yml").write_text(
        "rules:\n- rule: hours\n  steps:\n  - intent: hours\n  - action: utter_hours\n",
        encoding="utf-8",
    )
    found = read_definition(rasa3)
    assert found.intents["book"] == ["a table for 3"] and found.slots["people"] == ["3"]
    assert found.flows["hours"] == ["intent:hours", "action:utter_hours"]
    aiml = tmp_path / "aiml"
    aiml.mkdir()
    (aiml / "bot.aiml").write_text(
        "<aiml><category><pattern>OPENING HOURS</pattern><template>From 9.</template></category>"
        "<category><pattern>HELLO *</pattern><template>Hi.</template></category></aiml>"
    )
    assert read_definition(aiml).intents == {"opening hours": ["opening hours"]}
    taskyto = tmp_path / "taskyto"
    taskyto.mkdir()
    (taskyto / "order.yaml").write_text(
        "name: order_drink\nkind: data_gathering\ndescription: Order a drink\n"
        "data:\n- drink:\n    type: enum\n    values: [cola, water]\n"
    )
    found = read_definition(taskyto)
    assert found.kind == "taskyto" and found.slots == {"drink": ["cola", "water"]}
    with pytest.raises(UserInputError, match="no Rasa"):
        read_definition(_empty(tmp_path))


def _empty(tmp_path: Path) -> Path:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "README.txt").write_text("nothing here")
    return folder


def test_help_pages_become_capability_probes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text(
        "# Help\n\nHow do I book a table?\nYou say so.\n\n- opening hours\n- gift cards\n"
        "A very long line that is a paragraph and not a probe at all, not even close to one.\n"
    )
    (docs / "help.html").write_text(
        "<html><script>var x = 1;</script><h2>Cancel a booking</h2><p>Tell us.</p></html>"
    )
    probes = [p for p, _ in docs_seeds(docs)]
    assert probes == [
        "Help",
        "How do I book a table?",
        "opening hours",
        "gift cards",
        "Cancel a booking",
    ]
    assert docs_seeds(docs)[-1][1] == "the docs: help.html"
    images = tmp_path / "images"
    images.mkdir()
    (images / "logo.png").write_bytes(b"\x89PNG")
    with pytest.raises(UserInputError, match="no help page"):
        docs_seeds(images)


def test_a_project_seeds_every_intent_and_fills_the_form_with_its_own_values(
    tmp_path: Path,
) -> None:
    project = rasa_project(tmp_path / "bot")
    settings = ExploreSettings(chatbot=_chatbot(tmp_path), graph_formats=[], project=project)
    model = start(ExploreJob(), settings, tmp_path / "run").result.model
    booked = [f for f in model.functionalities if f.description.startswith("Booked a table")]
    assert booked, [f.id for f in model.functionalities]
    evidence = {e for f in model.functionalities for e in f.evidence}
    assert "the definition: intent hours" in evidence
    # "hello" only gets the greeting again: no functionality, so not confirmed
    note = "the definition: 2 of 3 confirmed by the bot (not confirmed: intent greet)"
    assert note in model.notes
    # without the definition the same bot gives the crawler nothing to hold on to
    blind = start(
        ExploreJob(),
        ExploreSettings(chatbot=_chatbot(tmp_path), graph_formats=[]),
        tmp_path / "blind",
    ).result.model
    assert not [f for f in blind.functionalities if f.description.startswith("Booked a table")]


def _record(*turns: tuple[str, str]) -> ConversationRecord:
    return ConversationRecord(
        id="c/0",
        profile="p",
        simulator="agenda",
        turns=[Turn(role=role, text=text) for role, text in turns],  # type: ignore[arg-type]
    )


def test_coverage_against_the_definition_reads_the_bots_replies(tmp_path: Path) -> None:
    definition = read_definition(rasa_project(tmp_path / "bot"))
    record = _record(
        ("user", "book a table"),
        ("assistant", "For which day?"),
        ("user", "friday"),
        ("assistant", "Booked a table for 2 on Friday."),
    )
    measured = definition_coverage(definition, [record])
    assert measured.intents.reached == ["book"]
    assert measured.slots.reached == ["date"] and measured.slots.share == 0.5
    assert measured.responses.reached == ["utter_ask_date", "utter_booked"]
    assert measured.flows.reached == ["book"] and measured.flows.share == 0.5


def test_a_run_with_a_project_writes_its_coverage_against_the_definition(tmp_path: Path) -> None:
    project = rasa_project(tmp_path / "bot")
    settings = RunSettings(chatbot=_chatbot(tmp_path), project=project, concurrency=1)
    result = start(RunJob(), settings, tmp_path / "run").result
    saved = read_definition_coverage(tmp_path / "run")
    assert saved is not None and saved == result.definition
    assert "hours" in saved.intents.reached and "book" in saved.intents.reached
