"""Shared helpers of the LLM exploration tests: a run over a chatbot.yaml (connector,
run store, exploration context, checkpoints kept) and chatbot.yaml files for the bots
in this folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from sparring.connectors import Connector, create_connector, load_chatbot_config
from sparring.conversations import ConversationRecord, RunManifest, RunStore
from sparring.explore import ExplorationContext, ExplorationModel, Findings

HERE = Path(__file__).resolve().parent


@dataclass
class Run:
    """An exploration context over a chatbot.yaml, with the checkpoints it received."""

    ctx: ExplorationContext
    store: RunStore
    checkpoints: list[ExplorationModel] = field(default_factory=list)

    def record(self, name: str) -> ConversationRecord:
        """The record of session ``name`` (id ``explore/<name>``)."""
        return self.store.read(f"explore/{name}")

    def user_messages(self, name: str) -> list[str]:
        """What the explorer sent in session ``name``."""
        return [t.text for t in self.record(name).turns if t.role == "user"]


def bot_yaml(folder: Path, target: str, **kwargs: Any) -> Path:
    """A chatbot.yaml for a bot class in this folder (``target``: ``module:Class``)."""
    config = {
        "connector": "python",
        "params": {"target": target, "path": str(HERE), "kwargs": kwargs, "timeout": 5},
        "info": {"name": target.split(":")[1]},
    }
    path = folder / f"{target.split(':')[1]}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture(name="make_run")
async def make_run_fixture(tmp_path: Path) -> AsyncIterator[Callable[..., Run]]:
    """``make_run(chatbot_yaml, sessions=4, turns=6, name="run")`` → a ``Run`` with
    offline findings ``languages=["en"]``; connectors are closed at the end."""
    connectors: list[Connector] = []

    def make(chatbot: Path, *, sessions: int = 4, turns: int = 6, name: str = "run") -> Run:
        config = load_chatbot_config(chatbot)
        connector = create_connector(config)
        connectors.append(connector)
        manifest = RunManifest(
            run_id=name,
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
            sparring_version="0.0.0",
            job="explore",
        )
        store = RunStore.create(tmp_path / name, manifest)
        run = Run(ExplorationContext(connector, store, config.info, sessions, turns), store)
        run.ctx.findings = Findings(languages=["en"])
        run.ctx.checkpoint = run.checkpoints.append
        return run

    yield make
    for connector in connectors:
        await connector.aclose()
