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
EXIT_HOMES = {"jobs/outcome.py"}
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


STAGES_AND_ABOVE = (
    "simulate", "check", "explore", "evaluate", "metamorphic", "mutation", "pipeline",
    "adversarial", "report", "diff", "personas", "validation", "distributed", "web", "cli",
    "runner", "conversations",
)  # fmt: skip
"""What the contract (``sparring.jobs``) never imports at run time: every stage, the report,
the runner and what is above them, and ``conversations`` (which imports the contract)."""


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Every ``sparring.<package>`` a module imports, and whether only for type checking."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only |= {id(inner) for inner in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "sparring" and len(parts) > 1:
                found.append((parts[1], id(node) in typing_only))
    return found


def test_the_job_contract_imports_no_stage_and_nothing_above_it() -> None:
    """``sparring.jobs`` is the ground-floor contract (issue 35): no stage, no report, no
    runner at run time (``conversations`` only names ``RunStore`` for the type checker),
    no module ``__getattr__``, no module loaded by name."""
    for path in sorted((SRC / "jobs").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        runtime = {p for p, typing_only in _imports(path) if not typing_only}
        assert runtime.isdisjoint(STAGES_AND_ABOVE), f"{path.name} imports {runtime}"
        typed = {p for p, typing_only in _imports(path) if typing_only}
        assert typed <= {"conversations", "connectors", "llm"}, f"{path.name}: {typed}"
        assert "def __getattr__" not in text and "import_module" not in text, path.name
        assert "builtins=" not in text, f"{path.name} names packages to load"
