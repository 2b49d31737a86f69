"""``chatbot.yaml``: which connector reaches the chatbot under test, and what it is for.

The file's top level is exactly::

    connector: rasa            # a registered connector name (`sparring connectors list`)
    params:                    # that connector's parameters, checked by its params model
      url: http://localhost:5005
    info:                      # optional: what the chatbot is
      name: Pizzeria
      type: task-oriented
      languages: [en]
      fallback: "Sorry, I did not understand."
    user_simulation:           # optional: ChatChecker's user_simulation_config
      max_user_turns: 15

SENSEI's connector files and run.yml, TRACER's custom-connector YAML and a
``TECHNOLOGY:PARAMS`` string (TRACER's ``--technology`` with its ``--connector-params``)
are read as they are (``_peer_files``); ``warnings`` says where sparring reads them
differently from their tool.

A ChatChecker chatbot is read two ways (``_chatchecker``): ``info: {chatchecker:
path/to/config.yaml}`` fills ``info`` (keys written beside it win) and ``user_simulation``
from ChatChecker's file; or ``load_chatbot_config`` is given ChatChecker's ``config.yaml``
itself (or its folder), whose chatbot is then reached through the ``python`` connector at
``chatbot_client.py:ChatbotClient`` beside it, as ChatChecker does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from sparring._keys import hint_unknown_keys
from sparring._policy import current_policy
from sparring._yaml import LineMap, format_key, load_yaml_with_lines, validation_problems
from sparring.connectors._base import Connector, ConnectorContext, ConnectorParams
from sparring.connectors._boundary import ReplyLimits
from sparring.connectors._chatchecker import (
    CLIENT_TARGET,
    UserSimulationConfig,
    is_chatchecker_config,
    load_chatchecker_config,
)
from sparring.connectors._pacing import LimiterFactory, PacedConnector, local_limiter
from sparring.connectors._peer_files import (
    PeerChatbot,
    connector_spec,
    from_spec,
    load_peer_file,
    peer_kind,
)
from sparring.connectors._peer_files import import_connector as _import_peer
from sparring.connectors._registry import UnknownConnector, get_connector
from sparring.connectors._secrets import UnsetVariables, resolve_params
from sparring.errors import ConfigError, Problem
from sparring.schemas import register_schema

if TYPE_CHECKING:
    import httpx


class ChatbotInfo(BaseModel):
    """What the chatbot under test is: the one home of these facts, read by simulation
    (fallback detection), the rules' namespace (``chatbot``) and reports.

    ``fallback`` is the phrase the chatbot answers when it does not understand (SENSEI's
    fallback; a profile's ``chatbot.fallback`` wins for that profile's conversations);
    ``languages`` are ISO 639-1 codes, the first being the default.
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str | None = None
    """Display name of the chatbot."""
    description: str | None = None
    """What the chatbot does, in a sentence or two."""
    type: Literal["task-oriented", "conversational"] | None = None
    """``task-oriented`` (serves tasks, e.g. ordering) or ``conversational`` (chit-chat)."""
    languages: list[str] = []
    """Languages the chatbot speaks (ISO 639-1 codes); the first is the default."""
    fallback: str | None = None
    """The chatbot's fallback phrase, answered when it does not understand."""
    interaction_method: str | None = None
    """How users interact with it (ChatChecker's ``interaction_method``, e.g. text-based)."""
    task: str | None = None
    """What the chatbot must do in a dialogue (ChatChecker's ``task``): for judges, not
    for simulated users."""
    constraints: list[str] = []
    """Expected behaviour, e.g. towards out-of-domain requests (ChatChecker's)."""
    known_limitations: list[str] = []
    """What the chatbot is not expected to do (ChatChecker's)."""

    def prompt_text(self, *, task: bool = True) -> str:
        """What a model prompt should say about the chatbot: one ``Label: value`` line per
        field set (lists as ``- item`` lines), empty when nothing is known. ``task=False``
        leaves the task out (ChatChecker hides it from simulated users and persona
        generation)."""
        lines: list[str] = []
        for label, value in (
            ("Name", self.name),
            ("Description", self.description),
            ("Type", self.type),
            ("Interaction method", self.interaction_method),
            ("Task", self.task if task else None),
            ("Constraints", self.constraints),
            ("Known limitations", self.known_limitations),
            ("Languages", ", ".join(self.languages) or None),
        ):
            if isinstance(value, list) and value:
                lines.append(f"{label}:")
                lines.extend(f"- {item}" for item in value)
            elif isinstance(value, str) and value:
                lines.append(f"{label}: {value}")
        return "\n".join(lines)


REPLY_TIMEOUT_MARGIN = 5.0
"""Seconds a job's reply timeout adds to the connector's own ``timeout`` by default."""


