"""The sandbox against known Python sandbox escapes and resource attacks.

Each escape is either rejected when the rule is loaded (ConfigError naming the construct)
or stopped while it runs (SandboxViolation / ResourceLimitExceeded / a plain Python error),
and never reaches what it aims at. The corpus follows the classic write-ups of escapes from
``eval``-based sandboxes (``__subclasses__`` walks, ``__globals__``, format-string attribute
lookups, generator frames, ``type()`` tricks, ``getattr`` by string, ``__builtins__``
imports) plus denial-of-service inputs (huge powers, deep nesting, endless loops, memory).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from check_builders import record

import sparring.check.functions  # noqa: F401  (registers the built-ins)
from sparring.check import (
    ConversationView,
    Evaluator,
    FunctionContext,
    Limits,
    ResourceLimitExceeded,
    SandboxViolation,
    Scope,
    build_namespace,
    parse_expression,
    registered_functions,
)
from sparring.errors import ConfigError

LIMITS = Limits(timeout=0.5)


def scope() -> Scope:
    conversation = record(variables={"size": ["small"]}, outputs={"price": "10$"})
    names = build_namespace(conversation)
    view = ConversationView(conversation, names)
    context = FunctionContext(conversation=conversation, conversations=(conversation,))
    return Scope(names, context, registered_functions(), conv=(view,), conversation=view)


def evaluate(source: str, limits: Limits = LIMITS) -> Any:
    expression = parse_expression(source, functions=registered_functions())
    return Evaluator(limits).run(expression, scope())


REJECTED_AT_LOAD = {
    "subclasses walk": "().__class__.__bases__[0].__subclasses__()",
    "subclasses in a comprehension": "[c for c in ().__class__.__base__.__subclasses__()]",
    "function globals": "extract_float.__globals__['os']",
    "format-string attribute lookup": "'{0.__class__.__init__.__globals__}'.format(len)",
    "format_map attribute lookup": "'{x.__class__}'.format_map({'x': 1})",
    "generator frame f_back": "(x for x in []).gi_frame.f_back.f_globals",
    "type() to reach object": "type(1).__subclasses__()",
    "getattr by string": "getattr(conv[0], '__class__')",
    "import through __builtins__": "__builtins__['__import__']('os').system('id')",
    "__import__": "__import__('os').system('echo pwned')",
    "eval": "eval('1 + 1')",
    "exec": "exec('import os')",
    "compile": "compile('1', '', 'eval')",
    "open a file": "open('/etc/passwd').read()",
    "globals()": "globals()['__builtins__']",
    "vars() of a view": "vars(conv[0])",
    "lambda": "(lambda: 1)()",
    "import statement": "import os\nos.system('id')",
    "function definition": "def f():\n    return 1\nf()",
    "class definition": "class A:\n    pass\nA()",
    "walrus": "(y := 1)",
    "mro": "str.mro()",
    "dict of a view": "conv[0].__dict__",
    "assign an attribute": "x = conv[0]\nx.size = 1\nx",
    "assign an item": "x = size\nx[0] = 1\nx",
    "try/except to catch the sandbox": "try:\n    1\nexcept Exception as e:\n    e\nTrue",
    "fullwidth letters (NFKC) for eval": "\uff45\uff56\uff41\uff4c('1')",
    "fullwidth letters (NFKC) in a dunder": "().__\uff43\uff4c\uff41\uff53\uff53__",
    "to_bytes memory bomb": "(1).to_bytes(10**9, 'big')",
    "str.translate bomb": "'a'.translate({97: 'x' * 100000})",
    "deep nesting": "-" * 200 + "1",
    "kwargs unpacking": "len(**{'obj': 1})",
}


@pytest.mark.parametrize("source", REJECTED_AT_LOAD.values(), ids=REJECTED_AT_LOAD.keys())
def test_escape_is_rejected_when_the_rule_is_loaded(source: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_expression(source, functions=registered_functions())
    message = caught.value.problems[0].message
    assert any(word in message for word in ("not allowed", "unknown function", "nested", "assign"))


STOPPED_AT_RUN = {
    "huge power": ("10**10**10", ResourceLimitExceeded),
    "huge power chain": ("9**9**9", ResourceLimitExceeded),
    "huge shift": ("1 << 10**9", ResourceLimitExceeded),
    "squaring in a loop": ("x = 3\nfor i in range(64):\n    x = x * x\nx", ResourceLimitExceeded),
    "string bomb": ("'a' * 10**9", ResourceLimitExceeded),
    "list bomb": ("[0] * 10**9", ResourceLimitExceeded),
    "ljust bomb": ("'x'.ljust(10**9)", ResourceLimitExceeded),
    "join bomb": ("'a'.join(['b' * 100000] * 100000)", ResourceLimitExceeded),
    "str() of a nested bomb": ("str([['a' * 100000] * 10] * 5000)", ResourceLimitExceeded),
    "f-string width bomb": ("f'{1:>1000000000}'", ResourceLimitExceeded),
    "nested f-string width bomb": ("f\"{1:{'>'}{10**9}}\"", ResourceLimitExceeded),
    "%-format width bomb": ("'%1000000000d' % 1", SandboxViolation),
    "range bomb": ("max(range(10**18))", ResourceLimitExceeded),
    "endless loop": ("while True:\n    pass\nTrue", ResourceLimitExceeded),
    "long nested comprehension": (
        "sum(1 for a in range(10**5) for b in range(10**5))",
        ResourceLimitExceeded,
    ),
    "memory grown in a loop": (
        "acc = []\nfor i in range(5000):\n    acc = acc + ['x' * 100000]\nlen(acc)",
        ResourceLimitExceeded,
    ),
    "sum of lists (quadratic)": ("sum([[1] * 1000] * 1000, [])", TypeError),
    "mutating a shared value": ("size.append('large')", AttributeError),
    "function as a value": ("sorted(chatbot_phrases, key=extract_float)", SandboxViolation),
    "formatting a function": ("f'{extract_float}'", SandboxViolation),
    "view internals": ("conv[0].record", NameError),
    "isinstance with other types": ("isinstance(1, reversed)", SandboxViolation),
    "hasattr on a dunder": ("hasattr(conv[0], '__class__')", SandboxViolation),
}


@pytest.mark.parametrize(("source", "error"), STOPPED_AT_RUN.values(), ids=STOPPED_AT_RUN.keys())
def test_attack_is_stopped_while_it_runs(source: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        evaluate(source)


def test_time_spent_inside_rule_functions_is_not_counted() -> None:
    calls = []

    def slow(context: FunctionContext) -> bool:
        calls.append(context)
        time.sleep(0.3)
        return True

    expression = parse_expression("slow() and slow() and slow()", functions=["slow"])
    current = scope()
    current.functions = {**current.functions, "slow": slow}
    assert Evaluator(Limits(timeout=0.2)).run(expression, current) is True
    assert len(calls) == 3 and calls[0] is current.context


def test_the_sandbox_still_evaluates_ordinary_rules() -> None:
    assert evaluate("extract_float(price) >= 10 and size[0] == 'small'") is True
    assert evaluate("f'{size[0]!r:>8}|{3.14159:.2f}'") == " 'small'|3.14"
    assert evaluate("sorted({t.role for t in turns})") == ["assistant", "user"]
    assert evaluate("[w.upper() for w in 'a b'.split()]") == ["A", "B"]
    assert evaluate("hasattr(conv[0], 'price') and not hasattr(conv[0], 'drink')") is True
    assert evaluate("isinstance(size, list) and isinstance(price, (str, int))") is True
    assert evaluate("x = 0\nfor t in turns:\n    x += len(t.text)\nx") == len("hi") + len("hello")
    assert evaluate("{**{'a': 1}, 'b': [i for i in range(3) if i != 1]}") == {"a": 1, "b": [0, 2]}
