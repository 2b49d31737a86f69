"""Fixtures that start real third-party chatbots; each skips where its runtime is missing.

- ``pizzeria``: the example Rasa 3.6 bot (``examples/pizzeria``), its action server and
  ``rasa run --enable-api`` on free loopback ports, for the whole session. Skips unless
  the Rasa venv (``$SPARRING_RASA_VENV``) is set up and the model for the current training
  data is trained (``python examples/pizzeria/rasa_bot.py setup && … train``).
- ``veterinary_bot``, ``bikeshop_bot``: the third-party Rasa 1.10 bots of
  ``../shared/data/rasa-bots`` (``scripts/third_party_rasa.py``), each with its action server
  on free loopback ports for the whole session. Skip unless the shared data is present, the
  Rasa 1.10 venv is set up and the bot's model is trained (``python
  scripts/third_party_rasa.py setup && … train all``). They keep module-level state: talk to
  them at concurrency 1.
- ``alice_dir``: ``examples/alice``; skips when ``aiml`` is not importable.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from integration_support import (
    EXAMPLES,
    Pizzeria,
    ThirdPartyBot,
    free_port,
    rasa_bot,
    third_party_rasa,
)


@pytest.fixture(scope="session")
def pizzeria(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pizzeria]:
    """The example Rasa pizzeria on free ports (see the module docstring)."""
    bot = rasa_bot()
    if not bot.venv_is_ready():
        pytest.skip(f"Rasa venv not set up at {bot.venv_dir()} (rasa_bot.py setup)")
    if not bot.model_path().exists():
        pytest.skip(f"pizzeria model not trained for the current data: {bot.model_path()}")
    folder = tmp_path_factory.mktemp("pizzeria")
    servers = bot.RasaServers(free_port(), free_port(), log_dir=folder)
    config = yaml.safe_load((EXAMPLES / "pizzeria" / "chatbot.yaml").read_text())
    config["params"]["url"] = servers.url
    chatbot_yaml = folder / "chatbot.yaml"
    chatbot_yaml.write_text(yaml.safe_dump(config))
    with servers:
        servers.wait_ready(timeout=300)
        yield Pizzeria(servers.url, chatbot_yaml, folder)


@pytest.fixture(scope="session")
def alice_dir() -> Path:
    """``examples/alice``; skips when the ``aiml`` package is missing."""
    pytest.importorskip("aiml")
    return EXAMPLES / "alice"


def _third_party_bot(name: str, folder: Path) -> Iterator[ThirdPartyBot]:
    helper = third_party_rasa()
    if not helper.source_project(name).is_dir():
        pytest.skip(f"shared data missing: {helper.source_project(name)}")
    if not helper.venv_is_ready():
        pytest.skip(f"Rasa 1.10 venv not set up at {helper.venv_dir()} (third_party_rasa.py setup)")
    if shutil.which("java") is None:
        pytest.skip("no java on the PATH: the bots' custom actions run duckling on the JVM")
    if not helper.model_path(name).exists():
        pytest.skip(f"{name} not trained: {helper.model_path(name)} (third_party_rasa.py train)")
    servers = helper.servers(name, free_port(), free_port(), log_dir=folder)
    config = {
        "connector": "rasa",
        "params": {"url": servers.url, "timeout": 30},
        "info": {"name": name, "languages": ["en"]},
    }
    chatbot_yaml = folder / "chatbot.yaml"
    chatbot_yaml.write_text(yaml.safe_dump(config))
    with servers:
        servers.wait_ready(timeout=600)  # 1-5 min on a loaded 2-core machine
        yield ThirdPartyBot(name, servers.url, chatbot_yaml, helper.source_project(name), folder)


@pytest.fixture(scope="session")
def veterinary_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThirdPartyBot]:
    """The third-party veterinary clinic (Rasa 1.10) on free ports (see the module docstring)."""
    yield from _third_party_bot("veterinary", tmp_path_factory.mktemp("veterinary"))


@pytest.fixture(scope="session")
def bikeshop_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThirdPartyBot]:
    """The third-party bike shop (Rasa 1.10) on free ports (see the module docstring)."""
    yield from _third_party_bot("bikeshop", tmp_path_factory.mktemp("bikeshop"))
