"""The job lifecycle has one home (issue 25): no run manifest built outside the runner, no
root result file named outside ``RunStore``, no exit code decided outside the outcome
module, no job result written beside ``RunStore``'s slots, no file renamed over another
outside the one atomic write (``sparring._atomic``), no typo or leetspeak generator outside
``sparring.typos``, no report written outside the runner (and ``sparring report``), no
job module that probes the chatbot or loads a model itself (the runner does). Jobs not yet
moved onto the runner are listed by name; the lists only shrink (a file listed that no
longer breaks the rule fails too, so the list stays true)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "sparring"

MANIFEST_BUILT = re.compile(r"RunManifest(\.for_job)?\(")
MANIFEST_HOMES = {"conversations/_records.py", "runner/_runner.py"}
MANIFEST_NOT_YET: set[str] = set()

ROOT_RESULT = re.compile(
    r"[\"'](adversarial|probes|metamorphic|mutation|coverage|definition_coverage)\.json[\"']"
)
ROOT_RESULT_HOMES: set[str] = set()
ROOT_RESULT_NOT_YET: set[str] = set()

RESULT_WRITTEN = re.compile(r"write_job_result\(|atomic_write\([^)]*model_dump_json")
RESULT_HOMES = {
    "conversations/_store.py",
    "runner/_progress.py",
    "llm/_cache.py",  # the model cache, no job result
}
RESULT_NOT_YET: set[str] = set()

EXIT_DECIDED = re.compile(r"EXIT_\w+(, EXIT_\w+)* = \d|typer\.Exit\(\d|sys\.exit\(\d")
EXIT_HOMES = {"outcome.py"}
EXIT_NOT_YET: set[str] = set()

ATOMIC_WRITE = re.compile(
    r"os\.(replace|rename)\(|shutil\.move\(|NamedTemporaryFile|mkstemp"
    r"|\b(tmp|temp|temporary|partial)\w*\.(replace|rename)\("
)
ATOMIC_HOMES = {"_atomic.py"}

TYPO_GENERATOR = re.compile(
    r"[\"']qwertyuiop[\"']"  # a keyboard layout for neighbour typos
    r"|(\w+)\[(\w+) \+ 1\] \+ \1\[\2\]"  # adjacent letters swapped
    r"|\"a\": \"4\""  # a leetspeak table
)
TYPO_HOMES = {"typos.py"}

REPORT_WRITTEN = re.compile(r"\b(write_report|print_report_path)\(")
REPORT_HOMES = {"runner/_runner.py", "report/__init__.py", "report/_page.py", "cli/_report.py"}
"""The runner writes the report after every job that needs one; ``sparring report`` writes
it again (``cli/_report.py``); a CLI command only prints ``JobRun.report``."""
REPORT_NOT_YET: set[str] = set()

MANIFEST_NAMED = re.compile(r"[\"']manifest\.json[\"']")
MANIFEST_NAME_HOMES = {"conversations/_store.py"}
"""``MANIFEST``; "is this folder a run?" is ``is_run_directory`` there too."""
RUN_TESTED = re.compile(r"/ MANIFEST\)\.(is_file|exists)\(")
RUN_TESTED_HOMES = {"conversations/_store.py"}
REPLY_TIMEOUT_DEFAULT = re.compile(r"timeout[\"'],? [^)]*\)+ *\+|REPLY_TIMEOUT_MARGIN = ")
REPLY_TIMEOUT_HOMES = {"connectors/_config.py"}
"""``ChatbotConfig.reply_timeout``: the connector's ``timeout`` plus the margin."""

SETUP_DONE = re.compile(r"\b(load_model|ensure_reachable)\(")
"""What the runner does for a job that declares it needs it (``sparring.jobs.Needs``)."""
JOB_MODULES = re.compile(r"(^|/)_job\.py$")
SETUP_NOT_YET: set[str] = set()