class ChatbotConfig(BaseModel):
    """A parsed ``chatbot.yaml`` (see the module docstring).

    ``params`` is an instance of the named connector's params model. Validating a dict
    looks the connector up in the registry; an unknown name or bad params raise a
    ``pydantic.ValidationError`` located at ``connector`` or ``params.<key>``. ``info``
    is always set (empty when the file has none); what the params say about the chatbot
    (``ConnectorParams.chatbot_info``, e.g. SENSEI's ``fallback_message``) fills the
    fields ``info:`` leaves out.
    """

    model_config = ConfigDict(extra="forbid")

    connector: str
    params: SerializeAsAny[ConnectorParams]
    info: ChatbotInfo = Field(default_factory=ChatbotInfo)
    user_simulation: UserSimulationConfig | None = None
    """How simulated users should behave with this bot (ChatChecker's
    ``user_simulation_config``: typical and maximum turn length, ``max_user_turns``)."""

    _source: Path | None = PrivateAttr(default=None)
    _lines: LineMap = PrivateAttr(default_factory=LineMap)
    _warnings: list[Problem] = PrivateAttr(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _params_of_connector(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or isinstance(data.get("params"), ConnectorParams):
            return data
        name = data.get("connector")
        if not isinstance(name, str):
            return {**data, "params": ConnectorParams()}  # `connector` itself is reported
        errors: list[InitErrorDetails] = []
        params: ConnectorParams | None = None
        try:
            params = get_connector(name).params_model.model_validate(data.get("params") or {})
        except UnknownConnector as exc:
            errors.append(_custom_error("unknown_connector", str(exc), ("connector",), name))
        except ValidationError as exc:
            errors.extend(_relocated(exc, ("params",)))
        if params is not None:
            return {**data, "params": params}
        try:  # report the other keys' problems together with the params' ones
            cls.model_validate({**data, "params": ConnectorParams()})
        except ValidationError as exc:
            errors.extend(_relocated(exc, ()))
        raise ValidationError.from_exception_data(cls.__name__, errors)

    @field_validator("info", mode="before")
    @classmethod
    def _no_info_is_empty(cls, value: Any) -> Any:
        return {} if value is None else value

    @model_validator(mode="after")
    def _info_from_params(self) -> ChatbotConfig:
        implied = self.params.chatbot_info()
        if implied:
            given = self.info.model_dump(exclude_unset=True)
            self.info = ChatbotInfo.model_validate({**implied, **given})
        return self

    def reply_timeout(self, given: float | None = None) -> float:
        """Seconds a job waits for one reply (its ``reply_timeout`` setting): ``given``,
        else the connector's ``timeout`` plus ``REPLY_TIMEOUT_MARGIN`` — the connector
        records its own timeout first, the job's cap is the backstop."""
        return given if given is not None else self.params.timeout + REPLY_TIMEOUT_MARGIN

    @property
    def source(self) -> Path | None:
        """The file this config was loaded from (``None`` when built in code)."""
        return self._source

    @property
    def warnings(self) -> list[Problem]:
        """Where a SENSEI or TRACER connector file it was made of is read differently
        from its own tool (empty for a chatbot.yaml)."""
        return list(self._warnings)


register_schema("chatbot", ChatbotConfig)


def _custom_error(kind: str, message: str, loc: tuple[str, ...], value: Any) -> InitErrorDetails:
    return {"type": PydanticCustomError(kind, message), "loc": loc, "input": value}


def _relocated(exc: ValidationError, prefix: tuple[str | int, ...]) -> list[InitErrorDetails]:
    details: list[InitErrorDetails] = []
    for error in exc.errors(include_url=False):
        detail: InitErrorDetails = {
            "type": PydanticCustomError(error["type"], error["msg"]),
            "loc": (*prefix, *error["loc"]),
            "input": error["input"],
        }
        details.append(detail)
    return details


def _params_section(data: dict[str, Any]) -> dict[str, type[BaseModel]]:
    """The params model of the connector ``data`` names, for "did you mean" hints."""
    try:
        return {"params": get_connector(str(data.get("connector"))).params_model}
    except UnknownConnector:
        return {}


def load_chatbot_config(path: Path | str) -> ChatbotConfig:
    """Load and validate ``chatbot.yaml``.

    Raises ``ConfigError`` listing every problem with file, line and key: YAML syntax,
    an unknown connector name, unknown or invalid ``params`` keys, a bad ``info`` block.
    ``${ENV}`` references are kept as written (resolved by ``create_connector``).
    ``path`` may be a ChatChecker ``config.yaml``, a folder holding ``chatbot.yaml`` (else
    ChatChecker's ``config.yaml``, else SENSEI's ``run.yml``), a SENSEI or TRACER connector
    file or a ``TECHNOLOGY:PARAMS`` string; see the module docstring.
    """
    if not Path(path).exists() and connector_spec(str(path)) is not None:
        return _policed(_from_peer(from_spec(str(path), Path.cwd()), None))
    path = _config_file(Path(path))
    data, lines = load_yaml_with_lines(path)
    if is_chatchecker_config(data):
        return _policed(_from_chatchecker(path))
    if peer_kind(data) is not None:
        return _policed(_from_peer(load_peer_file(path), path))
    if not isinstance(data, dict):
        raise ConfigError(
            Problem(str(path), 1, "", "expected a mapping with `connector:` and `params:`")
        )
    data = _with_chatchecker_info(path, data, lines)
    try:
        config = ChatbotConfig.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(path, exc, lines)
        raise ConfigError(
            hint_unknown_keys(problems, ChatbotConfig, _params_section(data))
        ) from exc
    config._source = path
    config._lines = lines
    return _policed(config)


def _policed(config: ChatbotConfig) -> ChatbotConfig:
    """``config``, or ``ConfigError`` at its ``connector`` key when the execution policy
    refuses code and its connector runs code (decided on the parsed name, whatever the
    file's spelling; ``sparring._policy``)."""
    try:
        runs_code = get_connector(config.connector).runs_code
    except UnknownConnector:
        return config  # reported where the connector is built
    if runs_code:
        where = config_problem(config, ("connector",), "")
        feature = f"the {config.connector} connector"
        current_policy().require_code(feature, where.file, where.line, where.key)
    return config


def is_chatbot_file(data: Any) -> bool:
    """Whether parsed YAML describes a chatbot under test: a chatbot.yaml (``connector``),
    ChatChecker's ``config.yaml``, or a SENSEI or TRACER connector file or run.yml (not a
    file ChatChecker wrote into a run, which names its ``chatbot_id``)."""
    if isinstance(data, dict) and "chatbot_id" in data:
        return False
    if peer_kind(data) is not None or is_chatchecker_config(data):
        return True
    return isinstance(data, dict) and "connector" in data


def chatbot_file_format(data: Any) -> str | None:
    """Which tool's format parsed YAML that ``is_chatbot_file`` is in: ``sensei-connector``,
    ``sensei-run``, ``tracer-custom`` (``peer_kind``), ``chatchecker-config`` or
    ``chatbot.yaml``; ``None`` when it describes no chatbot."""
    if not is_chatbot_file(data):
        return None
    if (kind := peer_kind(data)) is not None:
        return kind
    return "chatchecker-config" if is_chatchecker_config(data) else "chatbot.yaml"


def _config_file(path: Path) -> Path:
    """``path`` itself, or for a folder its ``chatbot.yaml``, else its ``config.yaml``
    (ChatChecker), else its ``run.yml`` (SENSEI)."""
    if not path.is_dir():
        return path
    for name in ("chatbot.yaml", "config.yaml", "run.yml", "run.yaml"):
        if (path / name).is_file():
            return path / name
    raise ConfigError(
        Problem(str(path), None, "", "no chatbot.yaml, config.yaml or run.yml in this folder")
    )


def import_connector(
    source: str | None, technology: str | None = None, connector_params: str | None = None
) -> ChatbotConfig:
    """The chatbot config a SENSEI or TRACER connector file, SENSEI run.yml (or project
    folder), ``TECHNOLOGY:PARAMS`` string, or ``technology`` with ``connector_params``
    (TRACER's ``--technology``/``--connector-params``) stands for; its ``warnings`` say
    where sparring reads it differently. Raises ``ConfigError`` with file, line and key."""
    found = _import_peer(source, technology, connector_params)
    path = Path(source) if source is not None and Path(source).exists() else None
    return _from_peer(found, path)


def chatbot_yaml(config: ChatbotConfig) -> str:
    """``config`` as chatbot.yaml text: ``connector``, the ``params`` that differ from the
    connector's defaults, and ``info``/``user_simulation`` when set."""
    data: dict[str, Any] = {
        "connector": config.connector,
        "params": config.params.model_dump(mode="json", exclude_defaults=True),
    }
    info = config.info.model_dump(mode="json", exclude_defaults=True)
    if info:
        data["info"] = info
    if config.user_simulation is not None:
        data["user_simulation"] = config.user_simulation.model_dump(mode="json")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _from_peer(found: PeerChatbot, path: Path | None) -> ChatbotConfig:
    """The config a SENSEI or TRACER connector file stands for, with its warnings."""
    try:
        config = ChatbotConfig.model_validate(found.data)
    except ValidationError as exc:
        where = str(path) if path else "--chatbot"
        raise ConfigError(
            [Problem(where, None, format_key(e["loc"]), e["msg"]) for e in exc.errors()]
        ) from exc
    config._source = path
    config._warnings = found.warnings
    return config


def _from_chatchecker(path: Path) -> ChatbotConfig:
    """The config of a ChatChecker chatbot folder: its client through ``python``."""
    found = load_chatchecker_config(path)
    config = ChatbotConfig(
        connector="python",
        params=get_connector("python").params_model.model_validate({"target": CLIENT_TARGET}),
        info=ChatbotInfo.model_validate(found.info_fields()),
        user_simulation=found.user_simulation_config,
    )
    config._source = path
    return config


def _with_chatchecker_info(path: Path, data: dict[str, Any], lines: LineMap) -> dict[str, Any]:
    """``data`` with ``info: {chatchecker: FILE}`` replaced by that file's chatbot info
    (``info``'s other keys win) and its ``user_simulation_config`` (unless given)."""
    info = data.get("info")
    if not isinstance(info, dict) or "chatchecker" not in info:
        return data
    reference, key = info["chatchecker"], ("info", "chatchecker")
    if isinstance(reference, str):
        where = (str(path), lines.line_of(key), format_key(key))
        current_policy().require_path(path.parent / reference, *where)
    if not isinstance(reference, str) or not (path.parent / reference).is_file():
        message = f"expected the path of a ChatChecker config.yaml, not {reference!r}"
        raise ConfigError(Problem(str(path), lines.line_of(key), format_key(key), message))
    found = load_chatchecker_config(path.parent / reference)
    given = {key: value for key, value in info.items() if key != "chatchecker"}
    merged = {**data, "info": {**found.info_fields(), **given}}
    merged.setdefault("user_simulation", found.user_simulation_config.model_dump())
    return merged


def create_connector(
    config: ChatbotConfig,
    base_dir: Path | str | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    limiter: LimiterFactory = local_limiter,
) -> Connector:
    """Build the connector ``config`` names, with its ``${ENV}`` references resolved.

    ``base_dir`` resolves relative paths in ``params`` (default: the folder of the config
    file, else the current directory); ``transport`` replaces the network for HTTP
    connectors (tests); ``limiter`` builds the limiter of a connector with
    ``requests_per_minute`` (default in-process; a distributed run shares one). Raises
    ``ConfigError`` naming the key of an unset environment variable, or of a parameter the
    connector rejects (e.g. an unimportable module).
    """
    try:
        spec = get_connector(config.connector)
    except UnknownConnector as exc:
        where = config_problem(config, ("connector",), "")
        raise exc.at(where.file, where.line, where.key) from None
    _policed(config)
    if base_dir is None:
        base_dir = config.source.parent if config.source else Path.cwd()
    try:
        params, redact = resolve_params(config.params)
    except UnsetVariables as exc:
        problems = [config_problem(config, ("params", *m.path), str(m)) for m in exc.missing]
        raise ConfigError(problems) from exc
    limits = ReplyLimits(max_bytes=params.max_reply_bytes)
    context = ConnectorContext(
        base_dir=Path(base_dir), redact=redact, transport=transport, limits=limits
    )
    try:
        built = spec.factory(params, context)
    except ConfigError as exc:
        raise ConfigError([_locate(config, p) for p in exc.problems]) from exc
    rate = getattr(params, "requests_per_minute", None)
    return PacedConnector(built, rate, limiter) if rate else built


def config_problem(config: ChatbotConfig, key: tuple[str | int, ...], message: str) -> Problem:
    """A ``Problem`` at ``key`` of ``config``'s file (line when it was loaded from one)."""
    source = str(config.source) if config.source else "chatbot.yaml"
    return Problem(source, config._lines.line_of(key), format_key(key), message)


def _locate(config: ChatbotConfig, problem: Problem) -> Problem:
    """Place a connector's own problem (file empty, key inside ``params``) in the config."""
    if problem.file:
        return problem
    key = tuple(problem.key.split(".")) if problem.key else ()
    return config_problem(config, ("params", *key), problem.message)


def recorded_info(chatbot: Mapping[str, Any], manifest: Path) -> ChatbotInfo | None:
    """chatbot.yaml's ``info`` as a run's ``manifest`` recorded it (its ``chatbot``
    mapping); ``None`` when it recorded none. Raises ``ConfigError`` (the manifest,
    ``chatbot.info``) when it does not validate. Every job that reads a run uses this."""
    info = chatbot.get("info")
    if not info:
        return None
    try:
        return ChatbotInfo.model_validate(info)
    except ValidationError as exc:
        message = f"the run's chatbot info does not validate: {exc}"
        raise ConfigError(Problem(str(manifest), None, "chatbot.info", message)) from exc
