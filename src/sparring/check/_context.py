"""What a rule function sees: the conversation(s) under check and a place to leave evidence.

Functions of the rules language (``repeated_answers``, ``language``, ``is_unique``, …) are
plain Python callables whose first parameter is a ``FunctionContext``; the evaluator binds
it before exposing the function to an expression, so a rule writes
``repeated_answers(method='tf-idf', threshold=0.75)`` exactly as in SENSEI-check.

Functions are stateless: whatever they learn (a reason, the strategy used, a model prompt and
reply, a cost) goes into ``context.evidence``, which the verdict keeps.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sparring._regex import DEFAULT_TIMEOUT
from sparring.conversations import ConversationRecord
from sparring.registry import Registry
from sparring.results import Evidence
from sparring.types import TextModel


@dataclass
class FunctionContext:
    """The state a rule function may read.

    ``conversation`` is the conversation under check (``None`` for global rules);
    ``conversations`` every conversation in scope (the filtered set for global rules);
    ``namespace`` the rule's variables; ``model`` a model (``sparring.types.TextModel``) or
    ``None`` when no model is configured (offline strategies then apply); ``wait`` runs a
    model call's coroutine to completion from the evaluating thread (set by the check
    driver to its event loop, so calls from many threads share one loop and the model's
    concurrency bound; ``None``: a private loop per call).

    Set by the evaluator for the global functions (``exists``, ``num_exist``,
    ``is_unique``): ``evaluate(expression, conversation)`` evaluates an expression in
    another conversation's namespace, with the rule functions bound to it;
    ``namespace_of(conversation)`` returns the names a rule sees for a conversation.
    ``cache`` is a memo for one rule evaluation (e.g. the similarity matrix that
    ``repeated_answers`` computes for the oracle and again for ``yields``); the evaluator
    makes a fresh context per conversation, so nothing leaks across conversations.
    ``timeout`` is the seconds a function may spend matching a rule's regular expression
    (the rule's ``--timeout``; ``sparring._regex``).
    """

    conversation: ConversationRecord | None
    conversations: Sequence[ConversationRecord] = ()
    namespace: Mapping[str, Any] = field(default_factory=dict)
    model: TextModel | None = None
    wait: Callable[[Awaitable[Any]], Any] | None = None
    evidence: list[Evidence] = field(default_factory=list)
    evaluate: Callable[[str, ConversationRecord], Any] | None = None
    namespace_of: Callable[[ConversationRecord], Mapping[str, Any]] | None = None
    cache: dict[Any, Any] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT


RuleFunction = Callable[..., Any]
"""A rule function: ``fn(context: FunctionContext, *args, **kwargs) -> value``."""

FUNCTIONS_GROUP = "sparring.check_functions"
"""The entry-point group of rule-function plug-ins (see ``sparring.check.functions``)."""


def _adopt_function(name: str, loaded: Any) -> RuleFunction | None:
    """An entry point names a module (its decorators registered on import) or a function."""
    if isinstance(loaded, types.ModuleType):
        return None
    if not callable(loaded):
        raise TypeError("is not a function")
    return cast(RuleFunction, loaded)


RULE_FUNCTIONS: Registry[RuleFunction] = Registry(
    "rule function",
    group=FUNCTIONS_GROUP,
    builtins=("sparring.check.functions",),
    adopt=_adopt_function,
)
"""Every rule function by name; built-ins load on first use, plug-ins with
``load_plugin_functions`` (or on a lookup of an unknown name)."""


def rule_function(*names: str, replace: bool = False) -> Callable[[RuleFunction], RuleFunction]:
    """Register a rule function under one or more names (e.g. ``missing_slots``,
    ``missing_outputs``; none: the function's own name).

    Raises ``DuplicateName`` when a name is taken by another function and ``replace`` is
    false; a user's functions file (``load_functions_file``) replaces freely.
    """

    def register(fn: RuleFunction) -> RuleFunction:
        for name in names or (fn.__name__,):
            RULE_FUNCTIONS.register(name, fn, replace=replace)
        return fn

    return register


def registered_functions() -> Mapping[str, RuleFunction]:
    """Every registered rule function by name: the built-ins (``sparring.check.functions``)
    and the plug-ins and files loaded so far (``load_plugin_functions``,
    ``load_functions_file``)."""
    return RULE_FUNCTIONS.items(plugins=False)
