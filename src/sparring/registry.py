"""``Registry[T]``: names → objects, filled by decorators and entry-point plug-ins.

One helper behind every registry sparring has — connectors (``sparring.connectors``),
model providers (``sparring.llm``), rule functions (``sparring.check``) and file schemas
(``sparring.schemas``)::

    WIDGETS: Registry[Widget] = Registry("widget", group="sparring.widgets")

    @WIDGETS.decorator("round")
    def round_widget(...): ...

    WIDGETS.get("round")        # UnknownName, with "did you mean" and a plug-in's error
    WIDGETS.items()             # every name, plug-ins loaded; WIDGETS.failures() says which
                                # plug-ins could not load

Rules, the same for every registry:

- **Duplicates are errors.** Registering a taken name raises ``DuplicateName`` unless
  ``replace=True`` is passed (or registration happens inside ``replacing()``); registering
  the very same object again is a no-op.
- **Built-ins and plug-ins load lazily.** ``builtins`` (module names) are imported on the
  first lookup or listing; the entry points of ``group`` are loaded only when a name is
  not found, or when every name is listed. Each entry point is loaded at most once.
- **Load errors are reported, not raised.** A plug-in that fails to import (or loads
  something that is not a ``T``) is kept in ``failures()`` and logged as a warning; a
  lookup of its name raises ``UnknownName`` saying why.
- **Tests restore state.** ``override(name, obj)`` and ``snapshot()`` are context managers
  that put everything back on exit; ``reset()`` returns to the built-in state.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sparring.errors import DuplicateName, Problem, UnknownName

logger = logging.getLogger(__name__)

T = TypeVar("T")
F = TypeVar("F")

Adopt = Callable[[str, Any], Any]
"""``adopt(entry_point_name, loaded) -> T | None``: what a loaded entry point registers.

