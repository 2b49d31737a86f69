"""Helpers for the runner tests: stop a job after its n-th item, and what a run holds."""

from __future__ import annotations

from pathlib import Path

from sparring.conversations import RunStore
from sparring.jobs import JobEvent, StopSignal
from sparring.jobs.events import ItemDone


class StopAfter:
    """An ``on_event`` listener that requests a stop once ``items`` items are done, and
    keeps every event it saw."""

    def __init__(self, items: int) -> None:
        self.items = items
        self.stop = StopSignal()
        self.events: list[JobEvent] = []

    def __call__(self, event: JobEvent) -> None:
        self.events.append(event)
        if sum(isinstance(e, ItemDone) for e in self.events) >= self.items:
            self.stop.request()

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


def conversations(run_dir: Path) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each stored conversation's id and turns (role, text): what two runs must share."""
    return [
        (r.id, [(t.role, t.text) for t in r.turns])
        for r in RunStore.open(run_dir, clean=False).iter_records()
    ]
