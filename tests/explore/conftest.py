"""Fixtures for exploration tests: the in-process pizzeria of ``pizza_bot.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent


def pizza_chatbot_yaml(folder: Path, style: str = "buttons", *, fallback: bool = False) -> Path:
    """Write a chatbot.yaml for the test pizzeria (``style``: buttons or text) into
    ``folder``; ``fallback`` puts the bot's fallback phrase into ``info``."""
    info: dict[str, object] = {"name": "Mini Pizza"}
    if fallback:
        info["fallback"] = "Sorry, I didn't understand that."
    config = {
        "connector": "python",
        "params": {
            "target": "pizza_bot:PizzaBot",
            "path": str(HERE),
            "kwargs": {"style": style},
            "timeout": 5,
        },
        "info": info,
    }
    path = folder / f"pizza-{style}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture
def pizza_buttons(tmp_path: Path) -> Path:
    """chatbot.yaml of the test pizzeria that offers buttons."""
    return pizza_chatbot_yaml(tmp_path, "buttons")


@pytest.fixture
def pizza_text(tmp_path: Path) -> Path:
    """chatbot.yaml of the test pizzeria that announces its options in text."""
    return pizza_chatbot_yaml(tmp_path, "text")