``None`` means "nothing to register, and that is fine" (e.g. a module whose decorators
registered on import); raise ``TypeError`` (message: what is wrong) for something
unusable."""


@dataclass(frozen=True)
class PluginFailure:
    """An entry point that could not be loaded: its ``name``, ``value``
    (``package.module:attr``) and ``reason`` (``"ImportError: …"``); ``error`` is the
    exception itself."""

    name: str
    value: str
    reason: str
    error: BaseException = field(compare=False, repr=False)

    def __str__(self) -> str:
        return f"plug-in {self.name!r} ({self.value}) failed to load: {self.reason}"


@dataclass
class _State(Generic[T]):
    entries: dict[str, T] = field(default_factory=dict)
    attempted: set[str] = field(default_factory=set)
    failures: dict[str, PluginFailure] = field(default_factory=dict)
    all_loaded: bool = False

    def copy(self) -> _State[T]:
        return _State(dict(self.entries), set(self.attempted), dict(self.failures), self.all_loaded)


class Registry(Generic[T]):
    """A typed registry of ``T`` by name (see the module docstring for the rules).

    ``kind`` names the things in messages (``"connector"``); ``group`` is the entry-point
    group plug-ins use (``None``: no plug-ins); ``builtins`` are modules imported on first
    use, whose decorators register the built-ins; ``adopt`` turns what an entry point
    loaded into a ``T`` (default: the loaded object itself, modules ignored); ``unknown``
    is the ``UnknownName`` subclass raised by ``get``.
    """

    def __init__(
        self,
        kind: str,
        *,
        group: str | None = None,
        builtins: Sequence[str] = (),
        adopt: Adopt | None = None,
        unknown: type[UnknownName] = UnknownName,
    ) -> None:
        self.kind = kind
        self.group = group
        self.builtins = tuple(builtins)
        self._adopt = adopt or _adopt_object
        self._unknown = unknown
        self._state: _State[T] = _State()
        self._baseline: _State[T] | None = None
        self._replacing = 0

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, group={self.group!r})"

    # Registration ---------------------------------------------------------------------

    def register(self, name: str, obj: T, *, replace: bool = False) -> T:
        """Register ``obj`` as ``name`` and return it.

        Raises ``DuplicateName`` when ``name`` is taken by another object, unless
        ``replace`` is true or this runs inside ``replacing()``.
        """
        existing = self._state.entries.get(name)
        if existing is not None and existing is not obj and not (replace or self._replacing):
            raise DuplicateName(self.kind, name, existing)
        self._state.entries[name] = obj
        return obj

    def decorator(self, name: str | None = None, *, replace: bool = False) -> Callable[[F], F]:
        """``@registry.decorator("name")``: register the decorated object (its
        ``__name__`` when ``name`` is ``None``) and return it unchanged."""

        def register(obj: F) -> F:
            self.register(name or getattr(obj, "__name__"), obj, replace=replace)  # type: ignore[arg-type]  # noqa: B009
            return obj

        return register

    @contextmanager
    def replacing(self) -> Iterator[None]:
        """Within the block, registering a taken name replaces it (e.g. importing a user's
        file whose functions may replace built-ins)."""
        self._replacing += 1
        try:
            yield
        finally:
            self._replacing -= 1

    # Lookup -------------------------------------------------------------------------------

    def peek(self, name: str) -> T | None:
        """The object registered as ``name`` so far, loading nothing; ``None`` if none."""
        return self._state.entries.get(name)

    def find(self, name: str) -> T | None:
        """The object registered as ``name``, loading plug-ins if needed; ``None`` if none."""
        self._load_builtins()
        if name not in self._state.entries:
            self._load_plugins(name)
        return self._state.entries.get(name)

    def get(self, name: str, *, where: Problem | None = None) -> T:
        """The object registered as ``name`` (built in, or from a plug-in loaded now).

        Raises ``UnknownName`` (the registry's subclass; located at ``where`` when given)
        listing the names and the close ones, or saying why the plug-in of that name
        failed to load.
        """
        found = self.find(name)
        if found is not None:
            return found
        failure = self._state.failures.get(name)
        available = self.names()
        raise self._unknown(
            self.kind,
            name,
            available,
            suggestions=difflib.get_close_matches(name, available, n=2, cutoff=0.6),
            reason=failure.reason if failure else None,
            where=where,
        )

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def items(self, *, plugins: bool = True) -> dict[str, T]:
        """Every registered object by name (sorted). ``plugins`` loads every entry point
        first (failures go to ``failures()``); without it, only what is loaded so far."""
        self._load_builtins()
        if plugins:
            self.load_plugins()
        return dict(sorted(self._state.entries.items()))

    def names(self, *, plugins: bool = True) -> list[str]:
        """Every registered name, sorted (see ``items``)."""
        return list(self.items(plugins=plugins))

    def failures(self) -> list[PluginFailure]:
        """The entry points that failed to load so far, by name."""
        return [self._state.failures[n] for n in sorted(self._state.failures)]

    def load_plugins(self) -> list[PluginFailure]:
        """Load every entry point of ``group`` not loaded yet; return ``failures()``."""
        self._load_builtins()
        if not self._state.all_loaded:
            self._load_plugins(None)
            self._state.all_loaded = True
        return self.failures()

    # Tests ---------------------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[Registry[T]]:
        """Within the block, change the registry freely; on exit everything (entries,
        loaded plug-ins, failures) is as it was (built-ins are loaded first)."""
        self._load_builtins()
        saved = self._state.copy()
        try:
            yield self
        finally:
            self._state = saved

    @contextmanager
    def override(self, name: str, obj: T) -> Iterator[T]:
        """Within the block, ``name`` is ``obj`` (replacing what was there); restored on exit."""
        with self.snapshot():
            self.register(name, obj, replace=True)
            yield obj

    def reset(self) -> None:
        """Back to the built-in state: what was registered once the built-ins had loaded,
        no plug-in loaded, no failure."""
        self._load_builtins()
        assert self._baseline is not None
        self._state = self._baseline.copy()

    # Loading -----------------------------------------------------------------------------

    def _load_builtins(self) -> None:
        if self._baseline is None:
            self._baseline = _State()  # set first: a built-in module may look names up
            for module in self.builtins:
                importlib.import_module(module)
            self._baseline = _State(dict(self._state.entries))

    def _load_plugins(self, name: str | None) -> None:
        if self.group is None or self._state.all_loaded:
            return
        for point in importlib.metadata.entry_points(group=self.group):
            if (name is None or point.name == name) and point.name not in self._state.attempted:
                self._state.attempted.add(point.name)
                self._load_entry_point(point)

    def _load_entry_point(self, point: importlib.metadata.EntryPoint) -> None:
        try:
            loaded = point.load()
            if point.name in self._state.entries:
                return  # registered by its own decorator on import
            obj = self._adopt(point.name, loaded)
            if obj is not None:
                self.register(point.name, obj)
        except Exception as exc:
            reason = str(exc) if isinstance(exc, TypeError) else f"{type(exc).__name__}: {exc}"
            failure = PluginFailure(point.name, point.value, reason, exc)
            self._state.failures[point.name] = failure
            logger.warning("%s %s", self.kind, failure)


def _adopt_object(name: str, loaded: Any) -> Any:
    """The default ``adopt``: a module registers on import; anything else is the ``T``."""
    import types

    return None if isinstance(loaded, types.ModuleType) else loaded
