"""Builders for the report tests: a run directory with hand-made conversations, checked
with a small rule file through ``sparring.check``'s public API."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sparring.check import CheckReport
from sparring.conversations import (
    ConversationError,
    ConversationRecord,
    ModelUsage,
    OutputValue,
    RunManifest,
    RunStore,
    Turn,
)
from sparring.runner import start
from sparring.types import Button

HOSTILE = '</script><script>alert("pwned")</script><img src=x onerror=alert(1)>'
"""A chatbot reply that would run script if the report pasted it as markup."""

RULES = """\
name: polite
description: The chatbot never says "stupid"
conversations: 1
oracle: not chatbot_returns('stupid')
"""


def conversation(
    id: str,
    replies: Sequence[str],
    *,
    profile: str = "shop",
    latency: float = 0.5,
    errors: Sequence[tuple[int, int | None]] = (),
    usage: dict[str, ModelUsage] | None = None,
    simulator: str = "agenda",
) -> ConversationRecord:
    """A conversation of one user turn before each reply; the ``n``-th reply takes
    ``latency * (n + 1)`` seconds. ``errors`` are ``(code, turn)`` pairs."""
    turns: list[Turn] = []
    for n, reply in enumerate(replies):
        turns.append(Turn(role="user", text=f"user says {n}"))
        turns.append(
            Turn(
                role="assistant",
                text=reply,
                messages=[reply],
                buttons=[Button(text="Buy", link="/buy")] if n == 0 else [],
                latency=latency * (n + 1),
            )
        )
    return ConversationRecord(
        id=id,
        profile=profile,
        simulator=simulator,
        goals=["buy a hat"],
        variables={"item": "hat", "sizes": ["S", "M"]},
        turns=turns,
        outputs={"price": OutputValue(value=12.5, type="float", evidence="12.5 $")},
        errors=[ConversationError(code=c, message=f"failure {c}", turn=t) for c, t in errors],
        usage=usage or {},
        duration=1.5,
    )


def make_run(path: Path, records: Sequence[ConversationRecord]) -> RunStore:
    """A run directory holding ``records``."""
    manifest = RunManifest(
        run_id=path.name,
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        sparring_version="0.1.0",
        chatbot={"connector": "scripted", "info": {"name": "Hat shop"}},
        planned=[r.id for r in records],
    )
    store = RunStore.create(path, manifest)
    for record in records:
        store.write(record)
    return store


def check_run(store: RunStore, tmp_path: Path, rules: str = RULES) -> CheckReport:
    """Check the run with ``rules`` (one rule file) through the runner: the verdicts are
    stored in it and the check's outcome in its verdict (the manifest)."""
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    (folder / "rules.yaml").write_text(textwrap.dedent(rules), encoding="utf-8")
    run = start("check", {"rules": [str(folder)], "run": str(store.path)}, report=False)
    report: CheckReport = run.result.report
    return report


def standard_run(tmp_path: Path) -> RunStore:
    """Three conversations, checked: ``ok/0`` passes; ``rude/0`` fails the rule at its
    second reply, which is also hostile markup; ``slow/0`` times out (504) at turn 3."""
    store = make_run(
        tmp_path / "run",
        [
            conversation("ok/0", ["Hello!", "Here is your hat."]),
            conversation("rude/0", ["Hello!", f"What a stupid question {HOSTILE}", "Bye."]),
            conversation("slow/0", ["Hello!", "One moment"], errors=[(504, 3)], latency=2.0),
        ],
    )
    check_run(store, tmp_path)
    return store
