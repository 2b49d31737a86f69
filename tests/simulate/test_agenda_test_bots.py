"""The agenda user on the four test bots of other domains (``tests/bots``: dental clinic,
bank, train tickets, car rental), not only on the hotel bot its rules were first read from:
with each bot's own profiles, the correct variant leaves no goal unmet (the user answers the
slot each request asks for, takes a price list as information, accepts a correct read-back),
and a bot whose confirmation states another value than the user gave is contradicted, the
goal failure naming the value the bot stated (issue 31)."""

from __future__ import annotations

from pathlib import Path

import bots
import pytest

from sparring.conversations import ConversationRecord, RunStore
from sparring.runner import start
from sparring.simulate import SimulateJob, SimulateSettings

WRONG_CONFIRMATION = {"dental": "wrong_time", "train": "wrong_train", "carrental": "wrong_branch"}


def _simulate(name: str, bugs: list[str], tmp_path: Path) -> list[ConversationRecord]:
    chatbot = bots.python_chatbot(name, bugs, tmp_path)
    settings = SimulateSettings(profiles=[bots.BOTS[name].profiles], chatbot=chatbot, seed=1)
    start(SimulateJob(), settings, tmp_path / "run")
    return list(RunStore.open(tmp_path / "run").iter_records())


@pytest.mark.parametrize("name", sorted(bots.BOTS))
def test_the_correct_variant_meets_every_goal(name: str, tmp_path: Path) -> None:
    records = _simulate(name, [], tmp_path)
    assert records
    failed = {r.id: [e.message for e in r.errors] for r in records if r.errors}
    assert failed == {}


@pytest.mark.parametrize("name", sorted(WRONG_CONFIRMATION))
def test_a_wrong_confirmation_is_not_taken_for_a_met_goal(name: str, tmp_path: Path) -> None:
    """The train's is a departure the user chose among those the bot offered: a value of
    that slot as much as one of the profile's, so a ticket naming another departure is
    contradicted (``_agenda_state.AgendaState.offered``)."""
    records = _simulate(name, [WRONG_CONFIRMATION[name]], tmp_path)
    reasons = [e.message for r in records for e in r.errors]
    assert any("stated another" in reason for reason in reasons), reasons
