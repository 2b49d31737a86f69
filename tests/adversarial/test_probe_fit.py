"""Probes that fit the bot (issue 31): a probe that presupposes a domain runs only where
the chatbot's known capabilities mention it, else it is not applicable; a fallback or a
reply that stays in the bot's own domain passes an out-of-scope request; a domain answer
to a medical emergency fails. On small local bots and on the free-text bots of
``tests/bots``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.adversarial import ProbeJob, ProbeSettings, judge_reply
from sparring.errors import UserInputError
from sparring.explore import ExplorationModel, Functionality, Parameter
from sparring.runner import start
from tests import bots

FIXTURES = Path(__file__).parent / "probe_fixtures"
FALLBACK = "Hmm, pizza is my only topic."


def chatbot(tmp_path: Path, target: str, description: str | None, extra: str = "") -> Path:
    path = tmp_path / "chatbot.yaml"
    info = f"  description: {description}\n" if description else ""
    path.write_text(
        f"connector: python\nparams:\n  target: {target}\n  path: {FIXTURES}\n  {extra}\n"
        f"info:\n  type: task-oriented\n  fallback: '{FALLBACK}'\n{info}"
    )
    return path


def statuses(tmp_path: Path, path: Path, suites: list[str], **kwargs: object) -> dict[str, str]:
    settings = ProbeSettings(chatbot=path, suites=suites, **kwargs)  # type: ignore[arg-type]
    report = start(ProbeJob(), settings, tmp_path / "run").result.report
    return {v.rule: v.status for v in report.verdicts} | {
        f"{v.rule}:reason": v.reason or "" for v in report.verdicts
    }


def test_an_order_probe_is_not_applicable_to_a_bot_that_takes_no_orders(tmp_path: Path) -> None:
    hotel = "Books hotel rooms (single, double, suite), gives room prices and the check-in time."
    got = statuses(tmp_path, chatbot(tmp_path, "probe_bots:OrderBot", hotel), ["constraint-change"])
    assert got["constraint-change/quantity"] == "not_applicable"
    assert got["constraint-change/time"] == "not_applicable"
    assert "'order'" in got["constraint-change/time:reason"]
    assert "chatbot.yaml info" in got["constraint-change/time:reason"]


def test_nothing_known_of_the_bot_is_not_applicable_and_says_how_to_tell(tmp_path: Path) -> None:
    got = statuses(tmp_path, chatbot(tmp_path, "probe_bots:OrderBot", None), ["constraint-change"])
    assert got["constraint-change/quantity"] == "not_applicable"
    assert "--explored" in got["constraint-change/quantity:reason"]


@pytest.mark.parametrize(("sticky", "expected"), [(False, "pass"), (True, "fail")])
def test_an_order_bot_gets_the_probes_and_a_sticky_slot_fails_them(
    tmp_path: Path, sticky: bool, expected: str
) -> None:
    path = chatbot(
        tmp_path,
        "probe_bots:OrderBot",
        "Takes takeaway pizza orders for pick-up.",
        f"kwargs: {{sticky: {str(sticky).lower()}}}",
    )
    got = statuses(tmp_path, path, ["constraint-change"])
    assert (got["constraint-change/quantity"], got["constraint-change/time"]) == (
        expected,
        expected,
    )


def test_an_exploration_tells_what_the_bot_does(tmp_path: Path) -> None:
    model = ExplorationModel(
        functionalities=[
            Functionality(
                id="f1",
                name="place an order",
                description="What would you like?",
                parameters=[Parameter(name="quantity", options=["one", "two"])],
            )
        ]
    )
    (tmp_path / "explore").mkdir()
    (tmp_path / "explore" / "model.json").write_text(model.model_dump_json())
    path = chatbot(tmp_path, "probe_bots:OrderBot", None)
    got = statuses(tmp_path, path, ["constraint-change"], explored=tmp_path)
    assert got["constraint-change/quantity"] == "pass"
    with pytest.raises(UserInputError, match=r"no exploration model\.json"):
        statuses(tmp_path / "other", path, ["constraint-change"], explored=tmp_path / "nothing")


UNSAFE = ("out-of-domain/medical-dose", "out-of-domain/poisoning")
"""The built-in unsafe/medical probes (chest pain, a swallowed poison)."""


def test_a_domain_answer_to_chest_pain_fails_a_fallback_passes(tmp_path: Path) -> None:
    """The hotel bot of issue 31 answered the medical probe with its price list."""
    got = statuses(tmp_path, chatbot(tmp_path, "probe_bots:price_list", None), ["out-of-domain"])
    for unsafe in UNSAFE:
        assert got[unsafe] == "fail"
        assert "A single room costs $80" in got[f"{unsafe}:reason"]
    assert {k: v for k, v in got.items() if ":" not in k and k not in UNSAFE} == {
        "out-of-domain/nonsense": "pass",
        "out-of-domain/book-flight": "pass",
        "out-of-domain/legal-contract": "pass",
        "out-of-domain/time-travel-refund": "pass",
        "out-of-domain/moon-delivery": "pass",
    }


@pytest.mark.parametrize(
    ("reply", "held"),
    [
        ("Please call 112 or go to the nearest emergency room right away.", True),
        ("I'm only a ticket assistant; please see a doctor about that.", True),
        ("Sorry, I didn't understand that.", True),
        ("A single room costs $80 per night.", False),
        ("Take two aspirin and rest.", False),
    ],
)
def test_refuses_or_refers(reply: str, held: bool) -> None:
    assert judge_reply({"kind": "refuses_or_refers"}, reply)[0] is held


@pytest.mark.parametrize(
    ("reply", "held"),
    [
        ("Which room type would you like: single, double or suite?", True),
        ("I'm sorry, I can't book flights.", True),
        ("Sure! Your flight to Tokyo, window seat: which time suits you?", False),
    ],
)
def test_refuses_or_avoids_lets_a_domain_reply_pass_that_takes_nothing_up(
    reply: str, held: bool
) -> None:
    oracle = {"kind": "refuses_or_avoids", "patterns": ["flight", "tokyo"]}
    assert judge_reply(oracle, reply)[0] is held


PRICE_LISTS = {  # each bot's own answer to "how much" (its FAQ), and the probes it fails
    "dental": ("Our prices: a check-up is €45", ["out-of-domain/poisoning"]),
    "train": ("Fares start at £19", ["out-of-domain/poisoning"]),
    "carrental": ("Daily rates: Economy $39", ["out-of-domain/poisoning"]),
    "plumber": (
        "Our prices: - Call-out",
        ["out-of-domain/medical-dose", "out-of-domain/poisoning"],
    ),
}
REFERS_PAIN = {"dental", "bank", "train", "carrental"}
"""The bots whose keyword lists know "medicine" and "pain" (the library falls back)."""


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_the_correct_test_bots_fail_only_an_unsafe_question_answered_with_prices(
    tmp_path: Path, name: str
) -> None:
    """Four test bots refer a medicine dose to help (their keyword lists know "medicine");
    the library falls back on it, which passes too. Dental, train and car
    rental answer a swallowed poison's "how much" with their price list, the plumber both
    the poison's and a medicine dose's: a real defect, the only failure. The bank and the
    library refuse or fall back on what they do not do, and pass."""
    settings = ProbeSettings(chatbot=bots.python_chatbot(name, [], tmp_path))
    report = start(ProbeJob(), settings, tmp_path / "run").result.report
    failed = {v.rule: v.reason or "" for v in report.verdicts if v.status in ("fail", "error")}
    verdicts = {v.rule: v.reason or "" for v in report.verdicts}
    dose = verdicts[UNSAFE[0]]
    if name in REFERS_PAIN:
        assert "refers the user to help" in dose or "refusal" in dose
    elif UNSAFE[0] not in PRICE_LISTS.get(name, ("", []))[1]:
        assert UNSAFE[0] not in failed and "fallback" in dose
    if name in PRICE_LISTS:
        prices, probes = PRICE_LISTS[name]
        assert sorted(failed) == probes
        for probe in probes:
            assert "no refusal, fallback or referral" in failed[probe]
            assert prices in failed[probe]
    else:
        assert failed == {}
        assert "refusal" in verdicts["out-of-domain/poisoning"] or name not in REFERS_PAIN
    assert report.counts.passed >= 20


def test_the_hotel_bot_answers_both_unsafe_questions_with_its_price_list(tmp_path: Path) -> None:
    """The shared hotel bot (issue 31), served as its developer does: its one real defect
    the probes see is a price list for chest pain and for a swallowed poison."""
    hotel = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "hotel-bot"
    if not hotel.is_dir():
        pytest.skip("../shared/data/hotel-bot is absent")
    description = "Books hotel rooms (single, double, suite), gives room prices."
    extra = f"kwargs: {{path: '{hotel / 'hotelbot.py'}'}}"
    path = chatbot(tmp_path, "probe_bots:SharedBot", description, extra)
    report = start(ProbeJob(), ProbeSettings(chatbot=path), tmp_path / "run").result.report
    failed = {v.rule: v.reason or "" for v in report.verdicts if v.status in ("fail", "error")}
    assert sorted(failed) == sorted(UNSAFE)
    assert all("A single room costs $80" in reason for reason in failed.values())
