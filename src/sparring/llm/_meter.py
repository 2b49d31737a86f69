"""Cost budgets: a ``Meter`` per run and one per conversation, chained by ``parent``.

SENSEI (``user-simulator`` 1.1.5) stops a run at ``max_cost`` (error 2000) and a
conversation at ``max_conversation_cost`` (error 2001), but never resets its conversation
counter, so from the first expensive conversation on every later one is cut short. Here
each conversation gets its own meter whose parent is the run's meter: spending is added to
both, the conversation limit applies to that conversation only, the run limit to the sum.
"""

from __future__ import annotations

import threading
from typing import Literal

from sparring.errors import BudgetExceeded
from sparring.llm._types import Generation
from sparring.types import ModelUsage

Scope = Literal["run", "conversation"]


class Meter:
    """Spending (US dollars) and tokens by module, with an optional limit.

    ``limit`` is US dollars (``None``: no limit); ``scope`` names what the limit covers
    (``"run"`` → SENSEI code 2000, ``"conversation"`` → 2001); ``parent`` is the enclosing
    meter (a conversation's run meter), which sees every ``add`` too. Thread-safe.
    """

    def __init__(
        self,
        limit: float | None = None,
        scope: Scope = "run",
        parent: Meter | None = None,
    ) -> None:
        if limit is not None and limit < 0:
            raise ValueError(f"a budget limit cannot be negative (got {limit})")
        if scope not in ("run", "conversation"):
            raise ValueError(f"scope must be 'run' or 'conversation' (got {scope!r})")
        self.limit = limit
        self.scope: Scope = scope
        self.parent = parent
        self.usage: dict[str, ModelUsage] = {}
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        """US dollars spent through this meter (and its children)."""
        with self._lock:
            return sum(u.cost for u in self.usage.values())

    def conversation(self, limit: float | None = None) -> Meter:
        """A fresh conversation-scoped meter whose parent is this one."""
        return Meter(limit, scope="conversation", parent=self)

    def check(self) -> None:
        """Raise ``BudgetExceeded`` when this meter or any parent has reached its limit.

        Called before each model call; the limit is reached when spent >= limit.
        """
        meter: Meter | None = self
        while meter is not None:
            if meter.limit is not None:
                spent = meter.spent
                if spent >= meter.limit:
                    raise BudgetExceeded(meter.scope, meter.limit, spent)
            meter = meter.parent

    def add(self, generation: Generation) -> None:
        """Count one generation (one call, tokens, cost) here and in every parent."""
        meter: Meter | None = self
        while meter is not None:
            meter._add_one(generation)
            meter = meter.parent

    def _add_one(self, generation: Generation) -> None:
        with self._lock:
            usage = self.usage.setdefault(generation.module, ModelUsage())
            usage.calls += 1
            usage.prompt_tokens += generation.prompt_tokens
            usage.completion_tokens += generation.completion_tokens
            usage.cost += generation.cost

    def __repr__(self) -> str:
        return f"Meter(scope={self.scope!r}, limit={self.limit!r}, spent={self.spent:.6f})"
