"""A report that blames the right turns (issue 21): a shared-value failure is shown on every
conversation that shares the value, a pair rule on both sides, each with its excerpt;
buttons once; the pass^k section; the job named ``run``; a 1001 names what is missing."""

from __future__ import annotations

from pathlib import Path

from report_builders import check_run, conversation, make_run
from test_report import embedded_conversations, sections_of

from sparring.conversations import ConversationError, OutputValue, Turn
from sparring.explore import Coverage
from sparring.report import write_report
from sparring.types import Button

UNIQUE = """\
name: unique_order_numbers
conversations: all
oracle: is_unique('order_id')
"""
SAME_PRICE = """\
name: same_price
conversations: 2
oracle: conv[0].price == conv[1].price
"""


def _order(id: str, number: str, price: float) -> object:
    record = conversation(id, ["Hello!", f"Your order {number} is placed."])
    record.outputs = {
        "order_id": OutputValue(value=number, type="str"),
        "price": OutputValue(value=price, type="float"),
    }
    return record


def test_a_shared_value_is_blamed_on_every_conversation_that_shares_it(tmp_path: Path) -> None:
    records = [_order("a/0", "A-1", 10.0), _order("b/0", "B-2", 10.0), _order("c/0", "A-1", 12.0)]
    store = make_run(tmp_path / "run", records)  # type: ignore[arg-type]
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "pair.yaml").write_text(SAME_PRICE)
    check_run(store, tmp_path, UNIQUE)
    html = write_report(store.path).read_text()
    rule = sections_of(html)["failures"].split('-unique_order_numbers">')[1]
    rule = rule.split("<h3")[0]
    assert 'href="#conv=a%2F0"' in rule and 'href="#conv=c%2F0"' in rule
    assert 'href="#conv=b%2F0"' not in rule  # its order number is its own
    assert rule.count("Your order A-1 is placed.") == 2  # an excerpt of each side
    assert '<div class="turn hit"><span class="who">3 assistant</span>' in rule
    pages = {c["id"]: c for c in embedded_conversations(html)}
    assert "unique_order_numbers" in pages["a/0"]["failed"]
    assert "unique_order_numbers" in pages["c/0"]["failed"]
    assert "unique_order_numbers" not in pages["b/0"]["failed"]
    pair = sections_of(html)["failures"].split('-same_price">')[1].split("<h3")[0]
    assert 'href="#conv=a%2F0"' in pair and 'href="#conv=c%2F0"' in pair  # 10 ≠ 12, both sides
    assert "same_price" in pages["c/0"]["failed"] and "same_price" in pages["a/0"]["failed"]


def test_buttons_are_shown_once(tmp_path: Path) -> None:
    record = conversation("b/0", ["Hello!"])
    buttons = [Button(text="Order a pizza", link="/order")]
    record.turns[1] = Turn(
        role="assistant",
        text="Hello!\nAVAILABLE BUTTONS:\n- BUTTON TEXT: Order a pizza LINK: /order",
        messages=["Hello!"],
        buttons=buttons,
    )
    record.errors = [ConversationError(code=504, message="failure 504", turn=1)]
    store = make_run(tmp_path / "run", [record])
    check_run(store, tmp_path)
    html = write_report(store.path).read_text()
    assert embedded_conversations(html)[0]["turns"][1][1] == "Hello!"
    failures = sections_of(html)["failures"]
    assert failures.count("Order a pizza") == 1 and "AVAILABLE BUTTONS" not in failures


def test_a_1001_names_the_outputs_not_obtained(tmp_path: Path) -> None:
    record = conversation("g/0", ["Hello!"])
    record.outputs["order_id"] = OutputValue(value=None, type="str")
    record.errors = [ConversationError(code=1001, message="1 goals left to complete.")]
    store = make_run(tmp_path / "run", [record])
    check_run(store, tmp_path)
    failures = sections_of(write_report(store.path).read_text())["failures"]
    assert "outputs not obtained: order_id" in failures and "goals: buy a hat" in failures


def test_repeats_have_their_pass_k_section(tmp_path: Path) -> None:
    records = []
    for repeat, reply in enumerate(["Fine.", "You are stupid.", "Fine."]):
        record = conversation(f"p/{repeat}", [reply])
        record.plan, record.repeat = "p", repeat
        records.append(record)
    store = make_run(tmp_path / "run", records)
    check_run(store, tmp_path)
    rules = sections_of(write_report(store.path).read_text())["rules"]
    assert "Repeats: pass^k and flaky plans" in rules
    assert "p: pass fail pass" in rules


def test_a_tested_run_is_named_run_not_simulate(tmp_path: Path) -> None:
    store = make_run(tmp_path / "run", [conversation("a/0", ["Hello!"])])
    check_run(store, tmp_path)
    overview = sections_of(write_report(store.path).read_text())["overview"]
    assert "<th>job</th><td>simulate" in overview
    (store.path / "coverage.json").write_text(Coverage(conversations=1).model_dump_json())
    overview = sections_of(write_report(store.path).read_text())["overview"]
    assert "<th>job</th><td>run (explore → simulate → check)" in overview
