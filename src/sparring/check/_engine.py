"""Evaluating rules on conversations (SENSEI-check's semantics, §5 of the paper).

- single-conversation rules (``conversations: 1``): per conversation, ``when`` and ``if``
  filter (false, or raising → not applicable), then ``then`` must equal ``True``;
- metamorphic rules (``conversations: n``): the same over ordered n-tuples of distinct
  conversations (``_tuples``);
- global rules (``conversations: all``): the conversations that pass ``when`` and ``if``
  form the population; ``then`` is checked once over it (``exists``, ``num_exist``,
  ``is_unique`` read it through ``FunctionContext.conversations``). Unlike SENSEI-check,
  whose filtered list is never emptied between global rules, each global rule sees only
  its own population;
- the generic failure codes recorded on conversations give one row each.

Every rule runs whatever the others do: a rule that raises on a conversation yields an
``error`` verdict (exception text kept) and the check goes on. ``check/_run.py`` drives a
whole rule set (concurrently where a model is involved); this module evaluates one rule on
one conversation, population or tuple, and is safe to call from several threads at once.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sparring.check._analysis import Location
from sparring.check._context import FunctionContext, RuleFunction, registered_functions
from sparring.check._expressions import Expression, parse_expression
from sparring.check._namespace import Namespaces
from sparring.check._rules import Rule
from sparring.check._safety import DEFAULT_LIMITS, Limits, MissingName, NotApplicable, Unscored
from sparring.check._sandbox import Evaluator, Scope
from sparring.check._verdicts import RuleResult
from sparring.conversations import ConversationRecord, ErrorCode
from sparring.errors import BudgetExceeded, ConfigError, ModelError, ModelRequired
from sparring.results import Evidence, Status, Verdict, verdict_from_evidence
from sparring.types import Strategy, TextModel

if TYPE_CHECKING:
    from sparring.connectors import ChatbotInfo

SENSEI_GENERIC_CODES = (
    ErrorCode.GOAL_NOT_COMPLETED,
    ErrorCode.NO_RESPONSE,
    ErrorCode.TIMEOUT,
    ErrorCode.EXCEEDED_LOOP_LIMIT,
    ErrorCode.EXCEEDED_MAX_COST,
    ErrorCode.EXCEEDED_CONVERSATION_COST,
)
"""The generic rows SENSEI-check 1.1.5 always writes, in its order (``error_codes.py``; its
earlier releases wrote the first four); other codes get a row when a conversation carries
them."""

_UNSCORED = (ModelRequired, ModelError, BudgetExceeded, Unscored)


def _is_true(value: Any) -> bool:
    """SENSEI's ``return_value == True``."""
    try:
        return bool(value == True)  # noqa: E712
    except Exception:
        return False


def _describe(exc: BaseException) -> str:
    return (
        str(exc) if isinstance(exc, MissingName | NotApplicable) else f"{type(exc).__name__}: {exc}"
    )


def _uncollected(expression: Expression, records: Sequence[ConversationRecord]) -> list[str]:
    """The outputs ``expression`` reads that some of ``records`` recorded as ``None``."""
    read = expression.all_names() | expression.conv_attributes
    return sorted(
        {
            name
            for record in records
            for name, output in record.outputs.items()
            if name in read and output.value is None
        }
    )


