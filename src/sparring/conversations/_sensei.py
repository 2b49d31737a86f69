"""SENSEI conversation files: import into ``ConversationRecord`` and export back.

SENSEI (GitHub sensei-chat/sensei, ``save_test_conv`` in ``user_sim/utils/utilities.py``;
package user-simulator) writes each conversation as one YAML file
``<profile>/<serial>/<n>_<profile>_<serial>.yml`` holding three documents:

1. metadata: ``serial``, ``language``, ``context``, ``ask_about`` (goal templates, then
   ``{variable: values}`` items), ``conversation`` (single-key items: ``number``,
   ``goal_style``, ``interaction_style``), ``data_output`` (single-key items), ``errors``
   (``{code: message}`` items), ``total_cost($)`` (1.1.5: US dollars, read into
   ``usage["sensei"]``; numpy-tagged numbers are read as numbers, see ``_files``);
2. timing: ``conversation time``, ``assistant response time`` (seconds, one per chatbot
   reply; numbers or ``H:MM:SS.ffffff`` strings), ``response time report``
   (``average``/``max``/``min``);
3. ``interaction``: ``{User: text}`` / ``{Assistant: text}`` items.

Older files with one or two documents are read too (``sensei_documents``). sparring adds
one metadata key SENSEI does not write, ``fallback`` (the chatbot's fallback phrase the
conversation ran with), so that rules reading ``chatbot.fallback`` give the same verdicts
after export and import; SENSEI-check ignores it.

Import keeps everything: whatever does not map onto the record (the serial, unknown keys,
values in an unexpected shape, a rounded report that differs from the recomputed one) is
kept verbatim in ``record.extra["sensei"]``, so ``export_sensei(import_sensei(f))`` loads
to the same three documents as ``f``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import ValidationError

from sparring.conversations._files import finite_number, locate_yaml, read_yaml_documents
from sparring.conversations._records import ConversationError, ConversationRecord, OutputValue, Turn
from sparring.errors import ConfigError, Problem
from sparring.types import SENSEI_BUTTONS_HEADER, Button, ModelUsage

SENSEI_SERVER_ERROR = "Error: The server"
"""How SENSEI's chatbot turns begin when the chatbot failed (``Error: The server did not
respond.``): judges read such a turn as a crash, not as something the bot said."""
SENSEI = "sensei"
"""Key of SENSEI's leftovers in ``ConversationRecord.extra`` and the imported records'
``simulator``."""

DOCUMENTS = ("metadata", "timing", "interaction")
COST_KEY = "total_cost($)"
"""SENSEI 1.1.5's metadata key for what the conversation cost (US dollars, its user
simulator and data extraction together); imported as ``usage["sensei"].cost``."""
_ROLE_NAMES = {"user": "User", "assistant": "Assistant"}
_BUTTON_LINE = re.compile(r"^\s*-\s*BUTTON TEXT:\s?(?P<text>.*) LINK:\s?(?P<link>.*?)\s*$")
_SERIAL_FORMAT = "%Y-%m-%d-%H-%M-%S"


class _Malformed(Exception):
    """A SENSEI file whose shape cannot be read; ``keys`` locate it in document ``doc``."""

    def __init__(self, doc: int, keys: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.doc, self.keys, self.message = doc, keys, message


_TIMING_KEYS = ("conversation time", "assistant response time", "response time report")


def is_sensei_conversation(documents: list[Any]) -> bool:
    """Whether parsed YAML documents have the shape of a SENSEI conversation file (see
    ``sensei_documents``); reports, profiles and rules do not."""
    return sensei_documents(documents) is not None


def is_sensei_conversation_file(path: Path) -> bool:
    """Whether the file at ``path`` is a SENSEI conversation file (``False`` for one that
    cannot be read or parsed): a result of a run, not a profile or rule file."""
    try:
        _, documents = read_yaml_documents(path)
    except (ConfigError, OSError):
        return False
    return is_sensei_conversation(documents)


def sensei_documents(documents: list[Any]) -> list[dict[str, Any]] | None:
    """The three documents (metadata, timing, interaction) of a SENSEI conversation file,
    or ``None`` when ``documents`` are not one.

    Besides the three documents of SENSEI 1.x, older files are read: two documents
    (metadata, then ``interaction``; or metadata and timing in the first) and one document
    holding every key; their timing keys (``conversation time``, ``assistant response
    time``, ``response time report``) and ``interaction`` are moved to their documents."""
    if not documents or len(documents) > 3 or not all(isinstance(d, dict) for d in documents):
        return None
    if len(documents) == 3:
        return documents if "interaction" in documents[2] else None
    if "interaction" not in documents[-1]:
        return None
    merged: dict[str, Any] = {}
    for document in documents:
        merged.update(document)
    if not ({"serial", "ask_about", "conversation", "context"} & set(merged)):
        return None
    metadata = {k: v for k, v in merged.items() if k != "interaction" and k not in _TIMING_KEYS}
    timing = {k: merged[k] for k in _TIMING_KEYS if k in merged}
    return [metadata, timing, {"interaction": merged["interaction"]}]


def import_sensei(path: str | Path, *, id: str | None = None) -> ConversationRecord:
    """Read one SENSEI conversation file into a record.

    ``id`` defaults to the file's stem; ``profile`` and ``index`` come from SENSEI's file
    name ``<n>_<profile>_<serial>``; ``source`` is the path; ``simulator`` is ``sensei``;
    outputs get strategy ``imported``; buttons in chatbot texts are parsed into ``Button``s
    while the text is kept verbatim; latencies go to the chatbot turns in order (skipping
    an untimed opening message of the chatbot).
    Raises ``ConfigError`` (file, line) when the file is not valid YAML or not a SENSEI
    conversation.
    """
    path = Path(path)
    text, documents = read_yaml_documents(path)
    if not is_sensei_conversation(documents):
        raise ConfigError(Problem(str(path), None, "", NOT_A_CONVERSATION))
    return sensei_record(documents, id=id or path.stem, name=path.stem, source=str(path), text=text)


NOT_A_CONVERSATION = (
    "not a SENSEI conversation: expected three YAML documents (metadata, timing, "
    "interaction), or an older file with an interaction list"
)


def sensei_record(
    documents: list[Any], *, id: str, name: str, source: str | None, text: str | None = None
) -> ConversationRecord:
    """Build a record from the three parsed documents of a SENSEI conversation file.

    ``name`` is the file's stem (gives profile and index); ``text`` the file's text, used
    only to give the line of a problem. Older one- and two-document files are read as
    ``sensei_documents`` says (their problems are located in their first document). Raises
    ``ConfigError``.
    """
    normalised = sensei_documents(documents)
    if normalised is None:
        raise ConfigError(Problem(source or "", None, "", NOT_A_CONVERSATION))
    if normalised is not documents:
        text = None
        documents = normalised
    try:
        try:
            record = _build(documents, id=id, name=name, source=source)
        except ValidationError as exc:  # a value the record's fields cannot hold
            raise _malformed(exc) from exc
    except _Malformed as exc:
        line = locate_yaml(text, exc.doc, exc.keys) if text is not None else None
        key = ".".join(str(k) for k in exc.keys)
        raise ConfigError(Problem(source or "", line, key, exc.message)) from exc
    _keep_leftovers(record, documents)
    return record


_FIELD_KEYS: dict[str, tuple[int, tuple[str, ...]]] = {
    "interaction_styles": (0, ("conversation",)),
    "settings": (0, ("conversation",)),
    "variables": (0, ("ask_about",)),
    "goal_templates": (0, ("ask_about",)),
    "context": (0, ("context",)),
    "outputs": (0, ("data_output",)),
    "errors": (0, ("errors",)),
    "language": (0, ("language",)),
    "fallback": (0, ("fallback",)),
    "usage": (0, (COST_KEY,)),
    "duration": (1, ("conversation time",)),
    "turns": (2, ("interaction",)),
}
"""Where each field of a record comes from in a SENSEI file: (document, keys)."""


def _malformed(exc: ValidationError) -> _Malformed:
    """The first error of building a record, located at the SENSEI key it comes from."""
    error = exc.errors(include_url=False)[0]
    field = str(error["loc"][0]) if error["loc"] else ""
    doc, keys = _FIELD_KEYS.get(field, (0, ()))
    return _Malformed(doc, keys, f"cannot be read as a conversation's {field}: {error['msg']}")


def _build(documents: list[Any], *, id: str, name: str, source: str | None) -> ConversationRecord:
    meta, timing, interaction = documents
    serial = meta.get("serial")
    profile, index = _profile_and_index(name, serial)
    turns = _turns(interaction.get("interaction"))
    _assign_latencies(turns, timing.get("assistant response time"))
    cost = meta.get(COST_KEY)
    templates, variables = _ask_about(meta.get("ask_about"))
    settings = _merge_items(meta.get("conversation"))
    styles = settings.get("interaction_style")
    duration = timing.get("conversation time")
    return ConversationRecord(
        id=id,
        profile=profile,
        index=index,
        simulator=SENSEI,
        language=meta["language"] if isinstance(meta.get("language"), str) else None,
        context=_strings(meta.get("context")),
        goal_templates=templates,
        variables=variables,
        interaction_styles=styles if isinstance(styles, list) else [],
        settings=settings,
        turns=turns,
        outputs={
            key: OutputValue(value=value, type=_type_name(value), strategy="imported")
            for key, value in _merge_items(meta.get("data_output")).items()
        },
        errors=_errors(meta.get("errors")),
        duration=seconds(duration),
        fallback=meta["fallback"] if isinstance(meta.get("fallback"), str) else None,
        usage={SENSEI: ModelUsage(cost=spent)} if (spent := _cost(cost)) is not None else {},
        source=source,
        started_at=_started_at(serial),
        extra={SENSEI: {"serial": serial}},
    )


def _started_at(serial: Any) -> datetime | None:
    """When the conversation ran: SENSEI's serial is its start time (``_SERIAL_FORMAT``,
    local time, read as UTC); ``None`` for any other serial. Relative dates in its turns
    ("tomorrow", a numeric date either way round) are read against it."""
    try:
        return datetime.strptime(str(serial), _SERIAL_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None


def _turns(items: Any) -> list[Turn]:
    if not isinstance(items, list):
        raise _Malformed(2, ("interaction",), "expected a list of {User: text} / {Assistant: text}")
    turns = []
    for position, item in enumerate(items):
        role = next(iter(item), None) if isinstance(item, dict) and len(item) == 1 else None
        if not isinstance(role, str) or role.lower() not in _ROLE_NAMES:
            raise _Malformed(
                2, ("interaction", position), "expected a single {User: text} or {Assistant: text}"
            )
        value = item[role]
        text = value if isinstance(value, str) else "" if value is None else str(value)
        kind = "user" if role.lower() == "user" else "assistant"
        buttons = parse_sensei_buttons(text) if kind == "assistant" else []
        turns.append(Turn(role=kind, text=text, buttons=buttons))
    return turns


def parse_sensei_buttons(text: str) -> list[Button]:
    """Buttons rendered in SENSEI's text form (``AVAILABLE BUTTONS:`` then one
    ``- BUTTON TEXT: <text> LINK: <link>`` line each; ``<empty>`` means no link)."""
    start = text.find(SENSEI_BUTTONS_HEADER)
    if start < 0:
        return []
    buttons = []
    for line in text[start + len(SENSEI_BUTTONS_HEADER) :].splitlines():
        match = _BUTTON_LINE.match(line)
        if match:
            link = match["link"]
            buttons.append(
                Button(text=match["text"].strip(), link=None if link in ("", "<empty>") else link)
            )
    return buttons


def _assign_latencies(turns: list[Turn], values: Any) -> None:
    if not isinstance(values, list):
        return
    replies = [t for t in turns if t.role == "assistant"]
    if len(values) == len(replies) - 1 and turns[0].role == "assistant":
        replies = replies[1:]  # SENSEI does not time the chatbot's opening message
    for turn, value in zip(replies, values, strict=False):
        turn.latency = seconds(value)


_CLOCK = re.compile(r"^\s*(?:(\d+)\s+days?,\s*)?(\d+):([0-5]?\d):([0-5]?\d(?:\.\d+)?)\s*$")


def seconds(value: Any) -> float | None:
    """A SENSEI duration in seconds: a number, or ``str(timedelta)`` as some releases
    write it (``0:00:04.440728``, ``1 day, 2:03:04``); ``None`` for anything else."""
    if _is_number(value):
        return finite_number(value)
    match = _CLOCK.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    days, hours, minutes, secs = match.groups()
    return int(days or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + float(secs)


def _ask_about(items: Any) -> tuple[list[Any], dict[str, Any]]:
    if not isinstance(items, list):
        return [], {}
    templates = [item for item in items if not isinstance(item, dict)]
    return templates, _merge_items([item for item in items if isinstance(item, dict)])


def _merge_items(items: Any) -> dict[str, Any]:
    """SENSEI's list of single-key mappings (or a mapping) as one dict."""
    if isinstance(items, dict):
        return {str(k): v for k, v in items.items()}
    merged: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            merged.update({str(k): v for k, v in item.items()})
    return merged


