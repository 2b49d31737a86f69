"""Turn-level properties: predicates over the sequence of a conversation's turns.

Each form takes predicates — expressions evaluated once per turn with ``turn`` (a
``TurnView``: ``role``, ``text``, ``buttons``, ``latency``, ``timestamp``, ``index``),
``index`` (its 0-based position) and ``earlier`` (the turns before it) bound — and two
optional keywords: ``role='assistant'`` or ``role='user'`` restricts the sequence to one
speaker's turns (``'chatbot'`` is accepted for the assistant), ``of=conv[1]`` picks the
conversation in a metamorphic rule. The forms:

- ``always(P)`` / ``never(P)`` / ``eventually(P)``: P holds on every / no / some turn;
  over no turns at all, ``always``, ``never``, ``before`` and ``within`` hold only
  vacuously, so they raise ``NotApplicable`` (the verdict is *not applicable*);
- ``count(P)``: on how many turns P holds;
- ``before(A, B)``: B never holds unless A held on an earlier turn ("an order is confirmed
  only after the user has given a size");
- ``within(n, A, B)``: every turn where A holds is followed, at most ``n`` turns later (in
  the sequence considered), by one where B holds;
- ``streak(P)``: the longest run of consecutive turns where P holds ("no more than 2
  fallbacks in a row": ``streak(..., role='assistant') <= 2``).

A violated property leaves an ``Evidence`` naming the turns involved, shown with the
verdict. See docs/rules.md for examples.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sparring.check._namespace import ConversationView, TurnView
from sparring.check._safety import NotApplicable
from sparring.check._sandbox import Evaluator, special_form
from sparring.results import Evidence

_ROLES = {"assistant": "assistant", "chatbot": "assistant", "user": "user"}


@dataclass
class _Turns:
    """The turns a form ranges over and the way to test a predicate on one of them."""

    evaluator: Evaluator
    all_turns: tuple[TurnView, ...]
    sequence: tuple[TurnView, ...]

    def holds(self, predicate: ast.AST, turn: TurnView) -> bool:
        bindings = {"turn": turn, "index": turn.index, "earlier": self.all_turns[: turn.index]}
        return bool(self.evaluator.evaluate(predicate, bindings))

    def where(self, predicate: ast.AST) -> list[int]:
        """Positions in ``sequence`` where ``predicate`` holds."""
        return [p for p, turn in enumerate(self.sequence) if self.holds(predicate, turn)]

    def note(self, function: str, reason: str, positions: list[int]) -> None:
        turns = [self.sequence[p].index for p in positions]
        self.evaluator.scope.context.evidence.append(
            Evidence(function=function, reason=reason, turns=turns)
        )


def _setup(
    evaluator: Evaluator, node: ast.Call, name: str, arity: int
) -> tuple[_Turns, list[ast.expr]]:
    """Check the call's shape and resolve ``role=`` and ``of=``."""
    if len(node.args) != arity:
        raise TypeError(f"{name}() takes {arity} positional argument(s), got {len(node.args)}")
    options = {k.arg: k for k in node.keywords}
    unknown = set(options) - {"role", "of"}
    if unknown:
        raise TypeError(f"{name}() got unexpected keyword(s): {', '.join(map(str, unknown))}")
    role = evaluator.evaluate(options["role"].value) if "role" in options else None
    if role is not None and role not in _ROLES:
        raise ValueError(f"{name}(): role must be 'user' or 'assistant', not {role!r}")
    view = evaluator.evaluate(options["of"].value) if "of" in options else None
    view = view if view is not None else evaluator.scope.conversation
    if not isinstance(view, ConversationView):
        raise TypeError(
            f"{name}() needs a conversation: in a rule over several conversations, "
            "say which one with of=conv[0]"
        )
    all_turns: tuple[TurnView, ...] = view.names["turns"]
    wanted = _ROLES.get(role) if role else None
    sequence = tuple(t for t in all_turns if wanted is None or t.role == wanted)
    return _Turns(evaluator, all_turns, sequence), list(node.args)


