"""The limits and the guarded operations of the rules sandbox.

Every operation that can make a value grow (``+``, ``*``, ``**``, ``<<``, ``str()``,
``str.join``/``replace``/``ljust``…, f-string format specs) checks the size of its result
*before* computing it, and adds what it allocates to the evaluation's allocation budget, so
one evaluation's memory is bounded by ``Limits.max_allocation`` (characters + items) on top of
the conversation it reads. Attribute access is allow-listed per type: the read-only methods of
the built-in value types and the fields of the sandbox's own views, nothing else (no dunder,
no frame or code objects, no ``str.format``).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sparring.check._typed import TypedText

# Limits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Bounds on one evaluation of a rule expression.

    ``timeout`` is seconds of sandbox work (time spent inside rule functions such as a model
    call is not counted); ``max_string`` characters and ``max_items`` elements bound any
    single value; ``max_int_bits`` bounds integers; ``max_allocation`` bounds the characters
    plus elements created by one evaluation; ``max_depth`` the nesting of expressions;
    ``max_iterations`` the loop and comprehension steps; ``max_source`` the characters of an
    expression's source.
    """

    timeout: float = 2.0
    max_string: int = 1_000_000
    max_items: int = 1_000_000
    max_int_bits: int = 100_000
    max_allocation: int = 20_000_000
    max_depth: int = 60
    max_iterations: int = 1_000_000
    max_source: int = 20_000


DEFAULT_LIMITS = Limits()


# Errors ---------------------------------------------------------------------------------


class SandboxViolation(Exception):
    """A rule tried something the sandbox forbids (a private attribute, an import, …)."""


class ResourceLimitExceeded(Exception):
    """A rule exceeded a bound of ``Limits`` (time, memory, depth, iterations, size)."""


class NotApplicable(Exception):
    """The rule cannot be judged on this conversation (e.g. a property over no turns):
    its verdict is *not applicable*, never a vacuous pass."""


class Unscored(Exception):
    """The function cannot tell from what it was given (e.g. ``is_unique`` over an output
    no conversation produced): the verdict is *unscored* with this reason, never a pass."""


class MissingName(NameError):
    """A variable the rule reads is not defined for this conversation."""

    def __init__(self, name: str, where: str = "this conversation") -> None:
        super().__init__(f"variable {name!r} is not defined in {where}")
        self.name = name


class Budget:
    """The allocation and iteration counters of one evaluation."""

    __slots__ = ("allocated", "iterations", "limits")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.allocated = 0
        self.iterations = 0

    def allocate(self, units: int) -> None:
        """Count ``units`` characters/elements; ``ResourceLimitExceeded`` past the budget."""
        self.allocated += units
        if self.allocated > self.limits.max_allocation:
            raise ResourceLimitExceeded(
                f"memory limit: the rule created more than {self.limits.max_allocation:,} "
                "characters and elements"
            )

    def step(self) -> None:
        """Count one loop or comprehension step."""
        self.iterations += 1
        if self.iterations > self.limits.max_iterations:
            raise ResourceLimitExceeded(
                f"iteration limit: more than {self.limits.max_iterations:,} loop steps"
            )

    def check_length(self, length: int, what: str = "value") -> None:
        """Refuse a string or collection longer than the limits allow (before building it)."""
        if length > max(self.limits.max_string, self.limits.max_items):
            raise ResourceLimitExceeded(f"size limit: a {what} of {length:,} elements")

    def check_bits(self, bits: int) -> None:
        if bits > self.limits.max_int_bits:
            raise ResourceLimitExceeded(
                f"size limit: an integer of about {bits:,} bits "
                f"(the limit is {self.limits.max_int_bits:,})"
            )

    def account(self, value: Any) -> Any:
        """Count a newly built value against the budget and return it."""
        size = size_of(value)
        if size:
            self.check_length(size)
            self.allocate(size)
        return value


_SIZED = (str, bytes, list, tuple, dict, set, frozenset)