def _errors(items: Any) -> list[ConversationError]:
    errors = []
    for item in items if isinstance(items, list) else []:
        for code, message in item.items() if isinstance(item, dict) else ():
            if isinstance(code, int) or (isinstance(code, str) and code.strip().isdigit()):
                text = "" if message is None else str(message)
                errors.append(ConversationError(code=int(code), message=text))
    return errors


def _strings(items: Any) -> list[str]:
    return [i for i in items if isinstance(i, str)] if isinstance(items, list) else []


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cost(value: Any) -> float | None:
    return finite_number(value)


def _type_name(value: Any) -> str:
    names = {bool: "bool", int: "int", float: "float", list: "list", dict: "dict"}
    return names.get(type(value), "string")


def _profile_and_index(name: str, serial: Any) -> tuple[str, int]:
    match = re.fullmatch(r"(\d+)_(.+)", name)
    if not match:
        return name, 0
    rest = match[2]
    suffix = f"_{serial}"
    if isinstance(serial, str) and serial and rest.endswith(suffix) and len(rest) > len(suffix):
        rest = rest[: -len(suffix)]
    return rest, int(match[1])


def _keep_leftovers(record: ConversationRecord, documents: list[dict[str, Any]]) -> None:
    """Store in ``extra["sensei"]`` what the mapped record would not reproduce."""
    produced = _mapped_documents(record, record.extra[SENSEI]["serial"])
    verbatim: dict[str, dict[str, Any]] = {}
    keys: dict[str, list[str]] = {}
    for name, original, mapped in zip(DOCUMENTS, documents, produced, strict=True):
        changed = {
            str(k): v for k, v in original.items() if k not in mapped or not _same(v, mapped[k])
        }
        if changed:
            verbatim[name] = changed
        if [str(k) for k in original] != list(mapped):
            keys[name] = [str(k) for k in original]
    if verbatim:
        record.extra[SENSEI]["verbatim"] = verbatim
    if keys:
        record.extra[SENSEI]["keys"] = keys


