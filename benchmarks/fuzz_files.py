"""A seeded fuzz sweep of sparring's file readers over other tools' real files (issue 36).

Seeds are the peers' published files in ``../shared/data`` (SENSEI profiles, rules,
personalities and conversations; TRACER profiles; ChatChecker personas, dialogues and its
``config.yaml``; SENSEI connector files; DBDC3 dialogues; two Rasa 1.x projects) and the
stored files of runs sparring writes itself (manifest, summary, progress, records, check
reports, breakdowns, statistics, the exploration model, coverage, metamorphic and probe
results), built at the start against the dental test bot. Each seed is mutated with a
seeded RNG, structurally (a key dropped or duplicated, a value retyped, a list where a map
is expected and the reverse, nulls, huge numbers, NaN and Infinity, deep nesting, a very
long value, another root) or as bytes (a BOM, UTF-16, invalid UTF-8, CRLF, tabs, a very
long line, an empty or cut file, a folder where the file should be), and fed to every
reader of its kind in process and to the commands that read it (``validate``,
``simulate``, ``check``, ``evaluate``, ``import-sensei``, ``import-chatchecker``,
``import-connector``, ``report``, ``diff``) through the console entry in a worker
process (a case that runs past its time is a hang; the worker is restarted).

Each outcome is one of: ``located`` (a user error naming the file and a line or key),
``file`` (naming the file only: an empty file, a folder, bad bytes), ``unlocated`` (a
user error naming no file), ``accepted`` (read, or the command ran: exit 0, 1 or 3),
``crash`` (a traceback, a report section that failed, or exit 70) and ``hang``.

    PYTHONPATH=src nice -n 10 python benchmarks/bench_hostile_files.py --fuzz [--seed 1]
        [--per-seed 3] [--max-seeds 6] [--json out.json]
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import io
import json
import logging
import math
import random
import re
import shutil
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
DEEP = "__FUZZ_DEEP__"

SEEDS: dict[str, list[str]] = {
    "profile": [
        "sensei/examples/profiles/**/*.y*ml", "tracer/*/execution_*/profiles/*.yaml",
        "sensei-wild/chatbots/*/conversations/*.yml", "hotel-bot/profiles/*.yaml",
        "rasa-bots/veterinary/sensei/profiles/*.yml",
    ],
    "rules": [
        "sensei/examples/rules/**/*.y*ml", "sensei-wild/chatbots/*/rules/*.yaml",
        "sensei-pizza/rules/*.y*ml", "rasa-bots/veterinary/sensei/rules-all/*.yaml",
        "hotel-bot/rules/*.yaml",
    ],
    "personality": ["sensei/personalities/*.yml"],
    "sensei conversation": [
        "sensei-pizza/conversations/*/conversations/*/*/*.yml",
        "rasa-bots/veterinary/sensei/conversations-gpt-4o-mini/conversation_outputs/*/*/*.yml",
    ],
    "chatchecker persona": ["chatchecker/chatbots/*/user_personas_paper_run_*/*.yaml"],
    "chatchecker dialogue": ["chatchecker/chatbots/*/runs/*/*/dialogue_*.yaml"],
    "chatchecker persona info": ["chatchecker/chatbots/*/runs/*/*/persona_info.yaml"],
    "connector": [
        "chatchecker/chatbots/*/config.yaml", "rasa-bots/veterinary/sensei/rasa-connector.yml",
        "rasa-bots/veterinary/sensei/run.yml", "hotel-bot/chatbot.yaml",
    ],
    "dbdc": ["dbdc3/en-dev/*/*.log.json"],
    "rasa project": [
        "rasa-bots/veterinary/bot/data/*", "rasa-bots/veterinary/bot/domain.yml",
        "rasa-bots/veterinary/bot/config.yml", "rasa-bots/bikeshop/bot/en/data/*",
        "rasa-bots/bikeshop/bot/en/domain.yml",
    ],
}  # fmt: skip
"""Seed files by kind (globs under ``../shared/data``)."""

STORED = [
    "manifest.json", "summary.json", "progress.json", "verdicts/*.json",
    "evaluations/*.json", "explore/model.json", "results/*.json", "conversations/*.json",
    "exploration/manifest.json", "exploration/explore/model.json",
]  # fmt: skip
"""The stored files of a seed run that are mutated (one per case)."""


# -- mutations ----------------------------------------------------------------------------


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _nodes(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _nodes(child, (*path, index))


def _replace(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return root


def _pick(rng: random.Random, root: Any, want: type | None = None) -> tuple[Any, ...] | None:
    found = [p for p, v in _nodes(root) if want is None or isinstance(v, want)]
    return rng.choice(found) if found else None


RETYPES: list[Any] = [
    None, 0, -1, True, "", "text", [], {}, [1, "two"], {"a": 1}, 3.5,
    datetime.date(2025, 11, 6), datetime.datetime(2025, 11, 6, 9, 30), b"\x00\xff",
]  # fmt: skip
"""What a value is replaced by: every JSON type, and YAML's dates, times and binary."""


