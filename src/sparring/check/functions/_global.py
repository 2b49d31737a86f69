"""Global functions, over every conversation of a ``conversations: all`` rule:
``is_unique``, ``exists``, ``num_exist``.

Source: SENSEI-check (``rule_utils.py`` of user-simulator 1.1.5). They read
``context.conversations`` (the conversations that passed the rule's ``when``/``if``) and
use the evaluator's hooks on the context: ``evaluate(expression, conversation)`` for
conditions and ``namespace_of(conversation)`` for the names a rule sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sparring.check._context import FunctionContext, rule_function
from sparring.check._safety import Unscored
from sparring.check.functions._common import note
from sparring.conversations import ConversationRecord
from sparring.errors import SparringError


def _names(context: FunctionContext, record: ConversationRecord) -> Mapping[str, Any]:
    if context.namespace_of is not None:
        return context.namespace_of(record)
    names: dict[str, Any] = dict(record.variables)  # without the evaluator: data only
    names.update({name: output.value for name, output in record.outputs.items()})
    return names


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


@rule_function("is_unique")
def is_unique(context: FunctionContext, property: str) -> bool:
    """True when no two conversations have the same value for the variable or output
    named ``property`` (e.g. ``is_unique('order_id')``). Conversations without it, or
    where it is ``None``, are skipped, as in SENSEI-check; on a failure the evidence names
    the first two conversations that share a value, and ``involved`` every conversation
    that shares one, with the turns whose text shows the value. Raises ``Unscored`` (the
    verdict is *unscored*, never a pass) when fewer than two conversations have a value:
    nothing was compared (e.g. the outputs were named ``id``, not ``order_id``)."""
    holders: dict[Any, list[tuple[ConversationRecord, Any]]] = {}
    count = 0
    for record in context.conversations:
        names = _names(context, record)
        if property not in names or names[property] is None:
            continue
        count += 1
        holders.setdefault(_hashable(names[property]), []).append((record, names[property]))
    if count < 2:
        raise Unscored(_too_few(context, property, count))
    shared = [group for group in holders.values() if len(group) > 1]
    if not shared:
        note(context, "is_unique", reason=f"{count} conversations, {count} distinct values")
        return True
    (first, value), (second, _) = shared[0][:2]
    reason = f"{second.id} and {first.id} have value {value!r} for {property}"
    if len(shared) > 1 or len(shared[0]) > 2:
        count = sum(len(group) for group in shared)
        reason += f" ({count} conversations share {len(shared)} value(s))"
    evidence = note(context, "is_unique", reason=reason)
    evidence.involved = {
        record.id: _turns_showing(record, value) for group in shared for record, value in group
    }
    return False


def _too_few(context: FunctionContext, name: str, count: int) -> str:
    """Why ``name`` could not be compared: no conversation (or only one) produced it, with
    the outputs the conversations did produce (a misnamed output shows there)."""
    produced = sorted(
        {output for record in context.conversations for output in record.outputs} - {name}
    )
    shown = f" (outputs produced: {', '.join(produced)})" if produced else ""
    if count == 0:
        return f"no conversation produced output `{name}`{shown}"
    return f"only 1 conversation produced output `{name}`: nothing to compare it with{shown}"


def _turns_showing(record: ConversationRecord, value: Any) -> list[int]:
    text = str(value).strip().lower()
    if not text:
        return []
    return [i for i, turn in enumerate(record.turns) if text in turn.text.lower()]


def _satisfying(context: FunctionContext, function: str, condition: str, stop: bool) -> list[str]:
    """The ids of the conversations satisfying ``condition`` (the first only when
    ``stop``). A conversation where the condition reads a name it lacks (an output it did
    not produce) is skipped; ``Unscored`` when every conversation lacks one (the condition
    was judged on nothing), naming it."""
    if context.evaluate is None:
        raise SparringError(f"{function}() needs the rule evaluator (context.evaluate is unset)")
    found, missing = [], None
    judged = 0
    for record in context.conversations:
        try:
            satisfied = context.evaluate(condition, record)
        except NameError as exc:
            missing = missing or exc
            continue
        judged += 1
        if satisfied:
            found.append(record.id)
            if stop:
                break
    if missing is not None and not judged:
        name = getattr(missing, "name", None)
        what = _too_few(context, name, 0) if name else f"no conversation could be judged: {missing}"
        raise Unscored(f"{function}({condition!r}): {what}")
    return found


@rule_function("exists")
def exists(context: FunctionContext, condition: str) -> bool:
    """True when at least one conversation satisfies ``condition``, an expression in the
    rules language evaluated with that conversation's names (e.g.
    ``exists('extract_float(cost) > 50')``). Errors of the condition propagate."""
    found = _satisfying(context, "exists", condition, stop=True)
    note(context, "exists", reason=f"satisfied by {found[0]}" if found else "no conversation")
    return bool(found)


@rule_function("num_exist")
def num_exist(context: FunctionContext, condition: str) -> int:
    """How many conversations satisfy ``condition`` (see ``exists``), e.g.
    ``num_exist('extract_float(cost) > 50') == 4``."""
    found = _satisfying(context, "num_exist", condition, stop=False)
    shown = ", ".join(found[:10]) + (" …" if len(found) > 10 else "")
    note(context, "num_exist", reason=f"{len(found)} conversation(s): {shown}")
    return len(found)
