"""The AST walk of one Python file: what each call, ``try``, ``if``/``match``,
subscript and ``except`` of the agent's functions says about its exception paths,
fallbacks and state (``scan_python`` puts the files together)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from sparring.adversarial._plan._findings import Finding, FindingKind, Severity

IO_MODULES = frozenset(
    {
        "requests", "httpx", "urllib", "aiohttp", "socket", "subprocess", "sqlite3",
        "smtplib", "openai", "anthropic", "boto3", "redis", "psycopg", "psycopg2",
        "pymongo", "shutil", "ftplib",
    }
)  # fmt: skip
"""Modules whose calls reach the network, disk or another process."""

IO_BUILTINS = frozenset({"open", "urlopen", "input"})
HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete", "request", "send", "fetch"})
_CLIENT = re.compile(r"(^|[._])(client|session|http|https|api|conn|connection)s?$", re.IGNORECASE)
"""The receiver of ``.get``/``.post``… that makes the call an HTTP call (``self.client``)."""
_STATE = re.compile(
    r"state|session|memory|context|slots|history|cart|profile|store|user_data|conversation",
    re.IGNORECASE,
)
_TABLE = re.compile(r"handler|route|intent|dispatch|action|command|tool", re.IGNORECASE)
HANDLER_NAMES = frozenset(
    {"respond", "reply", "handle", "chat", "answer", "__call__", "get_response", "on_message"}
)
SKIPPED_DIRS = frozenset({"tests", "test", "venv", ".venv", "__pycache__", "build", "dist"})


@dataclass
class Function:
    qualname: str
    file: str
    line: int
    kind: str
    node: ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Call:
    caller: str
    callee: str
    file: str
    line: int
    guarded: bool
    io: bool
    text: str


@dataclass
class ModuleFacts:
    functions: dict[str, Function] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def function_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    decorators = {decorator_name(d) for d in node.decorator_list}
    if decorators & {"tool", "function_tool", "tool_call"} or node.name.endswith("_tool"):
        return "tool"
    routes = {"route", "post", "message_handler", "event", "on_message", "handler"}
    if (
        node.name in HANDLER_NAMES
        or node.name.startswith(("handle_", "on_"))
        or (decorators & routes)
    ):
        return "handler"
    return "function"


def callee(node: ast.Call) -> tuple[str, str]:
    """``(dotted name, last part)`` of a call's function (``""`` when not a name)."""
    parts: list[str] = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    elif isinstance(func, ast.Call):
        parts.append("()")
    dotted = ".".join(reversed(parts))
    return dotted, parts[0] if parts else ""


