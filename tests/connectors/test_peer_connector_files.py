"""SENSEI's connector files and run.yml, TRACER's custom connector and --connector-params,
accepted as they are by --chatbot and converted by `sparring import-connector`, against a
real loopback server; request bodies are compared byte for byte with what SENSEI and
TRACER send (Python's json.dumps through `requests`: ASCII escapes, ", " and ": ")."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from connector_helpers import Answer, LoopbackServer
from typer.testing import CliRunner

from sparring.cli import app
from sparring.connectors import create_connector, import_connector, load_chatbot_config
from sparring.errors import ConfigError

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


async def _say(chatbot: Path | str, text: str) -> list[str]:
    connector = create_connector(load_chatbot_config(chatbot))
    try:
        conversation = await connector.open()
        reply = await conversation.send(text)
        await conversation.close()
        return reply.messages
    finally:
        await connector.aclose()


def _sensei_generic(tmp_path: Path, url: str) -> Path:
    """A SENSEI connector file like the Julie and Dialogflow ones user-simulator ships."""
    return _write(
        tmp_path / "julie.yml",
        f"""\
        config:
          api_url: '{url}/Converse'
          headers:
            Content-Type: 'application/json'
          timeout: 5
          request_key: ["question", "meta.displayText"]
          response_key: "text"
        payload:
          userId: "4b62"
          question: "How are you?"
          meta:
            displayText: "How are you?"
            channel: Web
          n: 1
        parameters:
          - userId
        """,
    )


async def test_sensei_connector_file_is_a_chatbot_as_is(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    loopback.routes["/Converse"] = lambda r: Answer(body={"text": ["Hi Ané", "How can I help?"]})
    chatbot = _sensei_generic(tmp_path, loopback.url)
    assert await _say(chatbot, "Où est le train?") == ["Hi Ané", "How can I help?"]
    sent = loopback.received[0]
    assert sent.method == "POST"
    assert sent.raw == (
        b'{"userId": "4b62", "question": "O\\u00f9 est le train?", "meta": '
        b'{"displayText": "O\\u00f9 est le train?", "channel": "Web"}, "n": 1}'
    )
    assert sent.headers["Content-Type"] == "application/json"
    warnings = [w.message for w in load_chatbot_config(chatbot).warnings]
    assert any("userId from run.yml" in w for w in warnings)
    assert any("meta.displayText" in w for w in warnings)


async def test_form_content_type_of_the_file_is_kept_with_a_json_body(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    """Kuki's file names a form content type, yet SENSEI posts JSON: both are kept."""
    loopback.routes["/cptalk"] = lambda r: Answer(body={"responses": ["Hi there."]})
    chatbot = _write(
        tmp_path / "kuki.yml",
        f"""\
        config:
            api_url: "{loopback.url}/cptalk"
            headers:
                Content-Type: 'application/x-www-form-urlencoded'
            request_key: "input"
            response_key: "responses"
        payload: {{uid: '', input: 'Hello', sessionid: ''}}
        """,
    )
    assert await _say(chatbot, "hey") == ["Hi there."]
    sent = loopback.received[0]
    assert sent.raw == b'{"uid": "", "input": "hey", "sessionid": ""}'
    assert sent.headers["Content-Type"] == "application/x-www-form-urlencoded"