def _offenders(pattern: re.Pattern[str], files: re.Pattern[str] | None = None) -> set[str]:
    names = (str(path.relative_to(SRC)) for path in SRC.rglob("*.py"))
    return {
        name
        for name in names
        if (files is None or files.search(name))
        and pattern.search((SRC / name).read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize(
    ("what", "pattern", "homes", "not_yet"),
    [
        ("a run manifest is built", MANIFEST_BUILT, MANIFEST_HOMES, MANIFEST_NOT_YET),
        ("a root result file is named", ROOT_RESULT, ROOT_RESULT_HOMES, ROOT_RESULT_NOT_YET),
        ("a job result is written", RESULT_WRITTEN, RESULT_HOMES, RESULT_NOT_YET),
        ("an exit code is decided", EXIT_DECIDED, EXIT_HOMES, EXIT_NOT_YET),
        ("a file is renamed over another", ATOMIC_WRITE, ATOMIC_HOMES, set()),
        ("typos or leetspeak are made", TYPO_GENERATOR, TYPO_HOMES, set()),
        ("a report is written", REPORT_WRITTEN, REPORT_HOMES, REPORT_NOT_YET),
        ("manifest.json is named", MANIFEST_NAMED, MANIFEST_NAME_HOMES, set()),
        ("a folder is tested for a run", RUN_TESTED, RUN_TESTED_HOMES, set()),
        ("the reply timeout defaults", REPLY_TIMEOUT_DEFAULT, REPLY_TIMEOUT_HOMES, set()),
    ],
)
def test_the_lifecycle_has_one_home(
    what: str, pattern: re.Pattern[str], homes: set[str], not_yet: set[str]
) -> None:
    found = _offenders(pattern) - homes
    assert found - not_yet == set(), f"{what} outside its home: {sorted(found - not_yet)}"
    assert not_yet - found == set(), f"moved onto the runner, drop from the list: {not_yet - found}"


def test_no_job_module_probes_the_chatbot_or_loads_a_model_itself() -> None:
    """A job declares what it needs (``Needs``: chatbot, model) and the runner provides it
    (``ctx.chatbot``, ``ctx.model``): no ``_job.py`` probes the chatbot or loads a model
    itself."""
    found = _offenders(SETUP_DONE, JOB_MODULES)
    assert found - SETUP_NOT_YET == set(), f"set up outside the runner: {sorted(found)}"
    gone = SETUP_NOT_YET - found
    assert gone == set(), f"moved onto the runner, drop from the list: {gone}"


@pytest.mark.parametrize(
    ("pattern", "twin"),
    [
        (ATOMIC_WRITE, "os.replace(temporary, path)"),
        (ATOMIC_WRITE, "fd, tmp = tempfile.mkstemp(dir=path.parent)"),
        (ATOMIC_WRITE, "partial.replace(target)"),
        (TYPO_GENERATOR, "return word[:i] + word[i + 1] + word[i] + word[i + 2 :]"),
        (TYPO_GENERATOR, '_QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")'),
        (TYPO_GENERATOR, '_LEET = str.maketrans({"a": "4", "e": "3"})'),
        (REPORT_WRITTEN, "    print_report_path(result.store.path)"),  # the twin removed
        (SETUP_DONE, "    model = load_model(settings.model, settings.model_base_url)"),
        (SETUP_DONE, "        await ensure_reachable(config, PROBE_TIMEOUT)"),
        (MANIFEST_NAMED, '    if not (run / "manifest.json").is_file():'),
        (RUN_TESTED, "    if (path / MANIFEST).is_file():"),
        (REPLY_TIMEOUT_DEFAULT, 'float(getattr(config.params, "timeout", 20.0)) + MARGIN'),
        (REPLY_TIMEOUT_DEFAULT, "REPLY_TIMEOUT_MARGIN = 5.0"),
    ],
)
def test_the_patterns_find_the_twins_they_replaced(pattern: re.Pattern[str], twin: str) -> None:
    """The twins removed in issue 25 would be found again."""
    assert pattern.search(twin)


LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("ground", frozenset({"rasa_project"})),  # and every module file: see ``layer_of``
    ("base", frozenset({"llm", "connectors", "profiles", "conversations"})),
    ("contract", frozenset({"jobs"})),
    ("stages", frozenset(
        {"simulate", "check", "explore", "evaluate", "metamorphic", "personas", "importers"}
    )),
    ("composed", frozenset({"diff", "mutation", "adversarial", "pipeline", "validation"})),
    ("report", frozenset({"report"})),
    ("runner", frozenset({"runner"})),
    ("callers", frozenset({"distributed", "web", "cli", "_console", "__main__"})),
)  # fmt: skip
"""The house from the ground up (docs/architecture.md): neutral modules; the base packages;
the contract (``sparring.jobs``: it names the chatbot, model and run store it hands a job);
the stages; what composes or reads them; the report; the runner, which runs them all and
writes the report; its callers. A package imports its own layer or lower ones only."""


def _unit(relative: Path) -> str:
    """The package (or top-level module) a file of ``src/sparring`` belongs to."""
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def package_graph(src: Path) -> dict[str, dict[str, list[str]]]:
    """``{package: {imported package: ["file:line name", ...]}}`` for every ``sparring``
    package or top-level module under ``src``, read with ``ast``: imports at the top,
    under ``TYPE_CHECKING`` and inside functions, ``from sparring import x`` and module
    names handed to ``importlib.import_module`` all count."""
    import ast

    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(src.rglob("*.py")):
        relative = path.relative_to(src)
        me = _unit(relative)
        edges = graph.setdefault(me, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
                if node.module == "sparring":
                    names = [f"sparring.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif (
                isinstance(node, ast.Call)
                and "import_module" in ast.unparse(node.func)
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names = [str(node.args[0].value)]
            for name in names:
                parts = name.split(".")
                if (
                    parts[0] == "sparring"
                    and len(parts) > 1
                    and parts[1] not in (me, "__version__")
                ):
                    where = f"{relative}:{getattr(node, 'lineno', 0)} {name}"
                    edges.setdefault(parts[1], []).append(where)
    return graph


def circles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The package circles of ``graph`` (strongly connected sets of two or more), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


_MODULES = frozenset(path.stem for path in SRC.glob("*.py"))


def layer_of(
    package: str,
    layers: tuple[tuple[str, frozenset[str]], ...] = LAYERS,
    modules: frozenset[str] = _MODULES,
) -> int:
    """The index of ``package``'s layer; a top-level module (one of ``modules``:
    ``values``, ``_atomic``) named in no layer is ground (0). Raises ``KeyError`` for a
    package in no layer."""
    for number, (_, members) in enumerate(layers):
        if package in members:
            return number
    if package in modules:
        return 0
    raise KeyError(f"{package} stands in no layer: add it to LAYERS")


def upward_imports(
    graph: dict[str, dict[str, list[str]]],
    layers: tuple[tuple[str, frozenset[str]], ...] = LAYERS,
    modules: frozenset[str] = _MODULES,
) -> list[str]:
    """Every import of ``graph`` from a lower layer to a higher one, with where it is."""
    found = []
    for source, targets in sorted(graph.items()):
        low = layer_of(source, layers, modules)
        for target, where in sorted(targets.items()):
            high = layer_of(target, layers, modules)
            if high > low:
                names = f"{source} ({layers[low][0]}) -> {target} ({layers[high][0]})"
                found.append(f"{names}: {where[0]}")
    return found


def test_no_circle_across_packages() -> None:
    """No package imports, however indirectly, a package that imports it (issue 35: the
    runner and the contract once made one circle of 72 files across 5 packages)."""
    assert circles(package_graph(SRC)) == []


def test_no_package_imports_a_higher_layer() -> None:
    """The layers of ``LAYERS`` hold: no import runs back up a layer."""
    assert upward_imports(package_graph(SRC)) == []


def test_the_contract_imports_no_stage_and_nothing_above_it() -> None:
    """``sparring.jobs`` is the contract: below every stage (no stage, report or runner
    imported, not even for the type checker); the base packages whose types it hands a job
    (``ChatbotConfig``, ``Model``, ``RunStore``) only for the type checker; no module
    ``__getattr__``, no module loaded by name."""
    import ast

    imported = set(package_graph(SRC)["jobs"])
    assert {layer_of(name) for name in imported} <= {0, 1}, imported
    for path in sorted((SRC / "jobs").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sparring."):
                package = (node.module or "").split(".")[1]
                if package != "jobs" and layer_of(package) > 0:
                    assert id(node) in typing_only, f"{path.name}:{node.lineno} {node.module}"
        assert "def __getattr__" not in text and "import_module" not in text, path.name
        assert "builtins=" not in text, f"{path.name} names packages to load"


def test_the_built_in_jobs_stand_below_the_runner() -> None:
    """``BUILTIN_JOBS`` names packages the registry imports by name (not seen as arrows):
    each is a package of a layer below the runner's, so the names hide no upward import."""
    from sparring.runner import BUILTIN_JOBS

    runner = layer_of("runner")
    for module in BUILTIN_JOBS:
        package = module.split(".")[1]
        assert (SRC / package / "__init__.py").is_file(), module
        assert layer_of(package) < runner, module


def _plant(root: Path, files: dict[str, str]) -> Path:
    """A fake ``sparring`` tree under ``root`` with ``files`` (path → source)."""
    src = root / "sparring"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return src


def test_a_planted_circle_is_found_even_under_type_checking(tmp_path: Path) -> None:
    """The circle issue 35 broke, planted: the contract naming the run store for the type
    checker while the run store imports the contract."""
    src = _plant(tmp_path, {
        "jobs/__init__.py": "from sparring.jobs._protocol import JobContext\n",
        "jobs/_protocol.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from sparring.conversations import RunStore\n"
        ),
        "conversations/__init__.py": "from sparring.jobs import JobStatus\n",
        "check/__init__.py": "from sparring import conversations\n",
    })  # fmt: skip
    assert circles(package_graph(src)) == [["conversations", "jobs"]]


def test_a_planted_upward_import_is_found_even_inside_a_function(tmp_path: Path) -> None:
    """The arrows issue 35 turned round, planted: a stage running a job through the runner
    (inside a function), and the runner importing the report."""
    src = _plant(tmp_path, {
        "pipeline/_job.py": "async def explore():\n    from sparring.runner import start_async\n",
        "runner/_runner.py": "import importlib\nimportlib.import_module('sparring.report')\n",
        "report/__init__.py": "from sparring.jobs import Outcome\n",
        "jobs/__init__.py": "from sparring import errors\n",
        "errors.py": "",
    })  # fmt: skip
    graph = package_graph(src)
    found = upward_imports(graph, modules=frozenset({"errors"}))
    assert found == ["pipeline (composed) -> runner (runner): pipeline/_job.py:2 sparring.runner"]
    assert "report" in graph["runner"]  # imported by name: an arrow, and a downward one
    with pytest.raises(KeyError, match="no layer"):
        upward_imports({"newstage": {"jobs": ["x"]}}, modules=frozenset())


def test_a_planted_private_import_across_packages_is_found(tmp_path: Path) -> None:
    """A stage importing another's private module, planted in a fake tree, is found by the
    check ``tests/test_private_imports.py`` runs on the real one."""
    from tests.test_private_imports import private_cross_imports

    src = _plant(tmp_path, {
        "mutation/_harness.py": "def run():\n    from sparring.simulate._job import plan_specs\n",
    })  # fmt: skip
    text = (src / "mutation/_harness.py").read_text(encoding="utf-8")
    assert private_cross_imports(text, "mutation") == [
        "2: sparring.simulate._job",
        "2: sparring.simulate._job.plan_specs",
    ]


def test_every_package_stands_in_a_layer() -> None:
    """A new package is placed on purpose: every package of ``src/sparring`` is in
    ``LAYERS`` (a top-level module is ground unless named there)."""
    for package in package_graph(SRC):
        layer_of(package)