def _drop_key(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root, dict)
    parent = root if path is None else _get(root, path)
    if isinstance(parent, dict) and parent:
        del parent[rng.choice(list(parent))]
    return root


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        root = root[key]
    return root


def _retype(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    return root if path is None else _replace(root, path, copy.deepcopy(rng.choice(RETYPES)))


def _list_for_map(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root, dict)
    if path is None:
        return root
    found = _get(root, path)
    return _replace(root, path, rng.choice([list(found.values()), [found], list(found)]))


def _map_for_list(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root, list)
    if path is None:
        return root
    found = _get(root, path)
    return _replace(root, path, {str(i): v for i, v in enumerate(found)} or {"x": None})


def _null(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    return root if path is None else _replace(root, path, None)


def _huge_number(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    big = rng.choice([10**30, -(10**30), 10**400, 2**63, -1, 1e308, 1e-320])
    return root if path is None else _replace(root, path, big)


def _nan(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    weird = rng.choice([math.nan, math.inf, -math.inf])
    return root if path is None else _replace(root, path, weird)


def _deep(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    return root if path is None else _replace(root, path, DEEP)


def _long_value(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root)
    size = rng.choice([100_000, 1_500_000])
    return root if path is None else _replace(root, path, "long " * (size // 5))


def _retype_key(rng: random.Random, root: Any, json_like: bool) -> Any:
    path = _pick(rng, root, dict)
    found = root if path is None else _get(root, path)
    if isinstance(found, dict) and found:
        key = rng.choice(list(found))
        new_key = rng.choice([1, True, None, 2.5, datetime.date(2025, 1, 1), ""])
        found[str(new_key) if json_like else new_key] = found.pop(key)
    return root


def _new_root(rng: random.Random, root: Any, json_like: bool) -> Any:
    return rng.choice([[root], "just text", 42, None, [], {}])


STRUCTURAL: dict[str, Callable[[random.Random, Any, bool], Any]] = {
    "drop key": _drop_key, "retype": _retype, "list for map": _list_for_map,
    "map for list": _map_for_list, "null": _null, "huge number": _huge_number,
    "NaN/Infinity": _nan, "deep nesting": _deep, "long value": _long_value, "root": _new_root,
    "retype key": _retype_key,
}  # fmt: skip


def _dup_key(rng: random.Random, data: bytes) -> bytes:
    lines = data.split(b"\n")
    keyed = [i for i, line in enumerate(lines) if re.match(rb'\s*"?[\w-]+"?\s*:', line)]
    if not keyed:
        return data
    at = rng.choice(keyed)
    lines.insert(at, lines[at])
    return b"\n".join(lines)


def _tabs(rng: random.Random, data: bytes) -> bytes:
    return re.sub(rb"(?m)^(  )+", lambda m: b"\t" * (len(m.group(0)) // 2), data)


def _invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80"]) + data[at:]


def _long_line(rng: random.Random, data: bytes) -> bytes:
    at = data.find(b"\n")
    filler = b" " * rng.choice([200_000, 3_000_000])
    return data + filler if at < 0 else data[:at] + filler + data[at:]


def _cut(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


BYTES: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "duplicate key": _dup_key,
    "BOM": lambda rng, data: b"\xef\xbb\xbf" + data,
    "UTF-16": lambda rng, data: data.decode("utf-8", "replace").encode("utf-16"),
    "invalid UTF-8": _invalid_utf8,
    "CRLF": lambda rng, data: data.replace(b"\n", b"\r\n"),
    "tabs": _tabs,
    "long line": _long_line,
    "empty": lambda rng, data: b"",
    "whitespace": lambda rng, data: b" \n\t\n",
    "cut": _cut,
    "garbage": lambda rng, data: rng.randbytes(rng.choice([16, 4096])),
}
"""Mutations of the bytes of a file. A folder where the file should be is ``"folder"``."""


def _parse(path: Path) -> tuple[list[Any], bool] | None:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return [json.loads(text)], True
    if path.suffix in (".yml", ".yaml"):
        return list(yaml.safe_load_all(text)), False
    return None  # Markdown training data: bytes only


def _dump(documents: list[Any], json_like: bool, rng: random.Random) -> bytes:
    depth = rng.choice([60, 150, 3000])
    if json_like:
        text = json.dumps(documents[0], ensure_ascii=False, default=str, allow_nan=True)
        text = text.replace(json.dumps(DEEP), "[" * depth + "]" * depth)
    else:
        text = yaml.safe_dump_all(documents, allow_unicode=True, sort_keys=False, width=200)
        text = text.replace(DEEP, "[" * depth + "]" * depth)
    return text.encode("utf-8")


def mutate(rng: random.Random, seed: Path, target: Path) -> str:
    """Write a mutation of ``seed`` at ``target`` (a folder for ``"folder"``); its name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    data = seed.read_bytes()
    parsed = None
    with contextlib.suppress(ValueError, yaml.YAMLError):
        parsed = _parse(seed)
    choice = rng.random()
    if choice < 0.04:
        target.mkdir()
        return "folder"
    if parsed is not None and choice < 0.65:
        documents, json_like = parsed
        at = rng.randrange(len(documents)) if documents else 0
        names = [rng.choice(sorted(STRUCTURAL)) for _ in range(rng.choice([1, 1, 2, 3]))]
        for name in names:
            if documents:
                documents[at] = STRUCTURAL[name](rng, documents[at], json_like)
        target.write_bytes(_dump(documents, json_like, rng))
        return "+".join(names)
    name = rng.choice(sorted(BYTES))
    target.write_bytes(BYTES[name](rng, data))
    return name


# -- outcomes -----------------------------------------------------------------------------


def classify_error(exc: BaseException, path: Path) -> str:
    """The outcome of an exception a reader raised on the file at ``path``."""
    from sparring.errors import UserInputError

    if not isinstance(exc, UserInputError):
        return "crash"
    problems = exc.problems
    if any(p.file and (p.line is not None or p.key) for p in problems):
        return "located"
    return "file" if any(p.file for p in problems) else "unlocated"


def classify_exit(code: int, output: str, path: Path) -> str:
    """The outcome of a command's exit code and its output, for a mutated ``path``."""
    if code == 70 or "Traceback (most recent call last)" in output:
        return "crash"
    if code in (0, 1, 3):
        return "accepted"
    if code != 2:
        return f"exit {code}"
    name = re.escape(path.name)
    if re.search(rf"{name}(?::\d+| ?\[)", output) or re.search(rf"{name}\S*:\d+", output):
        return "located"
    if path.name in output or str(path.parent.name) in output:
        return "file"
    return "unlocated"


# -- targets ------------------------------------------------------------------------------


def _readers() -> dict[str, Callable[[Path], Any]]:
    from sparring.check import load_rules
    from sparring.connectors import import_connector, load_chatbot_config
    from sparring.conversations import import_chatchecker, import_sensei, read_chatchecker_dialogue
    from sparring.evaluate import load_dbdc
    from sparring.profiles import (
        load_chatchecker_persona,
        load_persona_file,
        load_profile,
        read_persona,
    )
    from sparring.rasa_project import load_project

    return {
        "load_profile": load_profile,
        "load_rules": lambda path: load_rules([path]),
        "read_persona": read_persona,
        "import_sensei": import_sensei,
        "load_chatchecker_persona": load_chatchecker_persona,
        "load_persona_file": load_persona_file,
        "read_chatchecker_dialogue": read_chatchecker_dialogue,
        "import_chatchecker": lambda path: import_chatchecker(path),
        "load_chatbot_config": load_chatbot_config,
        "import_connector": lambda path: import_connector(str(path)),
        "load_dbdc": load_dbdc,
        "load_project": load_project,
    }


READERS: dict[str, list[str]] = {
    "profile": ["load_profile"],
    "rules": ["load_rules"],
    "personality": ["read_persona"],
    "sensei conversation": ["import_sensei"],
    "chatchecker persona": ["load_chatchecker_persona", "load_persona_file"],
    "chatchecker dialogue": ["read_chatchecker_dialogue", "import_chatchecker"],
    "chatchecker persona info": [
        "import_chatchecker",
        "load_chatchecker_persona",
        "load_persona_file",
    ],
    "connector": ["load_chatbot_config", "import_connector"],
    "dbdc": ["load_dbdc"],
    "rasa project": ["load_project"],
}
"""The in-process readers of each kind (the argument is the mutated file; for a Rasa
project, the project folder holding it)."""

COMMANDS: dict[str, list[str]] = {
    "profile": ["validate {file}", "simulate {file} -c {chatbot} -o {out} --max-turns 4"],
    "rules": ["validate {file}", "check {file} --run {run} --no-store"],
    "personality": ["validate {file}"],
    "sensei conversation": ["import-sensei {file} --out {out}"],
    "chatchecker persona": ["validate {file}"],
    "chatchecker dialogue": ["import-chatchecker {file} --out {out}"],
    "chatchecker persona info": ["import-chatchecker {folder} --out {out}", "validate {file}"],
    "connector": ["validate {file}", "import-connector {file}"],
    "stored": ["report {run}", "diff {seed} {run}", "check {rules} --run {run} --no-store",
               "evaluate {run}"],
}  # fmt: skip
"""The commands run on each kind (``{file}`` the mutated file, ``{run}`` the run holding
a mutated stored file, ``{seed}`` its unmutated twin)."""


def _run_command(argv: list[str]) -> tuple[int, str]:
    """``sparring ARGV`` through the console entry, in this process: exit code and output
    (standard output, standard error and any log record's traceback)."""
    from sparring.cli import main

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logging.getLogger().addHandler(handler)
    sys.argv = ["sparring", *argv]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        out.write(traceback.format_exc())
        code = 70
    finally:
        logging.getLogger().removeHandler(handler)
    return code, out.getvalue()


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """One case in this process: ``reader`` (a name of ``_readers``) or ``command``."""
    path = Path(case["file"])
    if "reader" in case:
        argument = Path(case.get("argument", case["file"]))
        try:
            _readers()[case["reader"]](argument)
        except Exception as exc:
            outcome = classify_error(exc, path)
            detail = f"{type(exc).__name__}: {str(exc)[:300]}"
            if outcome == "crash":
                detail += " @ " + _where(exc)
            return {"outcome": outcome, "detail": detail}
        return {"outcome": "accepted", "detail": ""}
    code, output = _run_command(case["command"])
    outcome = classify_exit(code, output, path)
    report = Path(case.get("report", "/nonexistent"))
    if report.is_file() and "This section failed" in report.read_text(errors="replace"):
        outcome = "crash"
    tail = [line for line in output.splitlines() if line.strip()][-3:]
    return {"outcome": outcome, "detail": f"exit {code}: " + " | ".join(tail)[:400]}


def _where(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "sparring" in f.filename]
    last = frames[-1] if frames else traceback.extract_tb(exc.__traceback__)[-1]
    return f"{Path(last.filename).name}:{last.lineno}"


def worker() -> None:
    """Read cases (one JSON object a line) from standard input, answer one line each."""
    logging.disable(logging.NOTSET)
    for line in sys.stdin:
        result = run_case(json.loads(line))
        sys.__stdout__.write(json.dumps(result) + "\n")
        sys.__stdout__.flush()


# -- the sweep ----------------------------------------------------------------------------


def _sparring(*argv: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "sparring", *argv], cwd=cwd, check=False,
                   capture_output=True, timeout=900)  # fmt: skip


def seed_runs(work: Path) -> dict[str, Path]:
    """Runs with every stored file sparring writes: ``run`` (exploration, records, check
    reports, coverage) then ``evaluate`` on the dental test bot; ``metamorphic`` and
    ``adversarial probe`` on it. Built once in ``work``."""
    sys.path.insert(0, str(ROOT))
    from tests import bots

    chatbot = bots.python_chatbot("dental", [], work / "bot")
    runs = {
        "run": work / "seed-run",
        "metamorphic": work / "seed-meta",
        "probe": work / "seed-probe",
    }
    if not (runs["run"] / "evaluations").is_dir():
        _sparring("run", "-c", str(chatbot), "-o", str(runs["run"]), "--seed", "1", cwd=work)
        _sparring("evaluate", str(runs["run"]), cwd=work)
    if not (runs["metamorphic"] / "results").is_dir():
        _sparring("metamorphic", str(runs["run"]), "-c", str(chatbot), "-o",
                  str(runs["metamorphic"]), cwd=work)  # fmt: skip
    if not (runs["probe"] / "results").is_dir():
        _sparring("adversarial", "probe", "-c", str(chatbot), "-o", str(runs["probe"]), cwd=work)
    return runs


def _copy_case(seed: Path, kind: str, case: Path) -> tuple[Path, Path]:
    """The mutable copy of ``seed`` in ``case``: (the file to mutate, the reader's argument)."""
    if kind == "rasa project":
        project = next(p for p in seed.parents if (p / "domain.yml").is_file())
        for part in ("data", "domain.yml", "config.yml"):
            source = project / part
            if source.is_dir():
                shutil.copytree(source, case / "project" / part)
            elif source.is_file():
                shutil.copy(source, case / "project" / part)
        return case / "project" / seed.relative_to(project), case / "project"
    if kind in ("chatchecker dialogue", "chatchecker persona info"):  # with its run's files
        folder = case / seed.parent.name
        shutil.copytree(seed.parent, folder)
        dialogue = next(iter(sorted(folder.glob("dialogue_*.yaml"))), folder / seed.name)
        mutated = folder / seed.name
        return mutated, mutated if seed.name.startswith("dialogue") else dialogue
    (case).mkdir(parents=True, exist_ok=True)
    return case / seed.name, case / seed.name


def cases(options: Any, work: Path, runs: dict[str, Path]) -> Iterator[dict[str, Any]]:
    """Every case of the sweep, its mutated file written under ``work/corpus``."""
    rng = random.Random(options.seed)
    corpus = work / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    chatbot = work / "scripted.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  fallback: Hello!\n", encoding="utf-8")
    number = 0
    for kind, globs in SEEDS.items():
        found = sorted({p for g in globs for p in options.data.glob(g) if p.is_file()})
        for seed in rng.sample(found, min(options.max_seeds, len(found))):
            for _ in range(options.per_seed):
                number += 1
                case = corpus / f"{number:04d}"
                (case / "project").mkdir(parents=True)
                file, argument = _copy_case(seed, kind, case)
                how = mutate(rng, seed, file)
                base = {"kind": kind, "seed": str(seed.relative_to(options.data)), "how": how,
                        "file": str(file)}  # fmt: skip
                for reader in READERS[kind]:
                    given = argument if reader in ("import_chatchecker", "load_project") else file
                    yield {**base, "reader": reader, "argument": str(given)}
                if rng.random() >= options.commands_share:
                    continue
                for line in COMMANDS.get(kind, []):
                    out = case / f"out-{line.split()[0]}"
                    argv = line.format(file=file, chatbot=chatbot, out=out, run=runs["run"],
                                       folder=file.parent).split()  # fmt: skip
                    yield {**base, "command": argv}
    stored = [(name, run, f) for name, run in runs.items() for g in STORED for f in run.glob(g)]
    for name, run, seed in rng.sample(stored, min(len(stored), options.max_seeds * 4)):
        for _ in range(max(1, round(options.per_seed * options.commands_share))):
            number += 1
            case = corpus / f"{number:04d}" / "run"
            shutil.copytree(run, case, ignore=shutil.ignore_patterns("report"))
            file = case / seed.relative_to(run)
            how = mutate(rng, seed, file)
            base = {"kind": f"stored ({name})", "seed": str(seed.relative_to(run)), "how": how,
                    "file": str(file), "report": str(case / "report" / "index.html")}  # fmt: skip
            for line in COMMANDS["stored"] if name == "run" else COMMANDS["stored"][:1]:
                argv = line.format(run=case, seed=run, rules=runs["run"] / "explore" / "rules")
                yield {**base, "command": argv.split()}


class Worker:
    """A worker process running cases one at a time; restarted after a hang."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.process: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
            )  # fmt: skip
        return self.process

    def run(self, case: dict[str, Any]) -> dict[str, Any]:
        import selectors

        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(case) + "\n")
        process.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(self.timeout)
        line = process.stdout.readline() if ready else ""
        if line:
            result: dict[str, Any] = json.loads(line)
            return result
        process.kill()
        process.wait()
        self.process = None
        return {
            "outcome": "hang" if not ready else "crash",
            "detail": f"no answer in {self.timeout} s" if not ready else "worker died",
        }

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


def sweep(options: Any) -> dict[str, Any]:
    """Run the sweep; print and return the counts (by target and outcome) and the crashes."""
    work = options.work
    work.mkdir(parents=True, exist_ok=True)
    runs = seed_runs(work)
    worker = Worker(options.case_timeout)
    counts: dict[str, Counter[str]] = {}
    bad: list[dict[str, Any]] = []
    try:
        for case in cases(options, work, runs):
            result = worker.run(case)
            target = case.get("reader") or f"sparring {case['command'][0]}"
            counts.setdefault(target, Counter())[result["outcome"]] += 1
            if result["outcome"] in ("crash", "hang", "unlocated") or result["outcome"].startswith(
                "exit"
            ):
                bad.append({**case, **result})
                print(f"{result['outcome']:9} {target:28} {case['kind']:20} {case['how']:14} "
                      f"{case['seed']}: {result['detail'][:300]}", flush=True)  # fmt: skip
    finally:
        worker.close()
    total: Counter[str] = sum(counts.values(), Counter())
    print(f"\n{'target':30}" + "".join(f"{k:>11}" for k in OUTCOMES))
    for target, found in sorted(counts.items()):
        print(f"{target:30}" + "".join(f"{found[k]:>11}" for k in OUTCOMES))
    print(f"{'all':30}" + "".join(f"{total[k]:>11}" for k in OUTCOMES))
    return {"counts": {t: dict(c) for t, c in counts.items()}, "total": dict(total), "bad": bad}


OUTCOMES = ("located", "file", "unlocated", "accepted", "crash", "hang")


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    worker()
