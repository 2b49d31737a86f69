"""The static scan of a Python agent: an AST walk over every ``.py`` file of a folder.

What it looks for (``FindingKind``): tool, HTTP and I/O calls with no enclosing
``try``/``except`` (a call is guarded when it is inside a ``try`` with a handler, or
when every call site of its function is); intent dispatches (``if``/``elif`` chains on one
value, ``match``) with no ``else``/``case _`` and nothing after them; handler tables
indexed with ``[]``; memory and session state read with ``[]`` without a membership test;
module-level state written by functions; ``except`` blocks that only pass. Tools are
functions decorated ``@tool`` (or ``@x.tool``, ``@function_tool``) or named ``*_tool``.

The graph: one node per function (``kind``: handler, tool or function), one per branch of
an intent dispatch (``branch``), edges for calls (``calls``, with ``guarded``) and for
dispatches (``dispatches``, with the branch's condition).
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sparring._files import read_user_text, user_files
from sparring.adversarial._plan._findings import Finding, FindingKind, ScanResult
from sparring.adversarial._plan._python_walker import (
    SKIPPED_DIRS,
    Call,
    Function,
    ModuleFacts,
    Walker,
    callee,
    compared,
    decorator_name,
    function_kind,
)

if TYPE_CHECKING:
    import networkx as nx

logger = logging.getLogger(__name__)


def scan_python(folder: Path) -> ScanResult:
    """Scan every ``.py`` file under ``folder`` (tests, virtualenvs and caches skipped);
    a file that does not parse is logged and skipped. Findings sorted, files relative to
    ``folder``."""
    result = ScanResult(source=str(folder), scanner="python")
    module = ModuleFacts()
    trees: list[tuple[str, ast.Module]] = []
    sources: dict[str, list[str]] = {}
    for path in _python_files(folder):
        rel = path.relative_to(folder).as_posix() if path != folder else path.name
        text = read_user_text(path, errors="replace")
        sources[rel] = text.splitlines()
        try:
            tree = ast.parse(text, filename=rel)
        except SyntaxError as exc:
            logger.warning("static scan: skipped %s (line %s: %s)", rel, exc.lineno, exc.msg)
            continue
        trees.append((rel, tree))
        _collect_functions(rel, tree, module)
    tools = {f.qualname.rsplit(".", 1)[-1] for f in module.functions.values() if f.kind == "tool"}
    for rel, tree in trees:
        Walker(rel, module, tools, _module_state(tree), sources[rel]).visit(tree)
    result.files = len(trees)
    result.findings = module.findings + list(_unguarded(module))
    _graph(module, result)
    result.sort()
    return result


def _python_files(folder: Path) -> Iterator[Path]:
    if folder.is_file():
        yield folder
        return
    yield from user_files(folder, (".py",), lambda d: d in SKIPPED_DIRS or d.startswith("."))


def _collect_functions(rel: str, tree: ast.Module, module: ModuleFacts) -> None:
    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{node.name}"
                function = Function(qualname, rel, node.lineno, function_kind(node), node)
                module.functions[qualname] = function

    walk(tree.body, "")


def _module_state(tree: ast.Module) -> set[str]:
    """Module-level names bound to a mutable literal (dict, list, set) or ``dict()``."""
    names: set[str] = set()
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set)) or (
            isinstance(value, ast.Call) and decorator_name(value.func) in {"dict", "list", "set"}
        )
        if mutable:
            names |= {t.id for t in targets if isinstance(t, ast.Name) and not t.id.isupper()}
    return names


def _guarded_functions(module: ModuleFacts) -> set[str]:
    """Functions whose every call site is guarded (inside a ``try``, or in a function
    that is itself guarded); a function nobody calls is not guarded."""
    by_name: dict[str, list[str]] = {}
    for qualname in module.functions:
        by_name.setdefault(qualname.rsplit(".", 1)[-1], []).append(qualname)
    sites: dict[str, list[Call]] = {}
    for call in module.calls:
        for qualname in by_name.get(call.callee.rsplit(".", 1)[-1], []):
            sites.setdefault(qualname, []).append(call)
    guarded: set[str] = set()
    changed = True
    while changed:
        changed = False
        for qualname, calls in sites.items():
            if qualname not in guarded and all(c.guarded or c.caller in guarded for c in calls):
                guarded.add(qualname)
                changed = True
    return guarded


def _unguarded(module: ModuleFacts) -> Iterator[Finding]:
    guarded = _guarded_functions(module)
    tools = {q.rsplit(".", 1)[-1]: f for q, f in module.functions.items() if f.kind == "tool"}
    seen: dict[str, int] = {}
    for call in module.calls:
        caller = module.functions.get(call.caller)
        is_tool = call.callee.rsplit(".", 1)[-1] in tools
        if call.guarded or call.caller in guarded or not (call.io or is_tool):
            continue
        if call.io and caller is not None and caller.kind == "tool":
            continue  # the tool's callers answer for it (reported at their call)
        what = "tool" if is_tool else "I/O call"
        tool = tools.get(call.callee.rsplit(".", 1)[-1])
        doc = (ast.get_docstring(tool.node) or "") if tool is not None else ""
        subject = f"{call.caller}->{call.callee}"
        seen[subject] = seen.get(subject, 0) + 1
        yield Finding(
            kind=FindingKind.UNGUARDED_TOOL_CALL,
            severity="high",
            file=call.file,
            line=call.line,
            subject=subject if seen[subject] == 1 else f"{subject}#{seen[subject]}",
            message=f"{what} `{call.callee}` in `{call.caller}` has no enclosing try/except "
            "(nor does any caller): when it fails, the turn crashes instead of answering",
            evidence=[call.text] + ([" ".join(doc.replace("``", "`").split())] if doc else []),
        )


def _graph(module: ModuleFacts, result: ScanResult) -> None:
    g = result.graph
    by_name: dict[str, str] = {}
    for qualname, fn in module.functions.items():
        g.add_node(f"fn:{qualname}", kind=fn.kind, file=fn.file, line=fn.line)
        by_name.setdefault(qualname.rsplit(".", 1)[-1], qualname)
    for fn in module.functions.values():
        _dispatch_nodes(fn, g, by_name)
    for call in module.calls:
        target = by_name.get(call.callee.rsplit(".", 1)[-1])
        if target is None and not call.io:
            continue
        node = f"fn:{target}" if target else f"io:{call.callee}"
        if node not in g:
            g.add_node(node, kind="io")
        g.add_edge(f"fn:{call.caller}", node, kind="calls", guarded=call.guarded, line=call.line)


def _dispatch_nodes(fn: Function, g: nx.DiGraph[str], by_name: dict[str, str]) -> None:
    """A ``branch`` node per intent-dispatch test of ``fn``, with edges to the project
    functions its branch calls."""
    for node in ast.walk(fn.node):
        if isinstance(node, ast.If) and compared(node.test):
            branch = f"branch:{fn.qualname}:{node.lineno}"
            g.add_node(branch, kind="branch", file=fn.file, line=node.lineno)
            when = ast.unparse(node.test)[:80]
            g.add_edge(f"fn:{fn.qualname}", branch, kind="dispatches", when=when)
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Call):
                        target = by_name.get(callee(sub)[1])
                        if target:
                            g.add_edge(branch, f"fn:{target}", kind="calls", line=sub.lineno)
