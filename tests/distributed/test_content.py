"""What a chunk carries instead of a copy of the project (``sparring.distributed._content``):
the planned specs and the chatbot's configuration survive the trip as JSON, the content
is fetched by digest into the worker's cache, and a worker that cannot get it, or gets
altered content, refuses naming the setting. Redis is Debian's ``redis-server`` on a free
loopback port (skips without it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("celery")

import redis

from sparring.connectors import create_connector, load_chatbot_config
from sparring.distributed._content import (
    blob_key,
    chatbot_content,
    chatbot_from,
    digest_of,
    fetch,
    publish,
    specs_from,
    specs_json,
)
from sparring.distributed._policy import Refused
from sparring.errors import ConfigError
from sparring.simulate import SimulateSettings, planned_specs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("bot", ["dental", "bank", "train", "carrental"])
def test_planned_specs_survive_the_trip_as_json(bot: str) -> None:
    folder = ROOT / "tests" / "bots" / bot
    settings = SimulateSettings(
        profiles=[folder / "profiles"], chatbot=folder / "chatbot.yaml", seed=3
    )
    specs = asyncio.run(planned_specs(settings))
    assert specs
    assert specs_from(specs_json(specs)) == specs


def test_the_pizzeria_personas_survive_the_trip(tmp_path: Path) -> None:
    """A persona (a ``PersonaFile`` inside the spec) and a chatbot's ``info`` come back
    equal, so the worker's simulator plays the same user."""
    persona = tmp_path / "hurried.yaml"
    persona.write_text(
        "name: Rosa Delgado\ntype: challenging\ntask: Order a pizza and a drink.\n"
        "description: You are Rosa, always in a rush.\n"
        "behaviours: [short_turns, typos, change_goal]\n"
    )
    data = ROOT / "tests" / "simulate" / "data"
    settings = SimulateSettings(
        profiles=[data / "profiles"], personas=[persona], chatbot=data / "chatbot.yaml"
    )
    specs = asyncio.run(planned_specs(settings))
    assert any(spec.persona is not None for spec in specs)
    assert specs_from(specs_json(specs)) == specs


def test_the_chatbot_configuration_keeps_its_variables_unresolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chatbot = tmp_path / "chatbot.yaml"
    chatbot.write_text(
        "connector: rasa\nparams:\n  url: http://127.0.0.1:5005\n"
        '  headers:\n    Authorization: "Bearer ${BOT_TOKEN}"\n'
    )
    monkeypatch.setenv("BOT_TOKEN", "coordinator-secret-91f")
    content = chatbot_content(load_chatbot_config(chatbot))
    assert b"${BOT_TOKEN}" in content and b"coordinator-secret-91f" not in content
    elsewhere = Path("/nowhere/project/chatbot.yaml")
    config = chatbot_from(content, elsewhere)
    assert chatbot_content(config) == content
    # the worker fills ${BOT_TOKEN} from its own environment when it builds the connector
    monkeypatch.delenv("BOT_TOKEN")
    with pytest.raises(ConfigError) as error:
        create_connector(config)
    assert "params.headers.Authorization" in str(error.value)
    assert "/nowhere/project/chatbot.yaml" in str(error.value)


def test_content_is_fetched_by_digest_and_cached(
    client: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARRING_WORKER_CACHE", str(tmp_path / "cache"))
    content = b'{"connector":"rasa"}'
    digest = publish(client, content)
    assert digest == digest_of(content)
    assert fetch(client, digest, "chatbot") == content
    assert (tmp_path / "cache" / digest).read_bytes() == content
    client.delete(blob_key(digest))  # gone from Redis (emptied): the cache still serves
    assert fetch(client, digest, "chatbot") == content


def test_missing_or_altered_content_is_refused_naming_the_setting(
    client: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARRING_WORKER_CACHE", str(tmp_path / "cache"))
    absent = digest_of(b"never published")
    with pytest.raises(Refused) as missing:
        fetch(client, absent, "chatbot")
    assert str(missing.value).startswith("settings.chatbot: its content (digest ")
    assert "neither in this worker's cache" in str(missing.value)
    # whoever can write to Redis replaces the content behind a digest: refused
    digest = digest_of(b'{"connector":"rasa"}')
    client.set(blob_key(digest), b'{"connector":"python"}')
    with pytest.raises(Refused) as altered:
        fetch(client, digest, "chatbot")
    assert "does not match its digest" in str(altered.value)
    assert not (tmp_path / "cache" / digest).exists()
    # and an altered cached copy is not trusted either: fetched again
    (tmp_path / "cache").mkdir(exist_ok=True)
    (tmp_path / "cache" / digest).write_bytes(b"tampered")
    client.set(blob_key(digest), b'{"connector":"rasa"}')
    assert fetch(client, digest, "chatbot") == b'{"connector":"rasa"}'


def _forged_chunk(
    client: redis.Redis, chatbot_path: Path, config: bytes, marker: Path
) -> dict[str, object]:
    """A well-formed chunk whose configuration, published by digest, is a ``python``
    connector calling ``os:system`` with a goal that writes ``marker``."""
    from sparring.distributed._messages import sender
    from sparring.simulate import ConversationSpec

    spec = ConversationSpec(id="c1", profile="forged", goals=(f"touch {marker}",))
    settings = SimulateSettings(profiles=[chatbot_path.parent], chatbot=chatbot_path)
    client.set("sparring:run:forged:session", "s1")
    client.hset("sparring:run:forged:owner", "s1-c0", "t1")
    return {
        "run": "forged",
        "session": "s1",
        "token": "t1",
        "chunk": "s1-c0",
        "ids": ["c1"],
        "specs": specs_json([spec]),
        "settings": settings.model_dump(mode="json"),
        "max_attempts": 3,
        "files": {"chatbot": publish(client, config)},
        **sender(),
    }


def test_a_forged_chunk_whose_configuration_runs_code_is_refused(
    client: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever writes to Redis and the broker sends a chunk whose configuration is
    ``connector: python`` with ``target: os:system``: the worker never uses code from a
    message — outside its roots the path is refused, inside them its own file is read and
    must have the message's digest."""
    from sparring.connectors import ChatbotConfig
    from sparring.distributed._tasks import simulate_chunk

    port = client.connection_pool.connection_kwargs["port"]
    monkeypatch.setenv("SPARRING_BROKER_URL", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setenv("SPARRING_WORKER_CACHE", str(tmp_path / "cache"))
    roots = tmp_path / "roots"
    (roots / "project").mkdir(parents=True)
    monkeypatch.setenv("SPARRING_WORKER_ROOTS", str(roots))
    forged = ChatbotConfig.model_validate(
        {"connector": "python", "params": {"target": "os:system"}}
    )
    marker = tmp_path / "pwned"
    outside = _forged_chunk(
        client, tmp_path / "elsewhere" / "chatbot.yaml", chatbot_content(forged), marker
    )
    assert simulate_chunk(outside) == "refused"
    own = roots / "project" / "chatbot.yaml"  # the operator's own bot, under the roots
    own.write_text("connector: python\nparams:\n  target: alice_bot:respond\n")
    inside = _forged_chunk(client, own, chatbot_content(forged), marker)
    assert simulate_chunk(inside) == "refused"
    assert not marker.exists()
    results = [json.loads(r) for r in client.lrange("sparring:run:forged:results", 0, -1)]
    assert [r["status"] for r in results] == ["refused", "refused"]
    assert "is outside this worker's roots" in results[0]["error"]
    assert "runs code, read from this worker's copy, which differs" in results[1]["error"]
