from __future__ import annotations

import random

from sparring.connectors import Reply
from sparring.conversations import ErrorCode
from sparring.simulate._agenda import AgendaSimulator
from sparring.simulate._runner import RunnerLimits, run_conversation
from sparring.simulate._spec import ConversationSpec, OutputSpec, StopCondition

from .fakes import FakeConnector, crashing_bot, empty_bot, parrot_bot, pizza_bot, value_said


def pizza_spec(**overrides: object) -> ConversationSpec:
    base: dict[str, object] = dict(
        id="pizza/0",
        profile="pizza",
        goals=("I want a pizza", "how much will it cost"),
        variables={"size": "medium", "drink": "coke"},
        alternatives={"size": ["small", "medium", "large"], "drink": ["coke", "water"]},
        fallback="Sorry, I didn't get that.",
        outputs=(
            OutputSpec("price", "money", "the final price"),
            OutputSpec("order_id", "str", "order ID"),
        ),
        stop=StopCondition("all_answered", limit=8),
    )
    base.update(overrides)
    return ConversationSpec(**base)  # type: ignore[arg-type]


async def run(spec: ConversationSpec, respond, limits: RunnerLimits | None = None):  # type: ignore[no-untyped-def]
    connector = FakeConnector(respond)
    record = await run_conversation(
        spec, connector, AgendaSimulator(spec, random.Random(0)), limits=limits
    )
    assert all(c.closed for c in connector.opened)
    return record


async def test_agenda_answers_the_bots_questions_and_extracts_outputs() -> None:
    record = await run(pizza_spec(), pizza_bot)
    users = [t.text for t in record.turns if t.role == "user"]
    assert users[0] == "I want a pizza"
    assert value_said(users[1]) == "medium"  # answered the size question with the picked value
    assert value_said(users[2]) == "coke"  # typed the offered option that names the goal value
    assert record.outputs["price"].value is not None
    assert "ab12cd" in str(record.outputs["order_id"].value)
    assert record.errors == []
    assert all(t.latency is not None for t in record.turns if t.role == "assistant")


async def test_buttons_are_pressed_only_when_asked_to() -> None:
    spec = pizza_spec()
    connector = FakeConnector(pizza_bot)
    simulator = AgendaSimulator(spec, random.Random(0), press_buttons=True)
    record = await run_conversation(spec, connector, simulator)
    assert [t.text for t in record.turns if t.role == "user"][2] == "/drink_coke"


async def test_chatbot_crash_is_recorded_and_conversation_ends() -> None:
    record = await run(pizza_spec(), crashing_bot)
    assert [e.code for e in record.errors] == [int(ErrorCode.NO_RESPONSE)]
    assert len([t for t in record.turns if t.role == "user"]) == 2


async def test_empty_reply_is_recorded_as_no_response() -> None:
    record = await run(pizza_spec(), empty_bot)
    assert record.errors[0].code == 500
    assert "empty" in record.errors[0].message


async def test_hanging_chatbot_times_out() -> None:
    connector = FakeConnector(pizza_bot, latency=5)
    spec = pizza_spec()
    record = await run_conversation(
        spec, connector, AgendaSimulator(spec), limits=RunnerLimits(reply_timeout=0.05)
    )
    assert [e.code for e in record.errors] == [504]


async def test_repeated_reply_ends_conversation_with_own_code() -> None:
    spec = pizza_spec(goals=("a", "b", "c", "d", "e"), fallback=None, outputs=())
    record = await run(spec, parrot_bot, RunnerLimits(repeat_limit=3))
    assert [e.code for e in record.errors] == [int(ErrorCode.REPEATED_REPLY)]
    assert len([t for t in record.turns if t.role == "assistant"]) == 3


async def test_steps_stop_condition_is_enforced() -> None:
    spec = pizza_spec(
        goals=tuple(f"goal {i}" for i in range(10)),
        stop=StopCondition("steps", steps=4),
        outputs=(),
    )
    record = await run(spec, lambda t, i: Reply(messages=[f"answer {i}"]))
    assert len([t for t in record.turns if t.role == "user"]) == 4
    assert record.errors == []


async def test_all_answered_limit_reports_goals_left() -> None:
    spec = pizza_spec(
        goals=tuple(f"goal {i}" for i in range(6)),
        stop=StopCondition("all_answered", limit=2),
        outputs=(),
    )
    record = await run(spec, lambda t, i: Reply(messages=[f"answer {i}"]))
    assert [e.code for e in record.errors] == [1001]
    message = record.errors[0].message
    assert message.startswith("4 goals left to complete: goal 'goal 2': never reached")
    assert "goal 'goal 5'" in message and "goal 'goal 1'" not in message


