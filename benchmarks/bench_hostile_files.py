"""Time and peak memory of sparring's loaders on hostile files (issue 26, acceptance).

The corpus is the test suite's (``tests/test_hostile_files.py``: an alias bomb of 9^9
strings, 5,000-deep flow nesting, 105-deep block nesting, a NUL byte, a file over the size
limit, a folder and a symbolic-link loop where a file is expected). For each file it runs,
each in a fresh process:

- ``python -m sparring validate FILE`` — exit code, wall time, peak resident memory;
- every loader of the test (profile, chatbot.yaml, rules, probe suite, weaknesses,
  rubric, answers, taxonomy, dimensions, persona files, SENSEI and ChatChecker imports,
  conversations, the scripted model's script), one after the other — wall time and peak
  resident memory of the whole process, and the seconds spent in the loaders themselves
  (without the interpreter's start-up and imports).

A "huge plan" profile (six chained ``forward()`` variables of ten values, ``number:
all_combinations``: 10^6 conversations) goes through ``validate`` and ``simulate`` (against
a scripted chatbot).

The acceptance bound is < 10 s and < 500 MB per file. Peak memory is the peak RSS of
the child as GNU time reports it (``/usr/bin/time -f %M``; it includes the interpreter
and sparring's imports, ~170 MB).

    PYTHONPATH=src nice -n 10 python benchmarks/bench_hostile_files.py [--json out.json]

With ``--fuzz`` it runs the seeded fuzz sweep of ``benchmarks/fuzz_files.py`` instead:
the peers' real files in ``../shared/data`` and sparring's own stored run files, mutated
structurally and as bytes, through every reader and the commands that read them, with
the outcomes counted (located error, file named, unlocated, accepted, crash, hang)::

    PYTHONPATH=src nice -n 10 python benchmarks/bench_hostile_files.py --fuzz --seed 1 \
        [--per-seed 3] [--max-seeds 6] [--commands-share 1.0] [--work /tmp/fuzz]
        [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

_LOADERS = """
import sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_hostile_files import LOADERS
from sparring.errors import UserInputError
refused = 0
start = time.perf_counter()
for name, loader in LOADERS.items():
    try:
        loader(Path({path!r}))
    except UserInputError:
        refused += 1
print(refused, len(LOADERS), round(time.perf_counter() - start, 3))
"""


HUGE_PLAN = """\
test_name: huge
user:
  language: English
  role: you order a pizza
  context: [your name is Jon]
  goals:
    - "{{a}} {{b}} {{c}} {{d}} {{e}} {{f}}"
%s
chatbot:
  is_starter: false
  fallback: Sorry
  output: []
conversation:
  number: all_combinations
  goal_style: {steps: 5}
  interaction_style: [default]
"""


def _huge_plan(folder: Path) -> tuple[Path, Path]:
    names = "abcdef"
    variables = "\n".join(
        f"    - {n}:\n        function: forward({after})\n        type: int\n"
        f"        data: {{min: 0, max: 9, step: 1}}"
        for n, after in zip(names, [*names[1:], ""], strict=True)
    )
    profile = folder / "huge-plan.yaml"
    profile.write_text(HUGE_PLAN % variables, encoding="utf-8")
    chatbot = folder / "chatbot.yaml"
    chatbot.write_text("connector: scripted\nparams:\n  fallback: Hello!\n")
    return profile, chatbot


def _corpus_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "test_hostile_files", ROOT / "tests" / "test_hostile_files.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _measure(args: list[str]) -> dict[str, object]:
    """Run ``args``; its exit code, wall seconds, peak RSS in MB (GNU time's ``%M``) and
    last output line."""
    with tempfile.NamedTemporaryFile(suffix=".rss") as rss:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *args],
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        seconds = time.perf_counter() - start
        peak_kb = int(Path(rss.name).read_text().split()[-1])
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return {
        "exit": done.returncode,
        "seconds": round(seconds, 2),
        "peak_mb": round(peak_kb / 1024, 1),
        "last_line": lines[-1][:160] if lines else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--fuzz", action="store_true", help="the fuzz sweep (fuzz_files.py)")
    parser.add_argument("--seed", type=int, default=1, help="the sweep's RNG seed")
    parser.add_argument("--per-seed", type=int, default=3, help="mutations of each seed file")
    parser.add_argument("--max-seeds", type=int, default=6, help="seed files of each kind")
    parser.add_argument(
        "--commands-share",
        type=float,
        default=1.0,
        help="share of the cases also given to the commands (all readers run)",
    )
    parser.add_argument("--case-timeout", type=float, default=60.0, help="seconds: a hang")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "fuzz-files")
    options = parser.parse_args()
    if options.fuzz:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from fuzz_files import sweep

        found = sweep(options)
        if options.json:
            options.json.write_text(json.dumps(found, indent=2, default=str), encoding="utf-8")
        return
    corpus_module = _corpus_module()
    startup = _measure([sys.executable, "-m", "sparring", "--version"])
    print(f"start-up alone (sparring --version): {startup['seconds']} s, {startup['peak_mb']} MB")
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as folder:
        corpus = corpus_module.hostile_corpus(Path(folder) / "corpus")
        for case, (path, _line) in corpus.items():
            validate = _measure([sys.executable, "-m", "sparring", "validate", str(path)])
            script = _LOADERS.format(tests=str(ROOT / "tests"), path=str(path))
            loaders = _measure([sys.executable, "-c", script])
            results[case] = {"validate": validate, "every loader": loaders}
            print(
                f"{case:20} validate: exit {validate['exit']}, {validate['seconds']:>5} s, "
                f"{validate['peak_mb']:>6} MB | every loader (refused, total, "
                f"seconds loading: {loaders['last_line']}): "
                f"{loaders['seconds']:>5} s, {loaders['peak_mb']:>6} MB"
            )
        profile, chatbot = _huge_plan(Path(folder))
        validate = _measure([sys.executable, "-m", "sparring", "validate", str(profile)])
        simulate = _measure(
            [sys.executable, "-m", "sparring", "simulate", str(profile), "-c", str(chatbot),
             "-o", str(Path(folder) / "run")]
        )  # fmt: skip
        results["huge plan"] = {"validate": validate, "simulate": simulate}
        print(
            f"{'huge plan':20} validate: exit {validate['exit']}, {validate['seconds']:>5} s, "
            f"{validate['peak_mb']:>6} MB | simulate: exit {simulate['exit']}, "
            f"{simulate['seconds']:>5} s, {simulate['peak_mb']:>6} MB: {simulate['last_line']}"
        )
    worst_s = max(float(str(r[k]["seconds"])) for r in results.values() for k in r)
    worst_mb = max(float(str(r[k]["peak_mb"])) for r in results.values() for k in r)
    print(f"worst: {worst_s} s, {worst_mb} MB (bound: 10 s, 500 MB)")
    if options.json:
        options.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
