"""The confirmation oracle (``confirmation_mismatches``, default rule
``confirmation_mismatch``): a confirmation read back against the values the user said."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sparring.check import DEFAULT_RULES, check, load_rules
from sparring.conversations import ConversationRecord, Turn

ROOM_QUESTION = "Which room type would you like: single, double or suite?"


def booking(room_said: str, *, room: str = "suite", closing: str = "") -> ConversationRecord:
    lines = [
        ("user", "I want to book a room"),
        ("assistant", ROOM_QUESTION),
        ("user", room),
        ("assistant", "What name should the booking be under?"),
        ("user", "Carmen Ruiz"),
        ("assistant", "What date would you like to check in?"),
        ("user", "tomorrow"),
        (
            "assistant",
            f"Your booking is confirmed: a {room_said} room for Carmen Ruiz, checking in on "
            f"29/11/2026. Your reference is 1004.{closing}",
        ),
    ]
    return ConversationRecord(
        id=f"booking-{room_said}",
        profile="booking",
        turns=[Turn(role=r, text=t) for r, t in lines],  # type: ignore[arg-type]
        variables={
            "room": room,
            "name": "Carmen Ruiz",
            "date": "tomorrow",
            "else": "else of my choice",
        },
        started_at=datetime(2026, 11, 28, 10, tzinfo=UTC),
    )


def verdict(record: ConversationRecord) -> tuple[str, str | None]:
    """The default rule's status and what it says (its ``yields`` message, else reason)."""
    report = check(load_rules([DEFAULT_RULES]), [record])
    (result,) = [r for r in report.results if r.rule == "confirmation_mismatch"]
    (one,) = result.verdicts
    return one.status, one.message or one.reason


def test_a_wrong_room_in_the_confirmation_fails_quoting_both_values_and_the_turn() -> None:
    status, reason = verdict(booking("double", closing=" Anything else I can do for you?"))
    assert status == "fail"
    assert reason is not None
    assert "turn 7" in reason and "'suite'" in reason and "'double'" in reason
    assert "Your booking is confirmed" in reason


def test_the_confirmation_as_asked_passes_with_typed_dates() -> None:
    # "tomorrow" said on 28 November is the 29/11/2026 the bot reads back
    status, _ = verdict(booking("suite"))
    assert status == "pass"


def test_a_placeholder_value_is_never_the_users() -> None:
    record = booking("suite")
    record.variables["name"] = "name of my choice"
    assert verdict(record)[0] == "pass"


def test_no_confirmation_is_not_applicable_never_a_pass() -> None:
    record = booking("suite")
    record.turns = record.turns[:-1]
    status, reason = verdict(record)
    assert status == "not_applicable" and "no confirmation" in (reason or "")


def test_a_price_list_is_no_confirmation() -> None:
    record = booking("suite")
    record.turns[-1] = Turn(
        role="assistant",
        text="A single room costs $80 per night, a double room $120 and a suite $250.",
    )
    assert verdict(record)[0] == "not_applicable"


def test_the_chatbots_own_word_for_the_value_agrees(tmp_path: Path) -> None:
    """The user said "check-up"; the bot reads back "Service: Physical examination", its
    own entity name: another value after the slot's label without the profile's
    ``chatbot.synonyms``, the same value with them."""
    lines = [
        ("user", "I need an appointment for my dog"),
        ("assistant", "Which service: Physical examination, Vaccination or Lab tests?"),
        ("user", "a check-up"),
        ("assistant", "What day would you like?"),
        ("user", "tomorrow"),
        (
            "assistant",
            "Your appointment is confirmed. Service: Physical examination, date: 29/11/2026.",
        ),
    ]
    profile = tmp_path / "vet.yaml"
    profile.write_text(
        "test_name: vet\nuser:\n  language: English\n  role: a dog owner\n  goals:\n"
        "    - 'book a {{service}}'\n    - service:\n        function: forward()\n"
        "        type: string\n        data: [check-up]\n"
        "chatbot:\n  is_starter: false\n  synonyms:\n    Physical examination: [check-up]\n"
        "conversation:\n  number: 1\n  goal_style:\n    steps: 4\n  interaction_style: [default]\n"
    )
    record = ConversationRecord(
        id="vet",
        profile="vet",
        turns=[Turn(role=r, text=t) for r, t in lines],  # type: ignore[arg-type]
        variables={"service": "check-up", "day": "tomorrow"},
        started_at=datetime(2026, 11, 28, 10, tzinfo=UTC),
    )
    assert verdict(record)[0] == "fail"
    record.profile_path = str(profile)
    assert verdict(record)[0] == "pass"