class Walker(ast.NodeVisitor):
    """Walks one file with the enclosing function and ``try`` blocks in view."""

    def __init__(
        self, rel: str, module: ModuleFacts, tools: set[str], state: set[str], lines: list[str]
    ) -> None:
        self.rel, self.module, self.tools, self.state = rel, module, tools, state
        self.lines = lines
        self.function: list[str] = []
        self.prefix: list[str] = []
        self.tries = 0
        self.guards: list[ast.expr] = []
        self.counts: dict[str, int] = {}
        self.chained: set[int] = set()

    # scopes
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.prefix.append(node.name)
        self.generic_visit(node)
        self.prefix.pop()

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = ".".join([*self.prefix, node.name])
        self.function.append(qualname)
        outer, self.tries = self.tries, 0
        for stmt in node.body:
            if isinstance(stmt, ast.Global) and self.prefix == []:
                self._shared(stmt, qualname, stmt.names)
        self.generic_visit(node)
        self.tries = outer
        self.function.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Try(self, node: ast.Try) -> None:
        guarded = bool(node.handlers)  # any handler answers the failure in this function
        self.tries += guarded
        for stmt in node.body:
            self.visit(stmt)
        self.tries -= guarded
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)

    visit_TryStar = visit_Try  # type: ignore[assignment]

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        broad = node.type is None or decorator_name(node.type) in {"Exception", "BaseException"}
        silent = all(
            isinstance(s, (ast.Pass, ast.Continue))
            or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            for s in node.body
        )
        if broad and silent and self.function:
            self._add(
                FindingKind.SWALLOWED_EXCEPTION, "medium", node.lineno, self.function[-1],
                f"`{self.function[-1]}` catches every exception and does nothing: a failure "
                "is hidden and the user may get no answer",
            )  # fmt: skip
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        self._dispatch_chain(node)
        self.guards.append(node.test)
        for stmt in node.body:
            self.visit(stmt)
        self.guards.pop()
        self.visit(node.test)
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Match(self, node: ast.Match) -> None:
        wildcard = any(
            isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None for c in node.cases
        )
        if not wildcard and self.function and not self._falls_through(node, node.cases):
            subject = ast.unparse(node.subject)
            self._add(
                FindingKind.MISSING_FALLBACK_BRANCH, "high", node.lineno,
                f"{self.function[-1]}:{subject}",
                f"`match {subject}` in `{self.function[-1]}` has {len(node.cases)} cases and "
                "no `case _`: any other value gets no answer",
            )  # fmt: skip
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        dotted, last = callee(node)
        root = dotted.split(".", 1)[0]
        receiver = dotted.rsplit(".", 1)[0] if "." in dotted else ""
        io = (
            root in IO_MODULES
            or dotted in IO_BUILTINS
            or last in {"urlopen"}
            or (last in HTTP_METHODS and bool(_CLIENT.search(receiver)))
        )
        if self.function and last:
            self.module.calls.append(
                Call(
                    self.function[-1],
                    dotted,
                    self.rel,
                    node.lineno,
                    self.tries > 0,
                    io,
                    self._line(node.lineno),
                )
            )
        if isinstance(node.func, ast.Subscript) and self.function and not self.tries:
            table = ast.unparse(node.func.value)
            if _TABLE.search(table):
                self._add(
                    FindingKind.UNCHECKED_DISPATCH, "high", node.lineno,
                    f"{self.function[-1]}:{table}",
                    f"`{ast.unparse(node.func)}(…)` in `{self.function[-1]}` raises KeyError "
                    "for a key the table lacks: no fallback handler",
                )  # fmt: skip
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        target = ast.unparse(node.value)
        last = target.rsplit(".", 1)[-1]
        if (
            isinstance(node.ctx, ast.Load)
            and self.function
            and not self.tries
            and _STATE.search(last)
            and (
                isinstance(node.slice, ast.Name)
                or (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str))
            )
            and not self._checked(target)
        ):
            key = ast.unparse(node.slice)
            self._add(
                FindingKind.UNCHECKED_STATE_READ, "medium", node.lineno,
                f"{self.function[-1]}:{target}[{key}]",
                f"`{target}[{key}]` in `{self.function[-1]}` is read without checking the key "
                "is there: a conversation that skips the step that sets it crashes",
            )  # fmt: skip
        if (
            isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.state
            and self.function
        ):
            self._shared(node, self.function[-1], [node.value.id])
        self.generic_visit(node)

    # helpers
    def _checked(self, target: str) -> bool:
        for test in self.guards:
            for sub in ast.walk(test):
                if (
                    isinstance(sub, ast.Compare)
                    and any(isinstance(o, ast.In) for o in sub.ops)
                    and any(ast.unparse(c) == target for c in sub.comparators)
                ):
                    return True
        return False

    def _shared(self, node: ast.stmt | ast.expr, qualname: str, names: list[str]) -> None:
        joined = ", ".join(names)
        self._add(
            FindingKind.SHARED_STATE_WRITE, "medium", node.lineno, f"{qualname}:{joined}",
            f"`{qualname}` writes module-level state `{joined}`: every conversation shares "
            "it, so whatever one user's turn puts there, every other user's turn sees",
        )  # fmt: skip

    def _dispatch_chain(self, node: ast.If) -> None:
        if self._in_chain(node) or not self.function:
            return
        chain, subjects = [node], [compared(node.test)]
        while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
            chain.append(chain[-1].orelse[0])
            subjects.append(compared(chain[-1].test))
        self.chained |= {id(branch) for branch in chain}
        if len(chain) < 2 or chain[-1].orelse or not subjects[0]:
            return
        if any(s != subjects[0] for s in subjects) or self._falls_through(node, chain):
            return
        self._add(
            FindingKind.MISSING_FALLBACK_BRANCH, "high", node.lineno,
            f"{self.function[-1]}:{subjects[0]}",
            f"the dispatch on `{subjects[0]}` in `{self.function[-1]}` has {len(chain)} "
            "branches and no `else`: any other value falls through unanswered",
        )  # fmt: skip
        self.chained |= {id(branch) for branch in chain}

    def _in_chain(self, node: ast.If) -> bool:
        return id(node) in self.chained

    def _falls_through(self, node: ast.stmt, branches: list[ast.If] | list[ast.match_case]) -> bool:
        """True when every branch returns and a statement follows ``node``: that statement
        is the fallback."""
        returns = all(b.body and isinstance(b.body[-1], (ast.Return, ast.Raise)) for b in branches)
        fn = self.module.functions.get(self.function[-1])
        if fn is None or not returns:
            return False
        for parent in ast.walk(fn.node):
            for body in (getattr(parent, "body", None), getattr(parent, "orelse", None)):
                if isinstance(body, list) and node in body:
                    return body.index(node) < len(body) - 1
        return False

    def _line(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    def _add(
        self, kind: FindingKind, severity: Severity, line: int, subject: str, message: str
    ) -> None:
        count = self.counts.get(f"{kind}:{subject}", 0) + 1
        self.counts[f"{kind}:{subject}"] = count
        subject = subject if count == 1 else f"{subject}#{count}"
        self.module.findings.append(
            Finding(
                kind=kind, severity=severity, file=self.rel, line=line,
                subject=subject, message=message, evidence=[self._line(line)],
            )
        )  # fmt: skip


def compared(test: ast.expr) -> str:
    """The value an intent-dispatch test compares (``intent`` in ``intent == "book"``,
    ``text`` in ``"book" in text``), ``""`` when the test is no such comparison."""
    if isinstance(test, ast.BoolOp):
        values = {compared(v) for v in test.values}
        return values.pop() if len(values) == 1 else ""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(test.ops[0], (ast.Eq, ast.Is)) and isinstance(right, ast.Constant):
            return ast.unparse(left)
        if isinstance(test.ops[0], ast.In):
            if isinstance(left, ast.Constant):
                return ast.unparse(right)
            if isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                return ast.unparse(left)
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in {"startswith", "endswith"}
    ):
        return ast.unparse(test.func.value)
    return ""
