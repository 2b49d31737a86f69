"""Which AIML categories the test conversations reach (``--exercised-only``): the
Graphmaster's priorities, ``<that>``, ``<srai>``/``<sr/>`` with stars, and the location
filter; then a whole job on a real AIML interpreter whose sample holds only reached
categories."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from sparring.mutation import Location
from sparring.mutation._job import MutateJob, MutateSettings, exercised_utterances
from sparring.mutation._operators.aiml_reach import reached_categories, reached_filter, sentences
from sparring.runner import start

SET = """\
<?xml version="1.0" encoding="UTF-8"?>
<aiml version="1.0">
<category><pattern>HELLO</pattern><template>Hi! Do you like pizza?</template></category>
<category><pattern>HI *</pattern><template><sr/> <srai>HELLO</srai></template></category>
<category><pattern>YES</pattern><that>DO YOU LIKE PIZZA</that>
<template><srai>I LIKE PIZZA</srai></template></category>
<category><pattern>I LIKE PIZZA</pattern><template>Me too.</template></category>
<category><pattern>MY NAME IS *</pattern>
<template>Nice to meet you, <set name="name"><star/></set>.</template></category>
<category><pattern>_ PLEASE</pattern><template><srai><star/></srai></template></category>
<category><pattern>OPEN THE DOOR</pattern><template>I have no door.</template></category>
<category><pattern>OPEN THE DOOR PLEASE</pattern><template>Never reached.</template></category>
<category><pattern>*</pattern><template>Tell me more.</template></category>
<category><pattern>WHAT IS MY NAME</pattern>
<template>You are <get name="name"/>.</template></category>
</aiml>
"""
HELLO, HI, YES, PIZZA, NAME, PLEASE, DOOR, DOOR_PLEASE, DEFAULT, WHAT_NAME = range(1, 11)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "bot" / "aiml").mkdir(parents=True)
    (tmp_path / "bot" / "aiml" / "bot.aiml").write_text(SET, encoding="utf-8")
    return tmp_path / "bot"


def reached(project: Path, *utterances: tuple[str, str | None]) -> set[int]:
    return {number for _, number in reached_categories(project, utterances)}


def test_input_is_normalised_like_an_aiml_interpreter() -> None:
    assert sentences("I'm fine, thanks. What's up?") == [
        ["I", "AM", "FINE", "THANKS"],
        ["WHAT", "IS", "UP"],
    ]


def test_an_exact_pattern_beats_the_catch_all(project: Path) -> None:
    assert reached(project, ("Hello!", None)) == {HELLO}
    assert reached(project, ("tell me a joke", None)) == {DEFAULT}


def test_redirections_are_followed_with_their_stars(project: Path) -> None:
    # HI * → <sr/> sends "THERE" (the catch-all) and <srai>HELLO</srai> sends HELLO
    assert reached(project, ("hi there", None)) == {HI, DEFAULT, HELLO}
    # _ PLEASE wins over the literal OPEN THE DOOR PLEASE, and redirects its star
    assert reached(project, ("open the door please", None)) == {PLEASE, DOOR}


def test_that_is_matched_against_the_previous_reply(project: Path) -> None:
    assert reached(project, ("yes", "Hi! Do you like pizza?")) == {YES, PIZZA}
    assert reached(project, ("yes", "Tell me more.")) == {DEFAULT}
    assert reached(project, ("yes", None)) == {DEFAULT}


def test_the_filter_keeps_a_location_when_one_of_its_categories_is_reached(
    project: Path,
) -> None:
    keep = reached_filter(project, [("hello", None)])
    at = lambda key: Location(file="aiml/bot.aiml", key=key)  # noqa: E731
    assert keep(at(f"category {HELLO}"))
    assert keep(at(f"category {HELLO},{HI}"))  # a swap touching a reached category
    assert keep(at(f"category {HELLO}/srai 1"))
    assert not keep(at(f"category {HI}/srai 1"))
    assert not keep(at(f"category {PIZZA},{NAME}"))
    assert not keep(Location(file="aiml/other.aiml", key=f"category {HELLO}"))


PROFILE = """\
test_name: greets_and_remembers
llm: {model: gpt-4o-mini}
user:
  language: English
  role: You greet the bot and tell it your name.
  context: []
  goals:
    - hello
    - "my name is {{name}}"
    - what is my name
    - name:
        function: forward()
        type: string
        data: [Ann]
chatbot:
  is_starter: false
  fallback: Tell me more.
  output: []
conversation:
  number: 1
  goal_style: {steps: 4}
  interaction_style: [single question]
"""
RULE = """\
name: remembers_the_name
active: True
conversations: 1
when: reply_to('what is my name') is not None
oracle: "'ann' in reply_to('what is my name').lower()"
"""


def test_an_exercised_only_job_samples_only_reached_categories(
    project: Path, tmp_path: Path
) -> None:
    pytest.importorskip("aiml")
    alice = Path(__file__).parents[2] / "examples" / "alice"
    shutil.copyfile(alice / "alice_bot.py", project / "alice_bot.py")
    (project / "chatbot.yaml").write_text(
        'connector: python\nparams:\n  target: "alice_bot.py:AliceBot"\n'
        "  kwargs: {aiml_dir: aiml}\n  path: .\n  timeout: 10\n",
        encoding="utf-8",
    )
    (tmp_path / "profile.yaml").write_text(PROFILE, encoding="utf-8")
    (tmp_path / "rule.yaml").write_text(RULE, encoding="utf-8")
    settings = MutateSettings.model_validate(
        {"project": project, "kind": "aiml", "profiles": [tmp_path / "profile.yaml"],
         "rules": [tmp_path / "rule.yaml"], "exercised_only": True}
    )  # fmt: skip
    result = start(MutateJob(), settings, tmp_path / "out").result

    said = [text for text, _ in exercised_utterances(tmp_path / "out")]
    words = [re.sub(r"[^\w ]", "", text).lower() for text in said]
    goals = ["hello", "my name is ann", "what is my name"]
    assert [w for w in words if w in goals] == goals, said
    # the offline user may also answer the bot's "Do you like pizza?" (the catch-all)
    assert result.original is not None and result.original.false_positives == []
    reached_numbers = {HELLO, NAME, WHAT_NAME} | ({DEFAULT} if len(words) > 3 else set())
    for mutant_id in result.sampled:
        numbers = mutant_id.split("#category ")[1].split("/")[0].split(",")
        assert reached_numbers & {int(n) for n in numbers}, mutant_id
    statuses = {m.id: (m.status, m.killed_by) for m in result.mutants}
    # forgetting the name (its <set> dropped, or its <get> deleted) is caught by the rule
    assert statuses["aiml.drop_set@aiml/bot.aiml#category 5/set 1"] == (
        "killed",
        ["remembers_the_name"],
    )
    assert statuses["aiml.drop_get@aiml/bot.aiml#category 10/get 1"][0] == "killed"
    assert result.complete and set(result.sampled) == set(statuses)