async def test_run_yml_1_1_5_technology_and_connector_params(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    host, port = loopback.url.rsplit(":", 1)
    loopback.routes["/conversation/new"] = lambda r: Answer(body={"id": "c1", "message": "Hi"})
    loopback.routes["/conversation/user_message"] = lambda r: Answer(body={"message": "Pizza?"})
    _write(
        tmp_path / "run.yml",
        f"""\
        project_folder: pizza
        user_profile: profiles
        technology: taskyto
        connector_params: "base_url={host},port={port}"
        execution_parameters:
          - verbose
        """,
    )
    assert await _say(tmp_path, "I want a pizza") == ["Pizza?"]  # the project folder
    assert [r.path for r in loopback.received] == [
        "/conversation/new",
        "/conversation/user_message",
    ]
    assert loopback.received[1].body == {"id": "c1", "message": "I want a pizza"}


async def test_earlier_run_yml_overrides_the_connector_files_parameters(
    tmp_path: Path, loopback: LoopbackServer
) -> None:
    loopback.routes["/Converse"] = lambda r: Answer(body={"text": "ok"})
    _sensei_generic(tmp_path, "http://127.0.0.1:9")  # unreachable until overridden
    _write(
        tmp_path / "run.yml",
        f"""\
        project_folder: julie
        technology:
        connector: julie.yml
        connector_parameters:
          api_url: {loopback.url}/Converse
          userId: u-77
        """,
    )
    config = load_chatbot_config(tmp_path / "run.yml")
    assert config.warnings and not any("userId from run.yml" in w.message for w in config.warnings)
    assert await _say(tmp_path / "run.yml", "hi") == ["ok"]
    assert loopback.received[0].body["userId"] == "u-77"


async def test_tracer_custom_connector_yaml_as_is(tmp_path: Path, loopback: LoopbackServer) -> None:
    loopback.routes["/chat"] = lambda r: Answer(body={"messages": [{"content": "¡Hola!"}]})
    chatbot = _write(
        tmp_path / "custom.yml",
        f"""\
        name: "My Custom Bot"
        base_url: "{loopback.url}/api"
        timeout: 5
        send_message:
          path: "/chat"
          method: "POST"
          payload_template:
            message: "{{user_msg}}"
            context: {{lang: es, tags: [a, b], on: true, none: null}}
        response_path: "messages.0.content"
        """,
    )
    assert await _say(chatbot, "¿qué tal?") == ["¡Hola!"]
    sent = loopback.received[0]
    assert sent.path == "/chat"  # urljoin("…/api", "chat"), as TRACER joins them
    assert sent.raw == (
        b'{"message": "\\u00bfqu\\u00e9 tal?", "context": {"lang": "es", "tags": ["a", "b"], '
        b'"on": true, "none": null}}'
    )
    [warning] = load_chatbot_config(chatbot).warnings
    assert warning.key == "send_message.path" and warning.line == 5


async def test_tracer_technology_and_connector_params_as_chatbot(
    loopback: LoopbackServer,
) -> None:
    loopback.routes["/webhooks/rest/webhook"] = lambda r: Answer(body=[{"text": "Woof"}])
    spec = f'rasa:{{"base_url": "{loopback.url}"}}'
    assert await _say(spec, "hi") == ["Woof"]
    assert await _say(Path(f"rasa:base_url={loopback.url}"), "hi") == ["Woof"]  # via a Path
    resolved = Path(f"rasa:base_url={loopback.url}").resolve()  # as a job's settings keep it
    assert await _say(resolved, "hi") == ["Woof"]
    assert [r.body["message"] for r in loopback.received] == ["hi", "hi", "hi"]


def test_taskyto_port_is_appended_as_tracer_does() -> None:
    config = import_connector(None, "taskyto", "base_url=http://bot.test,port=8080")
    assert config.params.model_dump()["url"] == "http://bot.test:8080"
    config = import_connector("taskyto:base_url=http://bot.test:5001")
    assert config.params.model_dump()["url"] == "http://bot.test:5001"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("millionbot:bot=1", "one hosted bot"),
        ("rasa:port=1", "base_url"),
        ('rasa:{"base_url": ', "cannot read the connector params"),
    ],
)
def test_unusable_specs_are_refused_with_the_reason(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_chatbot_config(spec)


def test_sensei_file_without_request_key_needs_its_technology(tmp_path: Path) -> None:
    bot = _write(tmp_path / "bot.yml", "config:\n  api_url: http://bot.test\n  timeout: 9\n")
    with pytest.raises(ConfigError, match="name the technology") as caught:
        load_chatbot_config(bot)
    assert caught.value.problems[0].line == 1 and caught.value.problems[0].key == "config"
    config = import_connector(str(bot), technology="taskyto")
    assert (config.connector, config.params.timeout) == ("taskyto", 9)


def test_import_connector_writes_a_chatbot_yaml_that_loads_the_same(tmp_path: Path) -> None:
    source = _sensei_generic(tmp_path, "http://bot.test")
    out = tmp_path / "chatbot.yaml"
    result = CliRunner().invoke(app, ["import-connector", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning" in result.stderr and "userId" in result.stderr
    assert out.read_text(encoding="utf-8").startswith("connector: rest\n")
    assert load_chatbot_config(out).params == load_chatbot_config(source).params


def test_import_connector_refuses_a_hosted_technology() -> None:
    result = CliRunner().invoke(app, ["import-connector", "-t", "botslovers"])
    assert isinstance(result.exception, ConfigError)
    assert "hosted bot" in str(result.exception)


@pytest.mark.skipif(not (SHARED / "rasa-bots").is_dir(), reason="../shared/data is absent")
def test_published_veterinary_run_and_connector_file() -> None:
    folder = SHARED / "rasa-bots" / "veterinary" / "sensei"
    for source in (folder, folder / "run.yml", folder / "rasa-connector.yml"):
        config = load_chatbot_config(source)
        assert config.connector == "rasa"
        assert config.params.model_dump()["url"] == "http://localhost:5005/webhooks/rest/webhook"


def test_validate_reads_peer_files_and_prints_their_warnings(tmp_path: Path) -> None:
    julie = _sensei_generic(tmp_path, "http://bot.test")
    tracer = _write(tmp_path / "custom.yml", "base_url: http://bot.test/\nsend_message: {}\n")
    bad = _write(tmp_path / "ada.yml", "config: {timeout: 20}\npayload: {bot: x}\n")
    result = CliRunner().invoke(app, ["validate", str(julie), str(tracer), str(bad)])
    assert result.exit_code == 2
    assert f"OK chatbot {julie}" in result.stdout and f"OK chatbot {tracer}" in result.stdout
    assert "userId from run.yml" in result.stderr
    assert "ada.yml:1 [config.api_url]: no api_url" in result.stderr


def test_the_docs_sensei_example_loads(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "connectors.md"
    [example] = [
        b for b in doc.read_text(encoding="utf-8").split("```yaml\n") if b.startswith("config:")
    ]
    config = load_chatbot_config(_write(tmp_path / "julie.yml", example.split("```")[0]))
    assert config.connector == "rest"
    assert (
        config.params.model_dump()["send_message"]["payload_template"]["question"] == "{user_msg}"
    )
