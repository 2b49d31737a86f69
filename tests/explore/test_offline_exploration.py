"""The offline exploration strategy on an in-process pizzeria: probing, crawl, model,
graph, recorded sessions, faults."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
import yaml

from sparring.connectors import ChatbotUnreachable
from sparring.conversations import RunStore
from sparring.explore import ExplorationModel, ExploreJob, ExploreSettings
from sparring.runner import start, start_async
from tests.explore.conftest import pizza_chatbot_yaml


@pytest.mark.parametrize("style", ["buttons", "text"])
def test_the_crawl_maps_the_pizzerias_flow(style: str, tmp_path: Path) -> None:
    chatbot = pizza_chatbot_yaml(tmp_path, style)
    result = start(
        ExploreJob(), ExploreSettings(chatbot=chatbot, sessions=20, turns=10), tmp_path / "run"
    ).result
    model = result.model
    assert model.strategy == "offline" and model.complete
    assert model.languages == ["en"]
    assert model.fallback == "Sorry, I didn't understand that."
    assert model.bot_type == "transactional"
    nodes = {f.id: f for f in model.functionalities}
    assert set(nodes) >= {"order_a_pizza", "choose_size", "choose_drink", "prices", "opening_hours"}
    order = nodes["order_a_pizza"]
    assert order.parameters[0].name == "pizza"
    assert order.parameters[0].options == ["Margherita", "Pepperoni", "Hawaiian"]
    assert nodes["choose_size"].parameters[0].options == ["Small", "Medium", "Large"]
    # a join: the size is asked after a menu pizza and after a custom pizza's toppings
    assert set(nodes["choose_size"].parents) == {"order_a_pizza", "custom"}
    assert nodes["custom"].parameters[0].name == "toppings"
    assert nodes["custom"].parameters[0].options == []  # free input
    assert nodes["choose_drink"].parents == ["choose_size"]
    confirmation = nodes["confirmation"]
    assert {o.name for o in confirmation.outputs} == {"price", "order_id"}  # the bot's word
    assert model.transaction_ids() == ["order_id"]  # handed out at the end of a task
    assert nodes["opening_hours"].parents == [] and nodes["prices"].parents == []
    assert all(f.strategy == "offline" for f in model.functionalities)
    assert {f.category for f in model.functionalities} == {
        "order a pizza",
        "prices",
        "opening hours",
    }


def test_the_run_holds_sessions_model_and_graph(pizza_buttons: Path, tmp_path: Path) -> None:
    result = start(
        ExploreJob(), ExploreSettings(chatbot=pizza_buttons, sessions=3, turns=4), tmp_path / "r"
    ).result
    store = RunStore.open(tmp_path / "r")
    assert store.manifest.job == "explore"
    assert store.manifest.settings["sessions"] == 3
    ids = {r.id for r in store.iter_records()}
    assert ids == {"explore/probe", "explore/crawl-001", "explore/crawl-002", "explore/crawl-003"}
    crawl = store.read("explore/crawl-001")
    assert crawl.simulator == "explore-offline"
    assert sum(t.role == "user" for t in crawl.turns) <= 4
    assert crawl.turns[0].role == "assistant" and crawl.turns[0].buttons  # the greeting
    saved = ExplorationModel.model_validate_json(store.explore_model_path.read_text())
    assert saved == result.model
    assert saved.sessions == 3
    if shutil.which("dot"):
        svg = (store.path / "explore" / "workflow.svg").read_text()
        assert "order a pizza" in svg and "<svg" in svg
        assert (store.path / "explore" / "workflow.png").stat().st_size > 1000


def test_limits_bound_the_crawl(pizza_buttons: Path, tmp_path: Path) -> None:
    small = start(
        ExploreJob(), ExploreSettings(chatbot=pizza_buttons, sessions=1, turns=2), tmp_path / "a"
    ).result
    large = start(
        ExploreJob(), ExploreSettings(chatbot=pizza_buttons, sessions=20, turns=10), tmp_path / "b"
    ).result
    assert small.model.sessions == 1 and small.model.turns <= 2
    assert len(small.model.functionalities) < len(large.model.functionalities)


class _Silent:
    """A bot that never understands: no options, one reply."""

    def respond(self, text: str) -> str:
        return "Hmm."


class _Crashing:
    def respond(self, text: str) -> str:
        raise RuntimeError("database down")


def _python_bot(folder: Path, target: str) -> Path:
    path = folder / "bot.yaml"
    params = {"target": f"test_offline_exploration:{target}", "path": str(Path(__file__).parent)}
    path.write_text(yaml.safe_dump({"connector": "python", "params": params}))
    return path


def test_a_bot_with_nothing_to_offer_gives_a_small_honest_model(tmp_path: Path) -> None:
    result = start(
        ExploreJob(),
        ExploreSettings(chatbot=_python_bot(tmp_path, "_Silent"), sessions=5),
        tmp_path / "r",
    ).result
    model = result.model
    assert model.fallback == "Hmm."  # every probe got the same reply
    assert len(model.functionalities) <= 1
    assert model.bot_type in {"informational", "unknown"}


def test_a_crashing_bot_is_recorded_and_nothing_is_invented(tmp_path: Path) -> None:
    result = start(
        ExploreJob(),
        ExploreSettings(chatbot=_python_bot(tmp_path, "_Crashing"), sessions=5),
        tmp_path / "r",
    ).result
    assert result.model.functionalities == []
    assert any("failed" in note for note in result.model.notes)
    records = list(result.store.iter_records())
    assert records and all(r.errors and r.errors[0].cause == "crash" for r in records)
    assert json.loads(result.store.explore_model_path.read_text())["functionalities"] == []


def test_a_bot_that_is_down_is_reported_before_anything_is_written(tmp_path: Path) -> None:
    chatbot = tmp_path / "down.yaml"
    chatbot.write_text(
        yaml.safe_dump({"connector": "rasa", "params": {"url": "http://127.0.0.1:9", "timeout": 2}})
    )
    script = tmp_path / "script.yaml"
    script.write_text("replies: []\n")  # any model call would raise: the script is empty
    with pytest.raises(ChatbotUnreachable):
        start(
            ExploreJob(),
            ExploreSettings(chatbot=chatbot, model=f"scripted:{script}"),
            tmp_path / "r",
        )
    assert not (tmp_path / "r").exists()


class _Slow:
    """The test pizzeria, 50 ms per reply."""

    def __init__(self) -> None:
        from tests.explore.pizza_bot import PizzaBot

        self.bot = PizzaBot()

    def greeting(self) -> dict[str, object]:
        return self.bot.greeting()

    async def respond(self, text: str) -> dict[str, object]:
        await asyncio.sleep(0.05)
        return self.bot.respond(text)


def test_an_interrupted_crawl_keeps_what_it_explored(tmp_path: Path) -> None:
    settings = ExploreSettings(chatbot=_python_bot(tmp_path, "_Slow"), sessions=30, turns=10)

    async def interrupted() -> None:
        two_sessions = asyncio.Event()

        def seen(model: ExplorationModel) -> None:
            if model.sessions >= 2:
                two_sessions.set()

        task = asyncio.create_task(
            start_async(ExploreJob(on_session=seen), settings, tmp_path / "r")
        )
        await two_sessions.wait()
        await asyncio.sleep(0.08)  # into the third session
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    saved = ExplorationModel.model_validate_json(
        (tmp_path / "r" / "explore" / "model.json").read_text()
    )
    assert not saved.complete
    assert any("interrupted" in note for note in saved.notes)
    assert 0 < saved.sessions < 30 and saved.functionalities


def test_the_cli_prints_the_model_and_writes_what_it_was_asked_for(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    chatbot = pizza_chatbot_yaml(tmp_path, "text")
    out = tmp_path / "run"
    args = ["explore", "--chatbot", str(chatbot), "--out", str(out), "--sessions", "20"]
    args += ["--graph-format", "svg", "--graph-format", "pdf", "--compact", "--top-down"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "functionalities (offline, transactional" in result.output
    assert "choose size (after order_a_pizza, custom): size [Small/Medium/Large]" in result.output
    assert f"report: {out / 'report' / 'index.html'}" in result.output
    assert list((out / "explore" / "profiles").glob("*.yaml"))
    dot = (out / "explore" / "workflow.dot").read_text()
    assert "rankdir=TB" in dot and "• size" not in dot  # top-down, compact
    if shutil.which("dot"):
        assert (out / "explore" / "workflow.pdf").read_bytes().startswith(b"%PDF")
        assert not (out / "explore" / "workflow.png").exists()


def test_an_identifier_is_named_by_the_bots_words_and_only_a_tasks_is_a_transaction_id() -> None:
    from sparring.explore._build import _id_name

    assert _id_name("The total is 14.00 $ and your order ID is ") == "order_id"
    assert _id_name("Booking reference: ") == "booking_reference"
    assert _id_name("Your ID is ") == _id_name("Ticket #") == "id"
    model = ExplorationModel.model_validate(
        {
            "functionalities": [
                {"id": "info", "name": "info", "outputs": [{"name": "product_code"}]},
                {"id": "book", "name": "book", "parameters": [{"name": "day"}]},
                {
                    "id": "done",
                    "name": "done",
                    "parents": ["book"],
                    "outputs": [
                        {"name": "booking_reference"},
                        {"name": "phone_number"},
                        {"name": "price"},
                    ],
                },
                {"id": "faq", "name": "faq", "outputs": [{"name": "ticket_id"}]},
            ]
        }
    )
    assert model.transaction_ids() == ["booking_reference"]