class Runner:
    """Evaluates rules on one conversation set.

    Holds only what every evaluation shares (the records, their namespaces, the functions,
    parsed conditions); each thread gets its own sandbox ``Evaluator``, so ``single``,
    ``population`` and the tuple checks may run in several threads at once. ``wait`` runs a
    coroutine (a model call) to completion from such a thread; the driver sets it to its
    event loop, see ``check/_run.py``.
    """

    def __init__(
        self,
        records: Sequence[ConversationRecord],
        *,
        model: TextModel | None = None,
        limits: Limits = DEFAULT_LIMITS,
        functions: Mapping[str, RuleFunction] | None = None,
        wait: Callable[[Awaitable[Any]], Any] | None = None,
        chatbot: ChatbotInfo | None = None,
    ) -> None:
        self.records = list(records)
        self.namespaces = Namespaces(self.records, chatbot)
        self.model = model
        self.limits = limits
        self.functions = dict(registered_functions() if functions is None else functions)
        self.wait = wait
        self.ids = [record.id for record in self.records]
        self._positions = {id(record): i for i, record in enumerate(self.records)}
        self._conditions: dict[str, Expression] = {}
        self._local = threading.local()

    @property
    def evaluator(self) -> Evaluator:
        """This thread's sandbox evaluator (one per thread: an evaluator runs one
        expression at a time)."""
        evaluator: Evaluator | None = getattr(self._local, "evaluator", None)
        if evaluator is None:
            evaluator = self._local.evaluator = Evaluator(self.limits)
        return evaluator

    # Contexts and scopes ------------------------------------------------------------------

    def context(
        self, records: Sequence[ConversationRecord], names: Mapping[str, Any]
    ) -> FunctionContext:
        """A fresh ``FunctionContext`` (one per rule evaluation, so its cache stays local)."""
        return FunctionContext(
            conversation=records[0] if records else None,
            conversations=tuple(records),
            namespace=names,
            model=self.model,
            wait=self.wait,
            evaluate=self._evaluate_condition,
            namespace_of=self._namespace_of,
            timeout=self.limits.timeout,
        )

    def single_scope(self, index: int) -> Scope:
        """The scope of a single-conversation rule on conversation ``index``."""
        names = self.namespaces.names(index)
        view = self.namespaces.view(index)
        context = self.context([self.records[index]], names)
        return Scope(names, context, self.functions, conv=(view,), conversation=view)

    def tuple_scope(self, indices: Sequence[int], names: Mapping[str, Any] | None = None) -> Scope:
        """The scope of a metamorphic rule on the ordered tuple ``indices``."""
        views = tuple(self.namespaces.view(i) for i in indices)
        context = self.context([self.records[i] for i in indices], {})
        context.conversation = self.records[indices[0]]
        return Scope(
            names if names is not None else {"interaction": []}, context, self.functions, conv=views
        )

    def _namespace_of(self, record: ConversationRecord) -> Mapping[str, Any]:
        return self.namespaces.names(self._position(record))

    def _position(self, record: ConversationRecord) -> int:
        position = self._positions.get(id(record))
        if position is None:
            raise ValueError(f"conversation {record.id} is not part of this check")
        return position

    def _evaluate_condition(self, condition: str, record: ConversationRecord) -> Any:
        expression = self._conditions.get(condition)
        if expression is None:
            try:
                expression = parse_expression(
                    condition, Location(key="condition"), functions=self.functions
                )
            except ConfigError as exc:
                raise ValueError(f"invalid condition {condition!r}: {exc}") from None
            self._conditions[condition] = expression
        scope = self.single_scope(self._position(record))
        outer = self.evaluator.scope.context.evidence
        try:
            return self.evaluator.run_nested(expression, scope)
        finally:
            outer.extend(e for e in scope.context.evidence if e.strategy == Strategy.LLM)

    # Evaluation steps -------------------------------------------------------------------

    def holds(self, expression: Expression, scope: Scope, key: str) -> tuple[bool, str | None]:
        """A filter (``when``/``if``): whether it holds, else why not (never raises)."""
        if expression.source == "True":
            return True, None
        try:
            value = self.evaluator.run(expression, scope)
        except Exception as exc:
            return False, f"`{key}` raised {_describe(exc)}"
        return (True, None) if value else (False, f"`{key}` is false")

    def outcome(self, expression: Expression, scope: Scope) -> tuple[Status, str | None]:
        """Evaluate an oracle: ``pass`` when it equals ``True``; ``fail`` (with its value as
        the reason unless it is ``False``); ``not_applicable`` when a variable is missing;
        ``unscored`` when a model could not judge; ``error`` when it raised."""
        try:
            value = self.evaluator.run(expression, scope)
        except (MissingName, NotApplicable) as exc:
            return "not_applicable", str(exc)
        except _UNSCORED as exc:
            return "unscored", str(exc)
        except Exception as exc:
            return "error", _describe(exc)
        if _is_true(value):
            return "pass", None
        return "fail", "oracle violated" if value is False else str(value)

    def judge(self, rule: Rule, scope: Scope, ids: list[str]) -> Verdict:
        """Evaluate ``then`` of a single-conversation or global rule and return the verdict
        (with ``yields`` on failure). An oracle that raised while reading an output
        recorded as ``None`` is *not applicable*, as SENSEI-check counts any oracle that
        raises there (sparring keeps ``error`` for the other exceptions: a broken rule)."""
        status, reason = self.outcome(rule.then, scope)
        missing = _uncollected(rule.then, scope.context.conversations) if status == "error" else []
        if missing:
            status = "not_applicable"
            reason = f"{reason} (reading {', '.join(missing)}, recorded as None)"
        message = self.message(rule, scope) if status == "fail" else None
        return self.verdict(rule, status, ids, scope, reason=reason, message=message)

    def message(self, rule: Rule, scope: Scope) -> str | None:
        """The rule's ``yields`` text in ``scope`` (``None`` without one)."""
        if rule.yields is None:
            return None
        try:
            return str(self.evaluator.run(rule.yields, scope))
        except Exception as exc:
            return f"(the message could not be built: {_describe(exc)})"

    def verdict(
        self,
        rule: Rule,
        status: Status,
        ids: list[str],
        scope: Scope | None = None,
        *,
        reason: str | None = None,
        message: str | None = None,
        evidence: list[Evidence] | None = None,
    ) -> Verdict:
        found = [*(evidence or []), *(scope.context.evidence if scope else [])]
        return verdict_from_evidence(rule.name, status, ids, found, reason=reason, message=message)

    # Rule kinds ---------------------------------------------------------------------------

    def single(self, rule: Rule, index: int) -> Verdict:
        """The verdict of a single-conversation rule on conversation ``index``."""
        scope = self.single_scope(index)
        ids = [self.ids[index]]
        return self._filtered(rule, scope, ids) or self.judge(rule, scope, ids)

    def _filtered(self, rule: Rule, scope: Scope, ids: list[str]) -> Verdict | None:
        """A not-applicable verdict when ``when`` or ``if`` does not hold, else ``None``."""
        for key, expression in (("when", rule.when), ("if", rule.if_)):
            holds, reason = self.holds(expression, scope, key)
            if not holds:
                return self.verdict(rule, "not_applicable", ids, reason=reason)
        return None

    def run_global(self, rule: Rule) -> RuleResult:
        """Check a global rule: filter the population, then judge it once."""
        result = rule_result(rule)
        population: list[int] = []
        for index in range(len(self.records)):
            excluded = self._filtered(rule, self.single_scope(index), [self.ids[index]])
            if excluded is None:
                population.append(index)
            else:
                result.verdicts.append(excluded)
                result.counts.add("not_applicable")
        records = [self.records[i] for i in population]
        context = self.context(records, {})
        context.conversation = None
        views = tuple(self.namespaces.view(i) for i in population)
        scope = Scope({}, context, self.functions, conv=views)
        verdict = self.judge(rule, scope, [self.ids[i] for i in population])
        result.verdicts.append(verdict)
        result.counts.add(verdict.status)
        return result

    def run_generic(self) -> list[RuleResult]:
        """One result per generic failure code (SENSEI's four, plus any other present)."""
        present = {error.code for record in self.records for error in record.errors}
        codes = [int(c) for c in SENSEI_GENERIC_CODES]
        codes += sorted(present - set(codes))
        results = []
        for code in codes:
            name = (
                ErrorCode(code).rule_name
                if code in ErrorCode._value2member_map_
                else f"error_{code}"
            )
            result = RuleResult(rule=name, kind="generic", description=f"generic failure {code}")
            for record in self.records:
                errors = [e for e in record.errors if e.code == code]
                status: Status = "fail" if errors else "pass"
                turns = sorted({e.turn for e in errors if e.turn is not None})
                reason = "; ".join(e.message for e in errors) or None
                result.verdicts.append(
                    Verdict(
                        rule=name,
                        status=status,
                        conversations=[record.id],
                        reason=reason,
                        turns=turns,
                    )
                )
                result.counts.add(status)
            results.append(result)
        return results


def rule_result(rule: Rule) -> RuleResult:
    """An empty result for ``rule``."""
    return RuleResult(
        rule=rule.name,
        kind=rule.kind,
        description=rule.spec.description,
        file=rule.file,
        arity=rule.arity,
    )
