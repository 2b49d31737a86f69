"""What a rule sees of a conversation: its namespace, built as SENSEI-check builds it.

SENSEI-check (``Test.to_dict`` in ``metamorphic/tests.py``, user-simulator 1.1.5) puts in a
rule's namespace, in this order (later entries win):

1. each goal variable (``ask_about``) with its picked value as SENSEI 1.1.5 records it (see
   ``profiles/_planner.py``): a scalar for one picked value (``ap_date ==
   'tomorrow'``), a list for several (``'ham' in toppings``); an imported conversation's
   values reach rules exactly as its file stores them (older SENSEI releases wrote
   one-element lists, so their rules write ``size[0]``);
2. each conversation setting, flattened: ``conversation_number`` and ``number``,
   ``conversation_goal_style_steps`` and ``steps``;
3. each output data item, flattened the same way: ``data_output_price`` and ``price``; a
   ``time``, ``date`` or ``money`` output is its stored text compared as a value
   (``check/_typed.py``: ``appointment_time == '11:00'`` holds for ``"11:00:00"``);
4. ``interaction`` (``[{"User": text}, {"Assistant": text}, …]``), ``chatbot_phrases``,
   ``user_phrases`` and ``data_output`` (the list of ``{name: value}`` items);
5. ``conv``: ``[this conversation]`` in single-conversation rules, the tuple under check in
   metamorphic ones (attributes are the names above: ``conv[1].size``).

One deliberate difference: SENSEI lets the *unprefixed* setting names shadow goal variables,
so a goal variable called ``number`` (the paper's drinks example) reads the setting instead.
Here a goal variable wins over an unprefixed setting; the setting stays reachable as
``conversation_number``.

sparring adds, under any user name: ``turns`` (``TurnView``: role, text, buttons, latency
in seconds, timestamp), ``errors`` (``ErrorView``), ``response_times`` (seconds),
``profile``, ``conversation_id``, ``source_conversation`` and ``transformation`` (a
follow-up of ``sparring metamorphic``: its source record id and perturbation, else
``None``) and ``chatbot`` (``ChatbotView``: chatbot.yaml's
``info`` — name, description, type, languages — and the conversation's ``fallback``, the
profile's where it set one, else ``info.fallback``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sparring.check._typed import typed_output
from sparring.conversations import ConversationRecord
from sparring.profiles import read_output_type, value_kind

if TYPE_CHECKING:
    from sparring.connectors import ChatbotInfo

SENSEI_SPEAKERS = {"user": "User", "assistant": "Assistant"}


@dataclass(frozen=True, slots=True)
class ButtonView:
    """A button of a chatbot turn: its text and link (``None`` when it has none)."""

    text: str
    link: str | None


@dataclass(frozen=True, slots=True)
class TurnView:
    """One turn as rules see it. ``index`` is 0-based; ``latency`` is seconds (chatbot turns);
    ``timestamp`` is ISO 8601 or ``None``; ``text`` is SENSEI's text (buttons rendered)."""

    index: int
    role: str
    text: str
    messages: tuple[str, ...]
    buttons: tuple[ButtonView, ...]
    latency: float | None
    timestamp: str | None

    def __str__(self) -> str:
        return f"{self.role}: {self.text}"


@dataclass(frozen=True, slots=True)
class ErrorView:
    """A generic failure recorded on the conversation (SENSEI code, name, message, turn)."""

    code: int
    name: str
    message: str
    turn: int | None


@dataclass(frozen=True, slots=True)
class ChatbotView:
    """``chatbot``: what the chatbot under test is (chatbot.yaml's ``info``). ``languages``
    are ISO 639-1 codes; ``fallback`` is the conversation's fallback phrase (the profile's,
    else ``info.fallback``); fields chatbot.yaml leaves out are ``None`` (``()``)."""

    name: str | None = None
    description: str | None = None
    type: str | None = None
    languages: tuple[str, ...] = ()
    fallback: str | None = None

    @classmethod
    def of(cls, record: ConversationRecord, info: ChatbotInfo | None) -> ChatbotView:
        """The view for ``record``: ``info``'s fields, the record's fallback first."""
        if info is None:
            return cls(fallback=record.fallback)
        return cls(
            name=info.name,
            description=info.description,
            type=info.type,
            languages=tuple(info.languages),
            fallback=record.fallback or info.fallback,
        )


VIEW_FIELDS: dict[type, frozenset[str]] = {
    cls: frozenset(f.name for f in fields(cls))
    for cls in (ButtonView, TurnView, ErrorView, ChatbotView)
}


class ConversationView:
    """``conv[i]``: one conversation's namespace read as attributes (SENSEI's
    ``SimpleNamespace``); ``record`` is the conversation itself."""

    __slots__ = ("names", "record")

    def __init__(self, record: ConversationRecord, names: Mapping[str, Any]) -> None:
        self.record = record
        self.names = names

    def __repr__(self) -> str:
        return f"<conversation {self.record.id}>"


def has_attribute(obj: Any, name: str) -> bool:
    """``hasattr`` as the sandbox allows it (views and allowed methods only)."""
    from sparring.check._safety import ALLOWED_METHODS

    if isinstance(obj, ConversationView):
        return name in obj.names
    view_fields = VIEW_FIELDS.get(type(obj))
    if view_fields is not None:
        return name in view_fields
    return name in ALLOWED_METHODS.get(type(obj), ())


def turn_views(record: ConversationRecord) -> tuple[TurnView, ...]:
    """The record's turns as immutable views."""
    return tuple(
        TurnView(
            index=i,
            role=turn.role,
            text=turn.sensei_text,
            messages=tuple(turn.messages),
            buttons=tuple(ButtonView(b.text, b.link) for b in turn.buttons),
            latency=turn.latency,
            timestamp=turn.timestamp.isoformat() if turn.timestamp else None,
        )
        for i, turn in enumerate(record.turns)
    )