async def test_hard_loop_limit_records_1000() -> None:
    spec = pizza_spec(
        goals=tuple(f"goal {i}" for i in range(50)), stop=StopCondition("all_answered"), outputs=()
    )
    record = await run(
        spec, lambda t, i: Reply(messages=[f"answer {i}"]), RunnerLimits(max_turns=5)
    )
    assert int(ErrorCode.EXCEEDED_LOOP_LIMIT) in [e.code for e in record.errors]


async def test_fallback_makes_the_user_rephrase_then_change_topic() -> None:
    spec = pizza_spec(
        goals=("first goal", "second goal"), outputs=(), stop=StopCondition("steps", steps=5)
    )
    record = await run(
        spec,
        lambda t, i: Reply(messages=["Sorry, I didn't get that."]),
        RunnerLimits(repeat_limit=0),
    )
    users = [t.text for t in record.turns if t.role == "user"]
    assert users[0] == "First goal"
    assert "first goal" in users[1].lower() and users[1] != users[0]  # rephrased
    assert "first goal" in users[2].lower() and users[2] not in users[:2]
    assert all(u.count("goal") == 1 for u in users)  # rephrasings never nest
    assert users[3] == "Second goal"  # three fallbacks on the goal: moved on
    assert any("moved on from goal 'first goal' after 3 fallbacks" in n for n in record.notes)


async def test_change_language_without_model_is_noted_not_dropped() -> None:
    spec = pizza_spec(interaction_styles=({"change language": ["italian"]},))
    record = await run(spec, pizza_bot)
    assert any("change language" in n for n in record.notes)


async def test_same_seed_same_conversation() -> None:
    spec = pizza_spec(interaction_styles=("make spelling mistakes", "long phrases"))
    a = await run(spec, pizza_bot)
    b = await run(spec, pizza_bot)
    assert [t.text for t in a.turns] == [t.text for t in b.turns]


async def test_chatbot_greeting_opens_the_conversation_when_it_is_the_starter() -> None:
    class Greeting(FakeConnector):
        async def open(self):  # type: ignore[no-untyped-def]
            conversation = await super().open()
            conversation.greeting = Reply(messages=["Welcome! What would you like?"])  # type: ignore[attr-defined]
            return conversation

    starter = await run_conversation(
        pizza_spec(is_starter=True), Greeting(pizza_bot), AgendaSimulator(pizza_spec())
    )
    assert starter.turns[0].role == "assistant"
    assert starter.turns[0].text == "Welcome! What would you like?"
    user_first = await run_conversation(
        pizza_spec(is_starter=False), Greeting(pizza_bot), AgendaSimulator(pizza_spec())
    )
    assert user_first.turns[0].role == "user"


async def test_change_your_mind_asks_for_another_option_then_corrects() -> None:
    spec = pizza_spec(interaction_styles=("change your mind",))
    record = await run(spec, pizza_bot)
    users = [t.text for t in record.turns if t.role == "user"]
    answer = users[1]  # the reply to the size question
    assert "medium" in answer
    assert any(other in answer for other in ("small", "large"))
    assert answer.index("medium") > min(answer.find(o) for o in ("small", "large") if o in answer)


async def test_replies_that_differ_in_a_number_are_not_a_loop() -> None:
    spec = pizza_spec(goals=tuple(f"goal {i}" for i in range(5)), fallback=None, outputs=())
    record = await run(spec, lambda t, i: Reply(messages=[f"ok: utterance {i + 1}"]))
    assert record.errors == []
    users = [t.text for t in record.turns if t.role == "user"]
    assert len(users) == 6 and users[-1] == "Thank you, goodbye!"  # every goal met


async def test_a_goal_whose_values_were_already_asked_for_is_not_sent_again() -> None:
    spec = pizza_spec(
        goals=("I want a pizza", "a medium pizza", "I will drink coke", "how much will it cost"),
        goal_templates=(
            "I want a pizza",
            "a {{size}} pizza",
            "I will drink {{drink}}",
            "how much will it cost",
        ),
    )
    record = await run(spec, pizza_bot)
    users = [t.text for t in record.turns if t.role == "user"]
    assert [value_said(u) for u in users[:3]] == ["I want a pizza", "medium", "coke"]
    assert not any("medium pizza" in u or "drink coke" in u for u in users)
    assert "How much will it cost?" in users