def _same(a: Any, b: Any) -> bool:
    """Equal including types and key order (``1`` is not ``1.0``, nor ``True``); a key
    JSON has no form for (a YAML date) compares as its text."""
    return json.dumps(_json_keys(a), default=str) == json.dumps(_json_keys(b), default=str)


def _json_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k if isinstance(k, str | int | float | bool) or k is None else str(k): _json_keys(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_json_keys(v) for v in value]
    return value


def _mapped_documents(record: ConversationRecord, serial: Any) -> list[dict[str, Any]]:
    latencies = [t.latency for t in record.turns if t.role == "assistant" and t.latency is not None]
    settings = dict(record.settings)
    if "interaction_style" not in settings and record.interaction_styles:
        settings["interaction_style"] = list(record.interaction_styles)
    metadata = {
        "serial": serial,
        "language": record.language,
        "context": list(record.context),
        "ask_about": [*record.goal_templates, *({k: v} for k, v in record.variables.items())],
        "conversation": [{k: v} for k, v in settings.items()],
        "data_output": [{k: output.value} for k, output in record.outputs.items()],
        "errors": [{int(error.code): error.message} for error in record.errors],
    }
    if record.usage:
        metadata[COST_KEY] = round(sum(u.cost for u in record.usage.values()), 8)
    if record.fallback is not None:
        metadata["fallback"] = record.fallback
    timing = {
        "conversation time": record.duration,
        "assistant response time": latencies,
        "response time report": _time_report(latencies),
    }
    interaction = {
        "interaction": [{_ROLE_NAMES[t.role]: t.sensei_text} for t in record.turns],
    }
    return [metadata, timing, interaction]


