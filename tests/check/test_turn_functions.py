"""reply_to, turn_after, numbers and the <EMPTY-RESPONSE> idiom (issue 8)."""

from __future__ import annotations

from pathlib import Path

from check_builders import record, run

TURNS = [
    ("user", "Hello"),
    ("assistant", "Hi there!"),
    ("user", "Sorry, one more thing"),  # an extra simulator turn shifts positions
    ("assistant", "Sure."),
    ("user", "What is 2 plus 2?"),
    ("assistant", "Four."),
]


def status(tmp_path: Path, oracle: str, turns: list[tuple[str, str]] = TURNS) -> str:
    report = run(tmp_path, f"name: r\noracle: {oracle}\n", [record(turns=turns)])
    return report.result("r").verdicts[0].status


def test_reply_to_finds_the_answer_wherever_it_is(tmp_path: Path) -> None:
    assert status(tmp_path, "reply_to('what is 2 PLUS 2') == 'Four.'") == "pass"
    assert status(tmp_path, "reply_to('capital') is None") == "pass"


def test_numbers_reads_digits_and_words(tmp_path: Path) -> None:
    assert status(tmp_path, "4 in numbers(reply_to('plus'))") == "pass"
    assert status(tmp_path, "numbers('3 times 3 = 9.') == [3, 3, 9]") == "pass"


def test_turn_after_follows_a_pattern(tmp_path: Path) -> None:
    assert status(tmp_path, "turn_after('one more') == 'Sure.'") == "pass"
    assert status(tmp_path, "turn_after('^Sure', who='chatbot') == 'What is 2 plus 2?'") == "pass"
    assert status(tmp_path, "turn_after('nothing like this') is None") == "pass"


def test_an_empty_reply_is_seen_as_senseis_empty_response(tmp_path: Path) -> None:
    turns = [("user", "Hello"), ("assistant", "")]
    assert status(tmp_path, "not chatbot_returns('<EMPTY-RESPONSE>')", turns) == "fail"
    assert status(tmp_path, "not chatbot_returns('<EMPTY-RESPONSE>')") == "pass"


def test_a_short_reply_in_another_language_is_caught(tmp_path: Path) -> None:
    turns = [("user", "Hola, ¿cómo estás?"), ("assistant", "Hi there!")]
    assert status(tmp_path, "responds_in_same_language()", turns) == "fail"
    same = [("user", "Hola, ¿cómo estás?"), ("assistant", "¡Hola! Bien.")]
    assert status(tmp_path, "responds_in_same_language()", same) == "pass"


def test_semantic_content_the_cues_cannot_decide_is_unscored(tmp_path: Path) -> None:
    verdicts = {
        "semantic_content('Order confirmed.', 'your order is confirmed')": "pass",
        "semantic_content('Order cancelled.', 'your order is not cancelled')": "fail",
        "semantic_content('Your pizza is on its way.', 'your order is confirmed')": "fail",
        "semantic_content('We got your order, thanks.', 'your order is confirmed')": "unscored",
    }
    found = {oracle: status(tmp_path / str(n), oracle) for n, oracle in enumerate(verdicts)}
    assert found == verdicts