def _require_turns(turns: _Turns, name: str) -> None:
    """A property over no turns holds vacuously: its verdict is not applicable."""
    if not turns.sequence:
        raise NotApplicable(f"{name}() has no turns to range over")


def _describe(turns: _Turns, position: int) -> str:
    turn = turns.sequence[position]
    text = turn.text if len(turn.text) <= 80 else turn.text[:77] + "..."
    return f"turn {turn.index} ({turn.role}): {text!r}"


@special_form("always")
def always(evaluator: Evaluator, node: ast.Call) -> bool:
    turns, (predicate,) = _setup(evaluator, node, "always", 1)
    _require_turns(turns, "always")
    for position, turn in enumerate(turns.sequence):
        if not turns.holds(predicate, turn):
            turns.note("always", f"does not hold on {_describe(turns, position)}", [position])
            return False
    return True


@special_form("never")
def never(evaluator: Evaluator, node: ast.Call) -> bool:
    turns, (predicate,) = _setup(evaluator, node, "never", 1)
    _require_turns(turns, "never")
    hits = turns.where(predicate)
    if hits:
        shown = "; ".join(_describe(turns, p) for p in hits[:3])
        turns.note("never", f"holds on {len(hits)} turn(s): {shown}", hits)
    return not hits


@special_form("eventually")
def eventually(evaluator: Evaluator, node: ast.Call) -> bool:
    turns, (predicate,) = _setup(evaluator, node, "eventually", 1)
    for turn in turns.sequence:
        if turns.holds(predicate, turn):
            return True
    turns.note("eventually", f"holds on none of {len(turns.sequence)} turn(s)", [])
    return False


@special_form("count")
def count(evaluator: Evaluator, node: ast.Call) -> int:
    turns, (predicate,) = _setup(evaluator, node, "count", 1)
    hits = turns.where(predicate)
    turns.note("count", f"{len(hits)} turn(s)", hits)
    return len(hits)


@special_form("before")
def before(evaluator: Evaluator, node: ast.Call) -> bool:
    turns, (first, then) = _setup(evaluator, node, "before", 2)
    _require_turns(turns, "before")
    seen_first = False
    for position, turn in enumerate(turns.sequence):
        if turns.holds(then, turn) and not seen_first:
            turns.note("before", f"{_describe(turns, position)} comes first", [position])
            return False
        seen_first = seen_first or turns.holds(first, turn)
    return True


@special_form("within")
def within(evaluator: Evaluator, node: ast.Call) -> bool:
    turns, (limit_node, trigger, response) = _setup(evaluator, node, "within", 3)
    _require_turns(turns, "within")
    limit = evaluator.evaluate(limit_node)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"within(): the number of turns must be a positive integer, not {limit!r}")
    responses = set(turns.where(response))
    for position in turns.where(trigger):
        if not any(position < later <= position + limit for later in responses):
            reason = f"no answer within {limit} turn(s) after {_describe(turns, position)}"
            turns.note("within", reason, [position])
            return False
    return True


@special_form("streak")
def streak(evaluator: Evaluator, node: ast.Call) -> int:
    turns, (predicate,) = _setup(evaluator, node, "streak", 1)
    best: list[int] = []
    current: list[int] = []
    for position, turn in enumerate(turns.sequence):
        current = [*current, position] if turns.holds(predicate, turn) else []
        if len(current) > len(best):
            best = current
    if best:
        turns.note("streak", f"{len(best)} turn(s) in a row from {_describe(turns, best[0])}", best)
    return len(best)


FORMS: dict[str, Callable[[Evaluator, ast.Call], Any]] = {
    "always": always,
    "never": never,
    "eventually": eventually,
    "count": count,
    "before": before,
    "within": within,
    "streak": streak,
}