def _flatten(prefix: str, mapping: Mapping[Any, Any]) -> Iterator[tuple[str, str, Any]]:
    """SENSEI's ``__flatten_dict``: ``(prefixed name, plain name, value)`` per leaf."""
    for key, value in mapping.items():
        if isinstance(value, dict):
            yield from _flatten(f"{prefix}_{key}", value)
        else:
            yield f"{prefix}_{key}", str(key), value


def _link(record: ConversationRecord) -> dict[str, Any]:
    """The metamorphic link of a follow-up (``sparring metamorphic``), else ``{}``."""
    link = record.extra.get("metamorphic")
    return link if isinstance(link, dict) and link.get("role") == "follow-up" else {}


def _kind(type_name: str) -> str:
    """The value kind of an output type name (an unknown name is ``string``)."""
    return value_kind(read_output_type(type_name))


def build_namespace(
    record: ConversationRecord, chatbot: ChatbotInfo | None = None
) -> dict[str, Any]:
    """The SENSEI-check namespace of one conversation (see the module docstring), without
    ``conv``, which the evaluator adds for the rule's arity. ``chatbot`` is chatbot.yaml's
    ``info`` (``None``: unknown; ``chatbot`` then holds the record's fallback only)."""
    views = turn_views(record)
    names: dict[str, Any] = {
        "profile": record.profile,
        "conversation_id": record.id,
        "chatbot": ChatbotView.of(record, chatbot),
        "turns": views,
        "errors": tuple(ErrorView(int(e.code), e.name, e.message, e.turn) for e in record.errors),
        "response_times": record.response_times,
        "source_conversation": _link(record).get("source"),
        "transformation": _link(record).get("perturbation"),
    }
    settings = list(_flatten("conversation", record.settings))
    names.update((plain, value) for _, plain, value in settings)
    names.update(record.variables)
    names.update((prefixed, value) for prefixed, _, value in settings)
    data_output = [
        {key: typed_output(_kind(output.type), output.value)}
        for key, output in record.outputs.items()
    ]
    for item in data_output:
        for prefixed, plain, value in _flatten("data_output", item):
            names[prefixed] = value
            names[plain] = value
    names["interaction"] = [{SENSEI_SPEAKERS[v.role]: v.text} for v in views]
    names["chatbot_phrases"] = [v.text for v in views if v.role == "assistant"]
    names["user_phrases"] = [v.text for v in views if v.role == "user"]
    names["data_output"] = data_output
    names["output_confidence"] = {key: output.confidence for key, output in record.outputs.items()}
    return names


def run_chatbot_info(path: str | Path) -> ChatbotInfo | None:
    """chatbot.yaml's ``info`` as the run directory at ``path`` recorded it in its manifest
    (``None`` for a folder of conversations, or a run that recorded none). Raises
    ``ConfigError`` when the manifest or its ``info`` does not validate."""
    from sparring.connectors import recorded_info
    from sparring.conversations import MANIFEST, RunStore, is_run_directory

    if not is_run_directory(path):
        return None
    store = RunStore.open(path, clean=False)
    return recorded_info(store.manifest.chatbot, store.path / MANIFEST)


class Namespaces:
    """Each conversation's namespace, built once and shared by every rule of a check;
    ``chatbot`` is chatbot.yaml's ``info`` (see ``build_namespace``)."""

    def __init__(
        self, records: list[ConversationRecord], chatbot: ChatbotInfo | None = None
    ) -> None:
        self.records = records
        self.chatbot = chatbot
        self._cache: dict[int, dict[str, Any]] = {}
        self._views: dict[int, ConversationView] = {}

    def __len__(self) -> int:
        return len(self.records)

    def names(self, index: int) -> dict[str, Any]:
        """The namespace of conversation ``index`` (without ``conv``)."""
        cached = self._cache.get(index)
        if cached is None:
            cached = self._cache[index] = build_namespace(self.records[index], self.chatbot)
        return cached

    def view(self, index: int) -> ConversationView:
        """``conv[i]`` for conversation ``index``."""
        view = self._views.get(index)
        if view is None:
            view = self._views[index] = ConversationView(self.records[index], self.names(index))
        return view

    def known_names(self) -> frozenset[str]:
        """Every name defined in at least one conversation."""
        known: set[str] = set()
        for index in range(len(self.records)):
            known.update(self.names(index))
        return frozenset(known)


class _Unequal:
    """Stands for NaN: equal to nothing, as ``float('nan') == x`` is always false."""

    __slots__ = ()


def canonical(value: Any) -> Any:
    """A hashable stand-in for ``value`` such that ``canonical(a) == canonical(b)`` exactly
    when ``a == b`` (lists, dicts and sets included). Raises ``TypeError`` for an
    unhashable value of another type."""
    if isinstance(value, float) and value != value:
        return _Unequal()
    if value is None or isinstance(value, str | bytes | int | float):
        return value
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(canonical(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((canonical(k), canonical(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return ("set", frozenset(canonical(v) for v in value))
    hash(value)
    return value


def exact_key(value: Any) -> Any:
    """Like ``canonical`` but also telling apart types and spellings (``1``, ``1.0``,
    ``True``, ``-0.0``): values with the same key behave the same in any expression."""
    if isinstance(value, float):
        return _Unequal() if value != value else ("float", repr(value))
    if value is None or isinstance(value, str | bytes | int):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(exact_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((exact_key(k), exact_key(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return (type(value).__name__, frozenset(exact_key(v) for v in value))
    hash(value)
    return (type(value).__name__, value)
