"""Metamorphic rules: ``if`` ⇒ ``then`` over ordered n-tuples of distinct conversations
that satisfy ``when`` (SENSEI-check's ``__metamorphic_test``, which tries every ordered pair).

The verdicts are those of trying every tuple, computed without doing so:

1. ``when`` is split into its ``and``-ed conjuncts (a tuple satisfies ``when`` exactly when
   every conjunct evaluates to a true value without raising, whatever their order). A
   conjunct over one slot (``conv[0].drink == 'water'``) is a *filter*, evaluated once per
   conversation; an equality between two slots (``conv[0].size == conv[1].size``) is a
   *join key*, evaluated once per conversation and matched by hashing; the rest is checked
   per tuple.
2. In ``when``, ``if`` and ``then`` every largest sub-expression over one slot
   (``extract_float(conv[0].price)``) is *lifted*: evaluated once per conversation and
   replaced by a placeholder. An exception it raises is kept and re-raised where the
   placeholder is read, so short-circuits behave as before; a sub-expression may however be
   evaluated for a conversation where short-circuit would have skipped it.
3. When what is left (the *glue*) is pure — operators on placeholders, no calls — its outcome
   depends only on the placeholders' values, so it is computed once per distinct combination
   of values and reused.

Tuples the filter excludes are only counted. SENSEI-check handles 2 conversations only; here
``conversations: n`` means ordered n-tuples of distinct conversations.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sparring.check._engine import Runner, rule_result
from sparring.check._namespace import canonical, exact_key
from sparring.check._plan import Plan, plan_rule
from sparring.check._rules import Rule
from sparring.check._safety import MissingName
from sparring.check._sandbox import Scope
from sparring.check._verdicts import MAX_LISTED_PASSES, RuleResult
from sparring.results import Evidence, Status


class _Raised:
    """An exception raised by a lifted sub-expression, re-raised where it is read."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


def _signature(value: Any) -> Any:
    """``exact_key`` of a placeholder value; a kept error by its type and message (a missing
    variable by its name only: its message names the conversation)."""
    if isinstance(value, _Raised):
        error = value.error
        if isinstance(error, MissingName):
            return ("missing", error.name)
        return ("raised", type(error).__name__, str(error))
    return exact_key(value)


class _TupleNames(Mapping[str, Any]):
    """The names of one tuple: the placeholders' values (raising kept errors) and SENSEI's
    dummy ``interaction``."""

    def __init__(self, values: dict[str, Any]) -> None:
        self._values = values

    def __getitem__(self, name: str) -> Any:
        value = self._values[name]
        if isinstance(value, _Raised):
            raise value.error
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class _TupleRun:
    """State of one metamorphic rule's run."""

    def __init__(self, runner: Runner, rule: Rule, plan: Plan) -> None:
        self.runner, self.rule, self.plan = runner, rule, plan
        self.evaluator = runner.evaluator  # this thread's; a tuple run stays on one thread
        self.values: dict[tuple[int, int], dict[str, Any]] = {}
        self.evidence: dict[tuple[int, int], list[Evidence]] = {}
        self.glue_evidence: dict[tuple[int, ...], list[Evidence]] = {}
        self.classes: dict[tuple[int, int], int] = {}
        self.class_ids: dict[Any, int] = {}
        self.memo: dict[Any, tuple[Status, str | None]] = {}

    def slot_scope(self, index: int) -> Scope:
        runner = self.runner
        view = runner.namespaces.view(index)
        context = runner.context([runner.records[index]], runner.namespaces.names(index))
        return Scope({}, context, runner.functions, conv=(view,) * self.plan.arity)

    def passes_filters(self, slot: int, index: int) -> bool:
        filters = self.plan.filters.get(slot, [])
        if not filters:
            return True
        scope = self.slot_scope(index)
        return all(self.runner.holds(f, scope, "when")[0] for f in filters)

    def lifted_values(self, slot: int, index: int) -> dict[str, Any]:
        key = (slot, index)
        if key not in self.values:
            scope = self.slot_scope(index)
            found: dict[str, Any] = {}
            for lifted in self.plan.lifted.get(slot, []):
                try:
                    found[lifted.name] = self.evaluator.run(lifted.expression, scope)
                except Exception as exc:
                    found[lifted.name] = _Raised(exc)
            self.values[key] = found
            self.evidence[key] = list(scope.context.evidence)
        return self.values[key]

    def class_of(self, slot: int, index: int) -> int:
        """A small integer shared by the conversations whose slot-``slot`` placeholders
        have exactly the same values (so the pure glue gives them the same outcome)."""
        key = (slot, index)
        found = self.classes.get(key)
        if found is None:
            values = self.lifted_values(slot, index)
            try:
                signature: Any = (slot, tuple(_signature(v) for v in values.values()))
            except TypeError:
                signature = ("conversation", slot, index)
            found = self.classes[key] = self.class_ids.setdefault(signature, len(self.class_ids))
        return found

    def outcome(self, indices: tuple[int, ...]) -> tuple[Status, str | None]:
        memo_key = None
        if self.plan.pure:
            memo_key = tuple([self.class_of(slot, i) for slot, i in enumerate(indices)])
            cached = self.memo.get(memo_key)
            if cached is not None:
                return cached
        names: dict[str, Any] = {"interaction": []}
        for slot, index in enumerate(indices):
            names.update(self.lifted_values(slot, index))
        result = self._evaluate(indices, _TupleNames(names))
        if memo_key is not None:
            self.memo[memo_key] = result
        return result

    def _evaluate(self, indices: tuple[int, ...], names: _TupleNames) -> tuple[Status, str | None]:
        runner, plan = self.runner, self.plan
        scope = runner.tuple_scope(indices, names)
        for residual in plan.residual:
            holds, reason = runner.holds(residual, scope, "when")
            if not holds:
                return "not_applicable", reason
        if plan.premise is not None:
            holds, reason = runner.holds(plan.premise, scope, "if")
            if not holds:
                return "not_applicable", reason
        assert plan.oracle is not None
        status, reason = runner.outcome(plan.oracle, scope)
        if scope.context.evidence:
            self.glue_evidence[indices] = list(scope.context.evidence)
        return status, reason

    def tuple_evidence(self, indices: tuple[int, ...]) -> list[Evidence]:
        found: list[Evidence] = []
        for slot, index in enumerate(indices):
            found.extend(self.evidence.get((slot, index), []))
        found.extend(self.glue_evidence.get(indices, []))
        return found


