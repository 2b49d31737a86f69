"""The third-party Rasa 1.10 bots run here as published (``scripts/third_party_rasa.py``).

Without Rasa: the helper's locations, fingerprints and refusals. With the runtime set up:
each bot answers through sparring's ``rasa`` connector, and its form asks for its slots.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from integration_support import ThirdPartyBot, third_party_rasa

from sparring.connectors import create_connector, load_chatbot_config

helper = third_party_rasa()


def test_locations_follow_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARRING_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SPARRING_RASA110_VENV", raising=False)
    assert helper.venv_dir() == tmp_path / "cache" / "rasa110-venv"
    assert not helper.venv_is_ready()


def test_refusals_name_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARRING_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SPARRING_RASA110_VENV", raising=False)
    monkeypatch.setenv("SPARRING_RASA110_PYTHON", str(tmp_path / "no-such-python"))
    with pytest.raises(helper.RasaSetupError, match=r"Python 3\.7"):
        helper.setup_venv()
    monkeypatch.setenv("SPARRING_SHARED_DATA", str(tmp_path / "no-data"))
    with pytest.raises(helper.RasaSetupError, match="not set up"):
        helper.servers("veterinary", 1, 2)
    assert helper.main(["status"]) == 0


def test_the_fingerprint_follows_the_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not helper.source_project("veterinary").is_dir():
        pytest.skip("../shared/data/rasa-bots is missing")
    copy = tmp_path / "data" / helper.BOTS["veterinary"]
    shutil.copytree(helper.source_project("veterinary"), copy)
    monkeypatch.setenv("SPARRING_SHARED_DATA", str(tmp_path / "data"))
    before = helper.model_fingerprint("veterinary")
    (copy / "data" / "nlu.md").write_text((copy / "data" / "nlu.md").read_text() + "\n")
    assert helper.model_fingerprint("veterinary") != before


async def _talk(bot: ThirdPartyBot, utterances: list[str]) -> list[str]:
    connector = create_connector(load_chatbot_config(bot.chatbot_yaml))
    conversation = await connector.open()
    try:
        return [" ".join((await conversation.send(text)).messages) for text in utterances]
    finally:
        await conversation.close()
        await connector.aclose()


@pytest.mark.integration
async def test_the_veterinary_clinic_asks_for_its_appointment_slots(
    veterinary_bot: ThirdPartyBot,
) -> None:
    replies = await _talk(veterinary_bot, ["Hello", "I would like to make an appointment"])
    assert all(replies), replies
    assert any(word in replies[1].lower() for word in ("date", "when", "service", "day")), replies


@pytest.mark.integration
async def test_the_bike_shop_answers_its_opening_hours(bikeshop_bot: ThirdPartyBot) -> None:
    replies = await _talk(bikeshop_bot, ["Hi", "When are you open?"])
    assert all(replies), replies
