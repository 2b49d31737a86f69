"""A booking question that asks for several things at once, answered in part or taken for
another request (issue 20, the third-party veterinary bot's pattern): the exploration keeps
only the answers the bot took, each path's profile the answers that led along it, and the
simulated user answers each slot the form asks for — so ``run`` passes a correct bot."""

from __future__ import annotations

import json
from pathlib import Path

from sparring.conversations import RunStore
from sparring.explore import (
    ExploreJob,
    ExploreSettings,
    definition_coverage,
    read_definition,
)
from sparring.explore._answers import free_answers
from sparring.explore._seeds import definition_seeds
from sparring.pipeline import RunJob, RunSettings
from sparring.runner import start
from sparring.simulate._matching import only_when_besides, when_part_mentioned

HERE = Path(__file__).resolve().parent

DOMAIN = """
intents: [greet, book, hours, prices, services]
entities: [date, time, service]
slots:
  date: {type: unfeaturized}
  time: {type: unfeaturized}
  service: {type: unfeaturized}
responses:
  utter_greet:
  - text: "Welcome to the clinic. What can I do for you?"
  utter_book:
  - text: "Of course. Could you give me the date, the time and the service you need?"
  utter_ask_date:
  - text: "What day do you want the appointment?"
  utter_ask_time:
  - text: "What time?"
  utter_ask_service:
  - text: "What service do you need? (Vaccination, Check-up)"
  utter_booked:
  - text: "Booked: {service} on {date} at {time}. See you!"
  utter_hours:
  - text: "We're open from 9 AM to 6 PM every weekday."
  utter_prices:
  - text: "A visit costs between $50 and $60."
forms: [booking_form]
"""
NLU = """## intent:greet
- hello

## intent:book
- I need an appointment
- book an appointment for a [vaccination](service) on [monday](date) at [10:00](time)
- book a [check-up](service) on [friday](date)
- book a [check-up](service) on [monday](date) at [noon](time)
- book an appointment [tomorrow](date) at [4 pm](time)

## intent:hours
- when are you open?

## intent:prices
- how much does a visit cost?
"""
STORIES = """## book
* book
  - utter_book
  - booking_form
  - form{"name": "booking_form"}
  - form{"name": null}
  - utter_booked

## hours
* hours
  - utter_hours

## prices
* prices
  - utter_prices
"""
ACTIONS = """class BookingForm(FormAction):
    def name(self):
        return "booking_form"

    @staticmethod
    def required_slots(tracker):
        return ["date", "time", "service"]
"""


def _project(folder: Path) -> Path:
    (folder / "data").mkdir(parents=True)
    (folder / "domain.yml").write_text(DOMAIN, encoding="utf-8")
    (folder / "data" / "nlu.md").write_text(NLU, encoding="utf-8")
    (folder / "data" / "stories.md").write_text(STORIES, encoding="utf-8")
    (folder / "actions.py").write_text(ACTIONS, encoding="utf-8")
    return folder


def _chatbot(tmp_path: Path) -> Path:
    path = tmp_path / "clinic.yaml"
    config = {"connector": "python", "params": {"target": "clinic_bot:Clinic", "path": str(HERE)}}
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_words_that_name_what_is_asked_are_no_answer() -> None:
    question = "Could you give me the date, time, and the service you need?"
    answers = free_answers(question, "The services we offer are Vaccination and Lab tests.")
    assert answers[0] == "tomorrow 6 pm Vaccination"
    assert not {"date", "time", "the service you need"} & set(answers), answers
    assert "large" in free_answers("What size? Small, medium or large?")


def test_each_form_slot_gets_a_seed_or_a_partial_answer_that_leaves_it_out(
    tmp_path: Path,
) -> None:
    definition = read_definition(_project(tmp_path / "bot"))
    seeds = [utterance for utterance, _ in definition_seeds(definition)]
    # the time is asked after "… on friday" (no time), the service after "… at 4 pm"
    assert "book a check-up on friday" in seeds
    assert "book an appointment tomorrow at 4 pm" in seeds
    # the most frequent example value first; then partial answers, one slot left out each
    assert definition.slots["date"][0] == "monday"
    assert definition.values_for("Could you give me the date, the time and the service?") == [
        "monday 10:00 check-up",
        "10:00 check-up",
        "monday check-up",
        "monday 10:00",
    ]
    assert definition.unreachable() == {"services": "no NLU example, no story or rule"}


def test_with_the_definition_every_form_slot_is_asked_and_the_run_passes(tmp_path: Path) -> None:
    project = _project(tmp_path / "bot")
    settings = ExploreSettings(chatbot=_chatbot(tmp_path), graph_formats=[], project=project)
    start(ExploreJob(), settings, tmp_path / "explore")
    records = list(RunStore.open(tmp_path / "explore").iter_records())
    measured = definition_coverage(read_definition(project), records)
    assert sorted(measured.slots.reached) == ["date", "service", "time"]
    assert measured.unreachable == {"services": "no NLU example, no story or rule"}
    assert "services" not in measured.intents.names
    result = start(
        RunJob(),
        RunSettings(chatbot=_chatbot(tmp_path), project=project, concurrency=1),
        tmp_path / "run",
    ).result
    assert result.check is not None
    assert result.exit_code == 0, result.check.outcome


def test_an_answer_the_bot_takes_for_another_request_is_no_value(tmp_path: Path) -> None:
    result = start(
        RunJob(), RunSettings(chatbot=_chatbot(tmp_path), concurrency=1), tmp_path / "run"
    ).result
    explored = list(RunStore.open(tmp_path / "run" / "exploration").iter_records())
    said = [
        (t.text, record.turns[i + 1].text)
        for record in explored
        for i, t in enumerate(record.turns[:-1])
        if t.role == "user" and t.text.endswith("Prices")
    ]
    assert said and all(reply.startswith("A visit costs") for _, reply in said), said
    model = result.exploration.model
    values = {e for f in model.functionalities for p in f.parameters for e in p.examples}
    assert not [v for v in values if "Prices" in v], values
    assert any(f.description.startswith("Booked:") for f in model.functionalities)
    assert result.exit_code == 0


def test_the_simulated_user_answers_the_part_of_a_value_that_is_asked() -> None:
    assert only_when_besides("tomorrow 6 pm Physical examination", "Physical examination")
    assert not only_when_besides("2 bottles of water", "Water")
    closing = "Ok, I have received your request for 30-11-2026 at 15:00 for physical examination."
    assert when_part_mentioned("Monday check-up", closing.replace("30-11-2026", "next Monday"))
    assert not when_part_mentioned("check-up", closing)
