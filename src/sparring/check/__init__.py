"""The ``check`` stage: the rules language (SENSEI-check compatible), its safe evaluator,
the function library's contract, and the ``check`` job.

    from sparring.runner import start
    run = start(CheckJob(), {"rules": ["rules/"], "run": "runs/x", "csv": "results.csv"})
    print(run.outcome.status, run.result.stored)       # verdicts kept in runs/x/verdicts/

or, one level down::

    rule_set = load_rules(["rules/"])                  # ConfigError: file, line, key
    report = check(rule_set, list(load_conversations("runs/x")), model=None)
    write_csv(report, "results.csv")                   # SENSEI-check's results table

See docs/rules.md for the language, the namespace a rule sees, turn-level properties and
the sandbox's limits.
"""

from sparring.check import _temporal  # noqa: F401  (registers the turn-level forms)
from sparring.check._analysis import TURN_FORMS
from sparring.check._console import print_report
from sparring.check._context import (
    RULE_FUNCTIONS,
    FunctionContext,
    RuleFunction,
    registered_functions,
    rule_function,
)
from sparring.check._engine import SENSEI_GENERIC_CODES
from sparring.check._expressions import Expression, parse_expression
from sparring.check._job import (
    CheckJob,
    CheckResult,
    CheckSettings,
)
from sparring.check._names import profile_names, undefined_names
from sparring.check._namespace import (
    ButtonView,
    ChatbotView,
    ConversationView,
    ErrorView,
    TurnView,
    build_namespace,
    run_chatbot_info,
)
from sparring.check._reports import (
    junit_xml,
    store_verdicts,
    write_csv,
    write_json,
    write_junit,
)
from sparring.check._rules import (
    DEFAULT_RULES,
    Rule,
    RuleSet,
    RuleSpec,
    known_functions,
    load_rules,
)
from sparring.check._run import check, check_async
from sparring.check._safety import (
    DEFAULT_LIMITS,
    Limits,
    MissingName,
    NotApplicable,
    ResourceLimitExceeded,
    SandboxViolation,
    Unscored,
)
from sparring.check._sandbox import Evaluator, Scope
from sparring.check._verdicts import SENSEI_COLUMNS, CheckReport, RuleResult
from sparring.results import Counts, Evidence, Status, Verdict

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_RULES",
    "RULE_FUNCTIONS",
    "SENSEI_COLUMNS",
    "SENSEI_GENERIC_CODES",
    "TURN_FORMS",
    "ButtonView",
    "ChatbotView",
    "CheckJob",
    "CheckReport",
    "CheckResult",
    "CheckSettings",
    "ConversationView",
    "Counts",
    "ErrorView",
    "Evaluator",
    "Evidence",
    "Expression",
    "FunctionContext",
    "Limits",
    "MissingName",
    "NotApplicable",
    "ResourceLimitExceeded",
    "Rule",
    "RuleFunction",
    "RuleResult",
    "RuleSet",
    "RuleSpec",
    "SandboxViolation",
    "Scope",
    "Status",
    "TurnView",
    "Unscored",
    "Verdict",
    "build_namespace",
    "check",
    "check_async",
    "junit_xml",
    "known_functions",
    "load_rules",
    "parse_expression",
    "print_report",
    "profile_names",
    "registered_functions",
    "rule_function",
    "run_chatbot_info",
    "store_verdicts",
    "undefined_names",
    "write_csv",
    "write_json",
    "write_junit",
]