def _constant_holds(runner: Runner, plan: Plan) -> bool:
    scope = Scope({"interaction": []}, runner.context([], {}), runner.functions)
    return all(runner.holds(c, scope, "when")[0] for c in plan.constant)


def _candidates(run: _TupleRun, n: int) -> list[list[int]]:
    return [[i for i in range(n) if run.passes_filters(slot, i)] for slot in range(run.plan.arity)]


def _tuples(run: _TupleRun, candidates: list[list[int]]) -> Iterator[tuple[int, ...]]:
    """Ordered tuples of distinct candidates that match every join key."""
    if run.plan.arity == 2 and run.plan.joins:
        yield from _joined_pairs(run, candidates)
        return
    for indices in itertools.product(*candidates):
        if len(set(indices)) == len(indices):
            yield indices


def _join_key(run: _TupleRun, slot: int, index: int) -> Any:
    scope = run.slot_scope(index)
    parts = []
    for join in run.plan.joins:
        try:
            value = run.evaluator.run(join[slot], scope)
        except Exception:
            return None
        parts.append(canonical(value))
    return tuple(parts)


def _joined_pairs(run: _TupleRun, candidates: list[list[int]]) -> Iterator[tuple[int, ...]]:
    buckets: dict[Any, list[int]] = {}
    for j in candidates[1]:
        try:
            key = _join_key(run, 1, j)
            if key is not None:
                buckets.setdefault(key, []).append(j)
        except TypeError:  # a value that cannot be hashed: compare it with everything
            buckets.setdefault(("unhashable",), []).append(j)
    unhashable = buckets.get(("unhashable",))
    if unhashable:  # rare: fall back to pairwise equality for every candidate
        yield from _brute_pairs(run, candidates)
        return
    for i in candidates[0]:
        try:
            key = _join_key(run, 0, i)
        except TypeError:
            key = None
        for j in buckets.get(key, []) if key is not None else []:
            if i != j:
                yield (i, j)


def _brute_pairs(run: _TupleRun, candidates: list[list[int]]) -> Iterator[tuple[int, ...]]:
    for i in candidates[0]:
        for j in candidates[1]:
            if i != j and _keys_equal(run, i, j):
                yield (i, j)


def _keys_equal(run: _TupleRun, i: int, j: int) -> bool:
    left, right = run.slot_scope(i), run.slot_scope(j)
    for join in run.plan.joins:
        try:
            if not run.evaluator.run(join[0], left) == run.evaluator.run(  # noqa: SIM201
                join[1], right
            ):
                return False
        except Exception:
            return False
    return True


def run_tuples(runner: Runner, rule: Rule) -> RuleResult:
    """Check a metamorphic rule on every ordered tuple of distinct conversations."""
    plan = plan_rule(rule)
    result = rule_result(rule)
    n = len(runner.records)
    total = math.perm(n, plan.arity) if n >= plan.arity else 0
    if total and _constant_holds(runner, plan):
        run = _TupleRun(runner, rule, plan)
        for indices in _tuples(run, _candidates(run, n)):
            status, reason = run.outcome(indices)
            _record(run, result, indices, status, reason)
    result.counts.add("not_applicable", total - result.counts.total)
    return result


def _record(
    run: _TupleRun, result: RuleResult, indices: Sequence[int], status: Status, reason: str | None
) -> None:
    ids = [run.runner.ids[i] for i in indices]
    if status == "not_applicable":
        return
    result.counts.add(status)
    if status == "pass":
        if len(result.passed) < MAX_LISTED_PASSES:
            result.passed.append(ids)
        else:
            result.passed_omitted += 1
        return
    runner = run.runner
    message = (
        runner.message(run.rule, runner.tuple_scope(tuple(indices))) if status == "fail" else None
    )
    evidence = run.tuple_evidence(tuple(indices))
    result.verdicts.append(
        runner.verdict(run.rule, status, ids, reason=reason, message=message, evidence=evidence)
    )
