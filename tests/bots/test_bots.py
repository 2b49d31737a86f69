"""The test bots do what their README says: the correct variant completes its task, and
each seeded bug shows on a dialogue that reaches it."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
import yaml

from sparring.check import load_rules
from sparring.profiles import load_profile
from tests import bots

TASKS = bots.TASKS


CORRECT = {
    "dental": (
        r"whitening .* Tuesday, 9 March 2027 at 3:30 PM, under the name Ana Costa\. .* DC-\d+"
    ),
    "bank": r"Done! €250\.00 is on its way to Maria Lopez\. Reference: NB-TRX-\d+",
    "train": (
        r"London → York on 2027-03-12, departing 16:50, first class, 2 passengers\. "
        r"Total: £\d+\.\d\d"
    ),
    "carrental": (
        r"for Ana Costa: a Van from our Downtown branch, Fri 12 Mar to Mon 15 Mar 2027 "
        r"\(3 days\), \$285"
    ),
    "library": (
        r'"Dune" will be waiting for you at the Riverside branch from Tuesday the 9th of March.*'
        r"Member 204518, your hold reference is HLD-\d+"
    ),
    "plumber": (
        r"come to 14 Elm Road, Leeds LS6 2AB on Thursday the 4th of March, between twelve and "
        r"four, to look at a blocked drain or toilet\. We'll text 07700 900123 .* DS-\d+"
    ),
}


def talk(name: str, utterances: list[str], bugs: list[str] | tuple[str, ...] = ()) -> list[str]:
    conversation = bots.load(name).Conversation(bugs=bugs)
    return [conversation.respond(u) for u in utterances]


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_correct_variant_completes_its_task(name: str) -> None:
    replies = talk(name, TASKS[name])
    assert re.search(CORRECT[name], replies[-1]), replies
    assert "?" in replies[-1]  # every bot closes with a question of its own wording


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_each_bot_has_three_seeded_bugs_and_its_files(name: str) -> None:
    bot = bots.BOTS[name]
    assert len(bot.bugs) == 3
    config = yaml.safe_load((bot.folder / "chatbot.yaml").read_text())
    assert config["info"]["fallback"]
    assert list(bot.profiles.glob("*.yaml")) and list(bot.rules.glob("*.yaml"))


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_profiles_and_rules_load(name: str) -> None:
    """What a new user wrote from the docs is valid for sparring (no located error)."""
    bot = bots.BOTS[name]
    for path in sorted(bot.profiles.glob("*.yaml")):
        assert load_profile(path).test_name, path
    assert len(load_rules(sorted(bot.rules.glob("*.yaml"))).active) >= 4


def test_dental_bugs() -> None:
    assert "at 4:30 PM" in talk("dental", TASKS["dental"], ["wrong_time"])[-1]
    looped = talk("dental", TASKS["dental"], ["loop_date"])
    assert sum("Which day suits you" in r for r in looped) >= 3
    with pytest.raises(KeyError):
        talk("dental", TASKS["dental"], ["crash_whitening"])
    assert (
        "DC-"
        in talk(
            "dental", [*TASKS["dental"][:1], "cleaning", *TASKS["dental"][2:]], ["crash_whitening"]
        )[-1]
    )


def test_bank_bugs() -> None:
    first = talk("bank", TASKS["bank"], ["repeated_ref"])[-1]
    second = talk("bank", TASKS["bank"], ["repeated_ref"])[-1]
    assert re.findall(r"NB-TRX-\d+", first) == re.findall(r"NB-TRX-\d+", second)
    assert re.findall(r"NB-TRX-\d+", talk("bank", TASKS["bank"])[-1]) != re.findall(
        r"NB-TRX-\d+", talk("bank", TASKS["bank"])[-1]
    )
    assert "0800 123 456" in talk("bank", ["When are your branches open?"], ["wrong_faq"])[-1]
    assert "9:00" in talk("bank", ["When are your branches open?"])[-1]
    assert "{amount}" in talk("bank", TASKS["bank"], ["template_leak"])[-1]


def test_train_bugs() -> None:
    assert "1 passenger." in talk("train", TASKS["train"], ["lost_slot"])[-1]
    assert "departing 06:45" in talk("train", TASKS["train"], ["wrong_train"])[-1]
    past = [*TASKS["train"][:3], "20/02/2027", *TASKS["train"][4:]]
    assert "in the past" in talk("train", past)[3]
    assert "on 2027-02-20" in talk("train", past, ["invalid_accepted"])[-1]


def test_carrental_bugs() -> None:
    assert "our Airport branch" in talk("carrental", TASKS["carrental"], ["wrong_branch"])[-1]
    assert "confirmed for None" in talk("carrental", TASKS["carrental"], ["lost_name"])[-1]
    with pytest.raises(KeyError):
        talk("carrental", TASKS["carrental"], ["crash_van"])


def test_library_bugs() -> None:
    assert (
        "from Wednesday the 10th of March" in talk("library", TASKS["library"], ["wrong_day"])[-1]
    )
    sunday = [*TASKS["library"][:3], "Sunday the 7th", *TASKS["library"][3:]]
    replies = talk("library", sunday)
    assert "closed on Sundays" in replies[3] and "Riverside branch" in replies[-1]
    assert "at the Maple Street branch" in talk("library", sunday, ["lost_branch"])[-1]
    assert "Riverside branch" in talk("library", TASKS["library"], ["lost_branch"])[-1]
    accepted = talk(
        "library", [*TASKS["library"][:3], "Sunday the 7th", "204518"], ["sunday_accepted"]
    )
    assert "from Sunday the 7th of March" in accepted[-1]


def test_library_renews_and_reads_written_days() -> None:
    replies = talk("library", ["I'd like to renew my books", "204518", "the first one"])
    assert "1. The Hobbit (due Thursday the 4th of March)" in replies[1]
    assert "The Hobbit is now due back on Thursday the 18th of March" in replies[-1]
    late = talk("library", [*TASKS["library"][:3], "in two weeks", "204518"])[-1]
    assert "from Monday the 15th of March" in late


def test_plumber_bugs() -> None:
    assert "between four and six" in talk("plumber", TASKS["plumber"], ["wrong_window"])[-1]
    past = [*TASKS["plumber"][:3], "yesterday", *TASKS["plumber"][3:]]
    replies = talk("plumber", past)
    assert "already gone" in replies[3] and "a blocked drain or toilet" in replies[-1]
    assert "a leaking tap or pipe" in talk("plumber", past, ["lost_problem"])[-1]
    booked = talk(
        "plumber",
        [*TASKS["plumber"][:3], "last Saturday", "morning", "07700 900123"],
        ["past_day_accepted"],
    )
    assert "on Saturday the 27th of February" in booked[-1]


def test_plumber_reads_spoken_times() -> None:
    task = TASKS["plumber"]
    assert "between four and six" in talk("plumber", [*task[:4], "half past four", task[5]])[-1]
    assert "between twelve and four" in talk("plumber", [*task[:4], "three o'clock", task[5]])[-1]
    assert "between eight and twelve" in talk("plumber", [*task[:4], "9am", task[5]])[-1]


def test_served_bot_answers_and_crashes_with_500(tmp_path: Path) -> None:
    with bots.serve("carrental", ["crash_van"], tmp_path) as chatbot_yaml:
        url = yaml.safe_load(chatbot_yaml.read_text())["params"]["url"]
        codes = [
            httpx.post(f"{url}/chat", json={"session": "s1", "message": m}).status_code
            for m in TASKS["carrental"]
        ]
    assert codes == [200] * 5 + [500]


def test_unknown_bug_is_refused() -> None:
    with pytest.raises(ValueError, match="no seeded bug"):
        bots.python_chatbot("train", ["no_such_bug"])
