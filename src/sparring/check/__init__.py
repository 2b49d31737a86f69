"""The ``check`` stage: the rules language (SENSEI-check compatible), its safe evaluator,
the function library's contract, and verdicts.

    rule_set = load_rules(["rules/"])                  # ConfigError: file, line, key
    report = check(rule_set, list(load_conversations("runs/x")))
    write_csv(report, "results.csv")                   # SENSEI-check's results table

See docs/rules.md for the language, the namespace a rule sees, turn-level properties and
the sandbox's limits.
"""

from sparring.check import _temporal  # noqa: F401  (registers the turn-level forms)
from sparring.check._analysis import TURN_FORMS, Location
from sparring.check._context import (
    Evidence,
    FunctionContext,
    RuleFunction,
    registered_functions,
    rule_function,
)
from sparring.check._engine import SENSEI_GENERIC_CODES, Runner, check
from sparring.check._expressions import Expression, parse_expression
from sparring.check._namespace import (
    ButtonView,
    ConversationView,
    ErrorView,
    Namespaces,
    TurnView,
    build_namespace,
)
from sparring.check._plan import Plan, plan_rule
from sparring.check._reports import (
    junit_xml,
    store_verdicts,
    write_csv,
    write_json,
    write_junit,
)
from sparring.check._rules import Rule, RuleSet, RuleSpec, known_functions, load_rules
from sparring.check._safety import (
    DEFAULT_LIMITS,
    Limits,
    MissingName,
    NotApplicable,
    ResourceLimitExceeded,
    SandboxViolation,
)
from sparring.check._sandbox import Evaluator, Scope
from sparring.check._verdicts import (
    SENSEI_COLUMNS,
    CheckReport,
    Counts,
    RuleResult,
    Status,
    Verdict,
)

__all__ = [
    "DEFAULT_LIMITS",
    "SENSEI_COLUMNS",
    "SENSEI_GENERIC_CODES",
    "TURN_FORMS",
    "ButtonView",
    "CheckReport",
    "ConversationView",
    "Counts",
    "ErrorView",
    "Evaluator",
    "Evidence",
    "Expression",
    "FunctionContext",
    "Limits",
    "Location",
    "MissingName",
    "Namespaces",
    "NotApplicable",
    "Plan",
    "ResourceLimitExceeded",
    "Rule",
    "RuleFunction",
    "RuleResult",
    "RuleSet",
    "RuleSpec",
    "Runner",
    "SandboxViolation",
    "Scope",
    "Status",
    "TurnView",
    "Verdict",
    "build_namespace",
    "check",
    "junit_xml",
    "known_functions",
    "load_rules",
    "parse_expression",
    "plan_rule",
    "registered_functions",
    "rule_function",
    "store_verdicts",
    "write_csv",
    "write_json",
    "write_junit",
]
