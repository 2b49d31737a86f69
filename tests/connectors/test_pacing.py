"""``requests_per_minute`` spaces the messages of every conversation of a connector."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import yaml

from sparring.connectors import create_connector, greeting_of, load_chatbot_config
from tests.explore.conftest import pizza_chatbot_yaml


def _paced(tmp_path: Path, rate: float | None) -> Path:
    path = pizza_chatbot_yaml(tmp_path, "buttons")
    config = yaml.safe_load(path.read_text())
    if rate is not None:
        config["params"]["requests_per_minute"] = rate
    path.write_text(yaml.safe_dump(config))
    return path


async def _send_four(path: Path) -> float:
    connector = create_connector(load_chatbot_config(path))
    first, second = await connector.open(), await connector.open()
    assert greeting_of(first) is not None  # the wrapped conversation's attributes pass through
    started = time.perf_counter()
    await asyncio.gather(first.send("Prices"), second.send("Prices"))
    await asyncio.gather(first.send("Opening hours"), second.send("Opening hours"))
    elapsed = time.perf_counter() - started
    await connector.aclose()
    return elapsed


def test_messages_of_all_conversations_are_spaced(tmp_path: Path) -> None:
    # 600 a minute: one message every 0.1 s, shared by both conversations
    assert asyncio.run(_send_four(_paced(tmp_path, 600))) >= 0.28


def test_without_a_rate_nothing_waits(tmp_path: Path) -> None:
    assert "Paced" not in repr(create_connector(load_chatbot_config(_paced(tmp_path, None))))