def size_of(value: Any) -> int:
    """Characters of a string, elements of a collection (plus the characters of its string
    elements, one level deep), 0 for anything else."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, list | tuple | set | frozenset):
        return len(value) + sum(len(v) for v in value if isinstance(v, str))
    if isinstance(value, dict):
        return len(value)
    return 0


def repr_size(value: Any, limit: int) -> int:
    """An upper estimate of ``len(str(value))``, stopping once it passes ``limit``."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str | bytes):
            total += 4 * len(item) + 3
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2
        elif isinstance(item, float):
            total += 25
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2 + 2 * len(item)
            stack.extend(item)
        else:
            total += 200
    return total


# Guarded operators ----------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def make_operators(budget: Budget) -> dict[type, Callable[..., Any]]:
    """The operator table of simpleeval with every growing operation guarded."""
    import ast

    def add(a: Any, b: Any) -> Any:
        if isinstance(a, _SIZED) and isinstance(b, _SIZED):
            budget.check_length(len(a) + len(b))
            return budget.account(a + b)  # type: ignore[operator]
        return a + b

    def mult(a: Any, b: Any) -> Any:
        if (isinstance(a, _SIZED) and _is_int(b)) or (isinstance(b, _SIZED) and _is_int(a)):
            sequence, times = (a, b) if isinstance(a, _SIZED) else (b, a)
            budget.check_length(len(sequence) * max(times, 0))
            return budget.account(a * b)
        if _is_int(a) and _is_int(b):
            budget.check_bits(a.bit_length() + b.bit_length())
        return a * b

    def power(a: Any, b: Any) -> Any:
        if _is_int(a) and _is_int(b) and b > 0 and abs(a) > 1:
            budget.check_bits(b * a.bit_length())
        elif (
            isinstance(a, float | int)
            and isinstance(b, float | int)
            and abs(b) > 10_000
            and (abs(a) > 1 or b < 0)
        ):
            raise ResourceLimitExceeded(f"size limit: refusing to compute {a!r} ** {b!r}")
        return a**b

    def lshift(a: Any, b: Any) -> Any:
        if _is_int(a) and _is_int(b) and b > 0:
            budget.check_bits(a.bit_length() + b)
        return a << b

    def mod(a: Any, b: Any) -> Any:
        if isinstance(a, str | bytes):
            raise SandboxViolation("%-formatting of strings is not available; use an f-string")
        return a % b

    def bit_or(a: Any, b: Any) -> Any:
        result = a | b
        return budget.account(result) if isinstance(result, set | frozenset | dict) else result

    return {
        ast.Add: add,
        ast.Sub: operator.sub,
        ast.Mult: mult,
        ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv,
        ast.Mod: mod,
        ast.Pow: power,
        ast.LShift: lshift,
        ast.RShift: operator.rshift,
        ast.BitOr: bit_or,
        ast.BitAnd: operator.and_,
        ast.BitXor: operator.xor,
        ast.Invert: operator.invert,
        ast.Not: operator.not_,
        ast.USub: operator.neg,
        ast.UAdd: operator.pos,
        ast.Eq: operator.eq,
        ast.NotEq: operator.ne,
        ast.Lt: operator.lt,
        ast.LtE: operator.le,
        ast.Gt: operator.gt,
        ast.GtE: operator.ge,
        ast.In: lambda a, b: a in b,
        ast.NotIn: lambda a, b: a not in b,
        ast.Is: lambda a, b: a is b,
        ast.IsNot: lambda a, b: a is not b,
    }


