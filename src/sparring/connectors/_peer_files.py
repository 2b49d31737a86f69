"""SENSEI's and TRACER's connector files, read as they are (a chatbot.yaml is made of them).

Recognised by their top-level keys wherever a chatbot.yaml is expected:

- **SENSEI's connector file** (``config: {api_url, headers, timeout, request_key,
  response_key}``, ``payload``, ``parameters``; user-simulator 1.1.5 still ships them in
  ``resources/data/connectors``). With ``request_key`` it is SENSEI's generic JSON connector:
  ``POST api_url`` with ``payload`` where each ``request_key`` (a dotted path, or a list
  of them) holds the user's utterance, the reply read at ``response_key`` (a list is
  several messages) → ``rest``. Without it, the file only says where a ``rasa`` or
  ``taskyto`` bot lives: the technology comes from run.yml, else the file's name, else
  a Rasa webhook URL.
- **SENSEI's run.yml**: ``technology`` with ``connector_params`` (1.1.5: a JSON string or
  ``key=value,…``, chatbot-connectors' syntax), or the earlier ``connector`` (a connector
  file or a technology name) with ``connector_parameters`` (values that replace the
  connector file's ``config`` keys, else its ``payload`` keys, as its ``parameters`` list).
- **TRACER's custom-connector YAML** (chatbot-connectors ``custom``: ``name``,
  ``base_url``, ``timeout``, ``headers``, ``fallback_message``, ``send_message{path,
  method, headers, timeout, payload_template}``, ``response_path``) → ``rest`` whose URL
  is joined as TRACER joins it (``urllib.parse.urljoin``).
- **a technology and its ``--connector-params``** as one string,
  ``TECHNOLOGY:PARAMS`` (``taskyto:base_url=http://localhost,port=5000``,
  ``rasa:{"base_url": "http://localhost:5005"}``); technologies: chatbot-connectors 0.8's
  ``rasa``, ``taskyto`` and ``custom`` (``config_path``).

Request bodies of the ``rest`` connectors made here are written as SENSEI and TRACER
write them (``json_style: python``), byte for byte. Where sparring reads a file
differently from its tool, the difference is a warning (``PeerChatbot.warnings``).
Source: sensei-chat/sensei ``technologies/chatbot_connectors.py`` (``Chatbot``), PyPI
user-simulator 1.1.5 (``cli/cli.py``) and chatbot-connectors 0.8.0 (``core.py``,
``cli.py``, ``implementations/{custom,rasa,taskyto}.py``).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from sparring._yaml import LineMap, format_key, load_yaml_with_lines
from sparring.connectors._http import join_url
from sparring.errors import ConfigError, Problem

TECHNOLOGIES = ("rasa", "taskyto", "custom")
"""chatbot-connectors technologies sparring reads as they are."""
HOSTED_TECHNOLOGIES = ("millionbot", "botslovers", "metro_madrid", "comunidad_madrid")
"""chatbot-connectors technologies for one hosted bot each: refused with a reason."""

_RUN_KEYS = frozenset(
    {
        "technology",
        "connector_params",
        "connector_parameters",
        "project_folder",
        "user_profile",
        "execution_parameters",
    }
)
_TRACER_KEYS = ("name", "base_url", "timeout", "fallback_message", "headers")
_ENDPOINT_KEYS = ("path", "method", "headers", "timeout", "payload_template")
_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:(.*)$", re.DOTALL)
_RASA_WEBHOOK = "/webhooks/rest/webhook"


@dataclass
class PeerChatbot:
    """A peer's connector file as chatbot.yaml data: ``data`` (``connector``, ``params``,
    maybe ``info``), ``kind`` (which format it was) and ``warnings`` (where sparring reads
    it differently from its tool)."""

    data: dict[str, Any]
    kind: str
    warnings: list[Problem] = field(default_factory=list)


def peer_kind(data: Any) -> str | None:
    """Which peer format ``data`` (a YAML file's content) is: ``sensei-connector``,
    ``sensei-run`` or ``tracer-custom``; ``None`` for anything else (a chatbot.yaml has
    ``params``)."""
    if not isinstance(data, Mapping) or "params" in data:
        return None
    if isinstance(data.get("config"), Mapping) and "connector" not in data:
        return "sensei-connector"
    if _RUN_KEYS & set(data):
        return "sensei-run"
    if "connector" not in data and ("send_message" in data or "base_url" in data):
        return "tracer-custom"
    return None


def parse_connector_params(text: str | None) -> dict[str, Any]:
    """chatbot-connectors' ``--connector-params``: a JSON object, or ``key=value`` pairs
    separated by commas whose values become ``true``/``false`` booleans, integers or
    floats when they read as one (pairs without ``=`` are skipped, as there). Raises
    ``ValueError`` for JSON that does not parse or is not an object."""
    if not text or not text.strip():
        return {}
    if text.strip().startswith("{"):
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("connector params in JSON must be an object")
        return value
    params: dict[str, Any] = {}
    for pair in text.split(","):
        if "=" not in pair:
            continue
        key, raw = (part.strip() for part in pair.split("=", 1))
        params[key] = _typed(raw)
    return params


def _typed(raw: str) -> Any:
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


def connector_spec(text: str) -> tuple[str, str] | None:
    """``(technology, params)`` of a ``TECHNOLOGY:PARAMS`` string naming a chatbot-connectors
    technology; ``None`` when ``text`` is not one (e.g. a path)."""
    match = _SPEC.match(text)
    if match is None or match.group(1) not in (*TECHNOLOGIES, *HOSTED_TECHNOLOGIES):
        # a spec a job's settings resolved against the working folder (``/cwd/rasa:…``)
        names = "|".join((*TECHNOLOGIES, *HOSTED_TECHNOLOGIES))
        match = re.search(rf"/({names}):(.*)$", text, re.DOTALL)
        if match is None:
            return None
    technology = match.group(1)
    # a spec that went through ``pathlib.Path`` (a CLI option) lost a slash of ``://``
    return technology, re.sub(r"\b(https?):/(?!/)", r"\1://", match.group(2))


def from_spec(text: str, base_dir: Path) -> PeerChatbot:
    """The chatbot of a ``TECHNOLOGY:PARAMS`` string (see the module docstring). Raises
    ``ConfigError`` (file ``--chatbot``) for bad params or an unsupported technology."""
    spec = connector_spec(text)
    if spec is None:
        raise ConfigError(Problem("--chatbot", None, "", f"not TECHNOLOGY:PARAMS: {text!r}"))
    technology, raw = spec
    where = _Where("--chatbot", LineMap())
    try:
        params = parse_connector_params(raw)
    except ValueError as exc:
        raise ConfigError(where.problem((), f"cannot read the connector params: {exc}")) from exc
    return from_technology(technology, params, base_dir, where)


@dataclass
class _Where:
    """Where problems of the file being converted are reported."""

    file: str
    lines: LineMap
    prefix: tuple[str | int, ...] = ()

    def problem(self, key: tuple[str | int, ...], message: str) -> Problem:
        full = (*self.prefix, *key)
        return Problem(self.file, self.lines.line_of(full), format_key(full), message)


def from_technology(
    technology: str, params: Mapping[str, Any], base_dir: Path, where: _Where
) -> PeerChatbot:
    """The chatbot of a chatbot-connectors ``technology`` with its connector ``params``
    (``base_url``, ``port``, ``sender_id``, ``timeout``, ``config_path``). Raises
    ``ConfigError`` for a missing ``base_url``, a hosted-bot technology or an unknown one."""
    if technology in HOSTED_TECHNOLOGIES:
        message = (
            f"TRACER's `{technology}` connector talks to one hosted bot; sparring has no "
            "connector for it: describe its API as a `rest` chatbot.yaml (docs/connectors.md)"
        )
        raise ConfigError(where.problem((), message))
    if technology not in TECHNOLOGIES:
        known = ", ".join(TECHNOLOGIES)
        raise ConfigError(where.problem((), f"unknown technology {technology!r} ({known})"))
    if technology == "custom":
        config_path = params.get("config_path")
        if not isinstance(config_path, str) or not config_path:
            raise ConfigError(where.problem(("config_path",), "the custom connector's YAML"))
        file = Path(config_path)
        file = file if file.is_absolute() or not (base_dir / file).is_file() else base_dir / file
        return load_peer_file(file, expect="tracer-custom")
    base_url = params.get("base_url")
    if not isinstance(base_url, str) or not base_url:
        raise ConfigError(where.problem(("base_url",), "required: where the chatbot's server is"))
    extra: dict[str, Any] = {}
    timeout = params.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        extra["timeout"] = timeout
    if technology == "rasa":
        url = urljoin(base_url, _RASA_WEBHOOK.lstrip("/"))
        return PeerChatbot(
            {"connector": "rasa", "params": {"url": url, "path": "", **extra}}, "tracer"
        )
    port = params.get("port", 5000)
    has_port = urlsplit(base_url).port is not None and "port" not in params
    url = base_url if has_port else f"{base_url}:{port}"
    return PeerChatbot({"connector": "taskyto", "params": {"url": url, **extra}}, "tracer")


def load_peer_file(
    path: Path,
    *,
    expect: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    technology: str | None = None,
) -> PeerChatbot:
    """Read a SENSEI connector file, a SENSEI run.yml or a TRACER custom-connector YAML.

    ``expect`` names the one format accepted; ``overrides`` are run.yml's
    ``connector_parameters`` for a SENSEI connector file and ``technology`` its technology.
    Raises ``ConfigError`` with file, line and key.
    """
    data, lines = load_yaml_with_lines(path)
    kind = peer_kind(data)
    where = _Where(str(path), lines)
    if kind is None or (expect is not None and kind != expect):
        wanted = expect or "a SENSEI or TRACER connector file"
        raise ConfigError(where.problem((), f"not {wanted}"))
    assert isinstance(data, dict)
    if kind == "tracer-custom":
        return _from_tracer_custom(data, where)
    if kind == "sensei-connector":
        return _from_sensei_connector(path, data, where, dict(overrides or {}), technology)
    return _from_run(path, data, where)


def _from_tracer_custom(data: dict[str, Any], where: _Where) -> PeerChatbot:
    """TRACER's custom connector (chatbot-connectors ``CustomConfig.from_yaml``)."""
    found = PeerChatbot({}, "tracer-custom")
    base_url = data.get("base_url")
    if not isinstance(base_url, str) or not base_url:
        raise ConfigError(where.problem(("base_url",), "required: the chatbot API's base URL"))
    for key in data:
        if key not in (*_TRACER_KEYS, "send_message", "response_path"):
            found.warnings.append(where.problem((key,), "ignored (TRACER ignores it too)"))
    params: dict[str, Any] = {k: data[k] for k in _TRACER_KEYS if data.get(k) is not None}
    params["url"] = params.pop("base_url")
    endpoint = data.get("send_message") or {}
    if not isinstance(endpoint, dict):
        raise ConfigError(where.problem(("send_message",), "expected a mapping"))
    send = {k: endpoint[k] for k in _ENDPOINT_KEYS if endpoint.get(k) is not None}
    send.setdefault("payload_template", {})  # TRACER sends `{}` without one
    path = str(send.get("path", "/"))
    tracer_url = urljoin(base_url, path.lstrip("/"))
    if tracer_url != join_url(base_url, path):
        send["path"] = tracer_url
        message = f"TRACER joins base_url and path into {tracer_url}; that URL is used"
        found.warnings.append(where.problem(("send_message", "path"), message))
    params["send_message"] = send
    if data.get("response_path"):
        params["response_path"] = data["response_path"]
    params["json_style"] = "python"
    found.data = {"connector": "rest", "params": params}
    return found


def _from_sensei_connector(
    path: Path,
    data: dict[str, Any],
    where: _Where,
    overrides: dict[str, Any],
    technology: str | None,
) -> PeerChatbot:
    """SENSEI's connector file: its generic connector, or where a rasa/taskyto bot lives."""
    config = dict(data["config"])
    warnings_before: list[Problem] = []
    payload = copy.deepcopy(data.get("payload")) or {}
    if not isinstance(payload, dict):
        raise ConfigError(where.problem(("payload",), "expected a mapping (the request body)"))
    for key, value in overrides.items():
        (config if key in config or key == "api_url" else payload)[key] = value
    api_url = config.get("api_url") or data.get("api_url")
    if not isinstance(api_url, str) or not api_url:
        message = (
            "no api_url: SENSEI's code for this bot knows where it is (a hosted bot such as "
            "1MillionBot's); describe its API as a `rest` chatbot.yaml (docs/connectors.md)"
        )
        raise ConfigError(where.problem(("config", "api_url"), message))
    unset = [k for k in data.get("parameters") or [] if isinstance(k, str) and k not in overrides]
    for key in unset:
        message = (
            f"SENSEI expects {key} from run.yml's connector_parameters; the file's own "
            f"value {(config if key in config else payload).get(key)!r} is used"
        )
        found_key = ("parameters",)
        warnings_before.append(where.problem(found_key, message))
    extra: dict[str, Any] = {}
    timeout = config.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        extra["timeout"] = timeout
    request_key = config.get("request_key")
    if not request_key:
        return _located_bot(path, api_url, extra, technology, where, warnings_before)
    keys = request_key if isinstance(request_key, list) else [request_key]
    found = PeerChatbot({}, "sensei-connector", warnings_before)
    for key in keys:
        if not isinstance(key, str) or not key:
            raise ConfigError(where.problem(("config", "request_key"), "expected dotted keys"))
        _put(payload, key.split("."), "{user_msg}")
        if "." in key:
            message = (
                f"the utterance goes into the nested key {key}; SENSEI's own code sent only "
                "the innermost object there (a bug), sparring sends the whole payload"
            )
            found.warnings.append(where.problem(("config", "request_key"), message))
    params: dict[str, Any] = {
        "url": api_url,
        "headers": dict(config.get("headers") or {}),
        "send_message": {"path": "", "method": "POST", "payload_template": payload},
        "json_style": "python",
        **extra,
    }
    response_key = config.get("response_key")
    if response_key:
        params["response_path"] = str(response_key)
    else:
        message = "no response_key: the whole reply body is the chatbot's message"
        found.warnings.append(where.problem(("config",), message))
    found.data = {"connector": "rest", "params": params}
    return found


def _located_bot(
    path: Path,
    api_url: str,
    extra: dict[str, Any],
    technology: str | None,
    where: _Where,
    warnings: list[Problem],
) -> PeerChatbot:
    """A SENSEI connector file without ``request_key``: where a rasa or taskyto bot is."""
    technology = technology or _technology_of(path, api_url)
    if technology is None:
        message = (
            "without request_key, SENSEI's own code for this bot decided what to send; "
            "sparring reads such a file for a rasa or taskyto bot: name the technology "
            "(run.yml's `technology`, or `sparring import-connector --technology`), or "
            "describe the bot's API as a `rest` chatbot.yaml"
        )
        raise ConfigError(where.problem(("config",), message))
    if technology == "rasa":
        return _rasa_at(api_url, extra, warnings)
    if technology == "taskyto":  # SENSEI's own Taskyto connector used api_url as is
        params = {"url": api_url, **extra}
        return PeerChatbot({"connector": "taskyto", "params": params}, "sensei", warnings)
    return from_technology(technology, {"base_url": api_url, **extra}, path.parent, where)


def _rasa_at(
    api_url: str, extra: dict[str, Any], warnings: list[Problem] | None = None
) -> PeerChatbot:
    """A Rasa bot at ``api_url``: its webhook URL itself, or the server's base URL."""
    if "/webhooks/" in api_url:
        params = {"url": api_url, "path": "", **extra}
    else:
        params = {"url": api_url, **extra}
    return PeerChatbot({"connector": "rasa", "params": params}, "sensei", list(warnings or []))


def _technology_of(path: Path, api_url: str) -> str | None:
    """rasa or taskyto, from the file's name (SENSEI names them so) or a Rasa webhook URL."""
    for technology in ("rasa", "taskyto"):
        if technology in path.stem.lower():
            return technology
    return "rasa" if "/webhooks/" in api_url else None


def _put(payload: dict[str, Any], keys: list[str], value: str) -> None:
    """Set ``payload[k1][k2]…`` to ``value``, making the objects on the way (as SENSEI)."""
    node = payload
    for key in keys[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[keys[-1]] = value


def _from_run(path: Path, data: dict[str, Any], where: _Where) -> PeerChatbot:
    """SENSEI's run.yml: ``technology`` + ``connector_params`` (1.1.5), or ``connector``
    (a connector file or technology) + ``connector_parameters`` (earlier)."""
    technology = data.get("technology") or None
    raw = data.get("connector_params")
    if raw is None:
        raw = data.get("connector_parameters")
    key = "connector_params" if "connector_params" in data else "connector_parameters"
    try:
        params = parse_connector_params(raw) if isinstance(raw, str) else dict(raw or {})
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            where.problem((key,), f"cannot read the connector params: {exc}")
        ) from exc
    connector = data.get("connector")
    if isinstance(connector, str) and connector:
        file = _connector_file(path.parent, connector)
        if file is not None:
            return load_peer_file(
                file, expect="sensei-connector", overrides=params, technology=technology
            )
        technology = technology or connector
    if not isinstance(technology, str) or not technology:
        raise ConfigError(where.problem(("technology",), "required: the chatbot's technology"))
    if "api_url" in params and "base_url" not in params:  # the earlier key for the URL
        if technology == "rasa":
            return _rasa_at(str(params["api_url"]), {})
        params = {**params, "base_url": params.pop("api_url")}
    return from_technology(technology, params, path.parent, where)


def _connector_file(folder: Path, name: str) -> Path | None:
    """The connector file run.yml's ``connector`` names, if it names one."""
    for candidate in (name, f"{name}.yml", f"{name}.yaml"):
        file = folder / candidate
        if file.is_file():
            return file
    return None


def import_connector(
    source: str | None, technology: str | None = None, connector_params: str | None = None
) -> PeerChatbot:
    """What ``sparring import-connector`` converts: a SENSEI or TRACER connector file or
    run.yml (``source``; a SENSEI connector file may need ``technology``), or a
    chatbot-connectors ``technology`` with its ``connector_params`` string. Raises
    ``ConfigError``."""
    where = _Where("--connector-params", LineMap())
    try:
        params = parse_connector_params(connector_params)
    except ValueError as exc:
        raise ConfigError(where.problem((), f"cannot read the connector params: {exc}")) from exc
    if source is None:
        if technology is None:
            raise ConfigError(where.problem((), "give a connector file or --technology"))
        return from_technology(technology, params, Path.cwd(), where)
    path = Path(source)
    if not path.exists() and connector_spec(source) is not None:
        return from_spec(source, Path.cwd())
    if path.is_dir():
        path = next((path / n for n in ("run.yml", "run.yaml") if (path / n).is_file()), path)
    return load_peer_file(path, overrides=params, technology=technology)