_PANDAS_SECONDS = (2**63 - 1) / 1e9
"""The longest duration pandas holds as a timedelta (int64 nanoseconds, ~292 years)."""


def _time_report(latencies: list[float]) -> dict[str, float | None]:
    """SENSEI's ``get_time_stats``: mean, max and min in seconds as pandas computes them
    (whole nanoseconds per value, truncated to microseconds, rounded to 6 places)."""
    if not latencies or max(abs(v) for v in latencies) > _PANDAS_SECONDS:
        return {"average": None, "max": None, "min": None}  # none, or no pandas timedelta
    nanoseconds = [_pandas_nanoseconds(value) for value in latencies]

    def seconds(ns: int) -> float:
        return round(ns // 1000 / 1e6, 6)

    return {
        "average": seconds(sum(nanoseconds) // len(nanoseconds)),
        "max": seconds(max(nanoseconds)),
        "min": seconds(min(nanoseconds)),
    }


def _pandas_nanoseconds(seconds: float) -> int:
    """``pandas.to_timedelta(seconds, unit="s")`` in nanoseconds (its float split)."""
    whole = int(seconds)
    return whole * 1_000_000_000 + int(round(seconds - whole, 9) * 1e9)


def sensei_serial(record: ConversationRecord, default: str | None = None) -> str:
    """The SENSEI serial of a record: the imported one, else ``default``, else the start
    time as ``YYYY-MM-DD-HH-MM-SS``, else ``unknown``."""
    kept = record.extra.get(SENSEI)
    if isinstance(kept, dict) and kept.get("serial") is not None:
        return str(kept["serial"])
    if default is not None:
        return default
    return record.started_at.strftime(_SERIAL_FORMAT) if record.started_at else "unknown"


def export_sensei(record: ConversationRecord, *, serial: str | None = None) -> str:
    """The record as a SENSEI conversation file (three YAML documents), dumped with
    SENSEI's own options. ``serial`` is used when the record has no SENSEI serial (see
    ``sensei_serial``). Values kept by ``import_sensei`` are written back verbatim."""
    kept = record.extra.get(SENSEI)
    kept = kept if isinstance(kept, dict) else {}
    documents = _mapped_documents(record, kept.get("serial", sensei_serial(record, serial)))
    verbatim = kept.get("verbatim") or {}
    order = kept.get("keys") or {}
    for position, name in enumerate(DOCUMENTS):
        document = documents[position]
        document.update(verbatim.get(name) or {})
        if name in order:
            documents[position] = {k: document[k] for k in order[name] if k in document}
    return yaml.safe_dump_all(
        documents, allow_unicode=True, default_flow_style=False, sort_keys=False
    )


def sensei_path(record: ConversationRecord, *, serial: str | None = None) -> PurePosixPath:
    """Relative path of the record's SENSEI file: its id (plus ``.yml``) for an imported
    record whose id is a safe relative path (so an imported tree is rebuilt as it was),
    else SENSEI's layout ``<profile>/<serial>/<index>_<profile>_<serial>.yml``."""
    parts = record.id.split("/")
    if SENSEI in record.extra and all(_safe_part(p) == p for p in parts):
        return PurePosixPath(f"{record.id}.yml")
    value = _safe_part(sensei_serial(record, serial))
    profile = _safe_part(record.profile)
    return PurePosixPath(profile, value, f"{record.index}_{profile}_{value}.yml")


def _safe_part(name: str) -> str:
    """``name`` usable as one path component (no separators, not ``.``/``..``/empty)."""
    cleaned = name.replace("/", "_").replace("\\", "_")
    return "_" if cleaned in ("", ".", "..") else cleaned