# Attribute policy -----------------------------------------------------------------------


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NUMBER_ATTRIBUTES = "real imag conjugate as_integer_ratio"
ALLOWED_METHODS: dict[type, frozenset[str]] = {
    str: _names(
        "capitalize casefold center count endswith expandtabs find index isalnum isalpha "
        "isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle "
        "isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind "
        "rindex rjust rpartition rsplit rstrip split splitlines startswith strip swapcase "
        "title upper zfill"
    ),
    list: _names("index count copy"),
    tuple: _names("index count"),
    dict: _names("get keys values items copy"),
    set: _names(
        "union intersection difference symmetric_difference issubset issuperset isdisjoint copy"
    ),
    int: _names(f"{_NUMBER_ATTRIBUTES} bit_length numerator denominator"),
    float: _names(f"{_NUMBER_ATTRIBUTES} is_integer hex"),
}
ALLOWED_METHODS[frozenset] = ALLOWED_METHODS[set]
ALLOWED_METHODS[TypedText] = ALLOWED_METHODS[str]  # a typed output: str's own methods
ALLOWED_METHODS[bool] = ALLOWED_METHODS[int]

MUTATING_METHODS = _names(
    "append extend insert pop remove clear sort reverse update setdefault popitem add "
    "discard intersection_update difference_update symmetric_difference_update"
)
"""Refused with their own message: rules read values, they never change them."""

FORBIDDEN_ATTRIBUTES = _names(
    "format format_map mro gi_frame gi_code ag_frame cr_frame tb_frame f_back f_globals "
    "f_locals f_builtins f_code co_code func_globals translate maketrans encode to_bytes "
    "from_bytes fromhex fromkeys"
)
"""Rejected when a rule is loaded, whatever the object: known sandbox-escape routes."""

_NUMBER_IN_SPEC = re.compile(r"\d+")


def checked_method(budget: Budget, obj: Any, name: str) -> Any:
    """The bound method ``obj.name`` for an allowed read-only method, wrapped with a size
    check where its result can outgrow its inputs. Raises ``AttributeError`` otherwise."""
    allowed = ALLOWED_METHODS.get(type(obj))
    if allowed is None or name not in allowed:
        if name in MUTATING_METHODS:
            raise AttributeError(
                f"'.{name}()' would modify a value; rules only read values (build a new one "
                "instead, e.g. x + [y])"
            )
        raise AttributeError(f"'.{name}' is not available on {type(obj).__name__} values")
    method = getattr(obj, name)
    if isinstance(obj, str) and name in _STRING_GUARDS:
        guard = _STRING_GUARDS[name]

        def guarded(*args: Any, **kwargs: Any) -> Any:
            budget.check_length(guard(obj, args, kwargs), "string")
            return budget.account(method(*args, **kwargs))

        return guarded
    if callable(method):

        def accounted(*args: Any, **kwargs: Any) -> Any:
            return budget.account(method(*args, **kwargs))

        return accounted
    return method


def _width(_text: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    width = args[0] if args else kwargs.get("width", 0)
    return width if _is_int(width) else 0


def _tabs(text: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    size = args[0] if args else kwargs.get("tabsize", 8)
    return len(text) + text.count("\t") * (size if _is_int(size) and size > 0 else 0)


def _replace(text: str, args: tuple[Any, ...], _kwargs: dict[str, Any]) -> int:
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        return len(text)
    hits = text.count(args[0]) if args[0] else len(text) + 1
    return len(text) + hits * max(len(args[1]) - len(args[0]), 0)


def _join(text: str, args: tuple[Any, ...], _kwargs: dict[str, Any]) -> int:
    items = args[0] if args else ()
    if not isinstance(items, list | tuple | set | frozenset | dict | str):
        return len(text)
    return sum(len(i) if isinstance(i, str) else 0 for i in items) + len(text) * len(items)


_STRING_GUARDS: dict[str, Callable[[str, tuple[Any, ...], dict[str, Any]], int]] = {
    "center": _width,
    "ljust": _width,
    "rjust": _width,
    "zfill": _width,
    "expandtabs": _tabs,
    "replace": _replace,
    "join": _join,
}


def check_format_spec(budget: Budget, spec: str) -> None:
    """Refuse an f-string format spec asking for a width or precision past the limits."""
    for number in _NUMBER_IN_SPEC.findall(spec):
        if len(number) > 9 or int(number) > budget.limits.max_string:
            raise ResourceLimitExceeded(f"size limit: format spec {spec!r} is too wide")
