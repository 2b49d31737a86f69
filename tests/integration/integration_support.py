"""Helpers shared by the integration tests: the example bots' own helper files."""

from __future__ import annotations

import importlib.util
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def load_example_module(name: str, path: Path) -> ModuleType:
    """Import an example's helper file (they are not part of the sparring package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def rasa_bot() -> ModuleType:
    """``examples/pizzeria/rasa_bot.py``: setup, train and serve the pizzeria."""
    return load_example_module("sparring_example_rasa_bot", EXAMPLES / "pizzeria" / "rasa_bot.py")


def third_party_rasa() -> ModuleType:
    """``scripts/third_party_rasa.py``: the Rasa 1.10 bots of ``../shared/data/rasa-bots``."""
    return load_example_module(
        "sparring_third_party_rasa", REPO / "scripts" / "third_party_rasa.py"
    )


def catalogue() -> ModuleType:
    """The pizzeria's menu and price arithmetic (plain Python)."""
    path = EXAMPLES / "pizzeria" / "rasa" / "actions" / "catalogue.py"
    return load_example_module("sparring_example_pizzeria_catalogue", path)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Pizzeria:
    """A running pizzeria: its URL and a ``chatbot.yaml`` pointing at it."""

    url: str
    chatbot_yaml: Path
    log_dir: Path


@dataclass
class ThirdPartyBot:
    """A running third-party Rasa 1.10 bot: its URL, a ``chatbot.yaml`` (the ``rasa``
    connector pointed at it, nothing else known about the bot) and its published project."""

    name: str
    url: str
    chatbot_yaml: Path
    project: Path
    log_dir: Path
