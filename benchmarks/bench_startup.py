"""Start-up of the ``sparring`` command (issue 25: "``sparring --help`` and ``sparring
validate`` on a small file must start in < 0.3 s of import time").

Run from the project root::

    PYTHONPATH=src python benchmarks/bench_startup.py
    PYTHONPATH=src python benchmarks/bench_startup.py --commands --runs 3
    PYTHONPATH=src python benchmarks/bench_startup.py --baseline /tmp/old/src

Each case runs in a fresh interpreter (``sys.executable``), ``--runs`` times; printed are
the median of

- **import s**: the sum of every module's own import time that ``python -X importtime``
  reports (the figure the issue's target is stated in; importtime's own bookkeeping makes
  it a little larger than an untraced import);
- **wall s**: the whole process, interpreter start-up included, as measured from here;

and the heavy libraries (``sparring.cli.HEAVY_MODULES``) the case left in ``sys.modules``.
Cases: ``import sparring.cli``, ``sparring --help``, ``sparring validate`` on one
example profile, rule file and ``chatbot.yaml``; ``--commands`` adds ``sparring CMD
--help`` for every command (what importing that command's module costs).
``--baseline SRC`` runs the same cases with ``PYTHONPATH=SRC`` (an older checkout's
``src``) and prints both.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pizzeria"
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|")
_REPORT_HEAVY = (
    "import sys, atexit\n"
    "H = {heavy!r}\n"
    "atexit.register(lambda: sys.stderr.write('HEAVY ' + ' '.join(sorted("
    "{{m.split('.')[0] for m in sys.modules}} & H)) + '\\n'))\n"
)


def cases(commands: bool) -> dict[str, list[str]]:
    """Name → the Python code (``-c``) or module arguments (``-m``) of each case."""
    found: dict[str, list[str]] = {
        "import sparring.cli": ["-c", "import sparring.cli"],
        "sparring --help": ["-m", "sparring", "--help"],
        "sparring validate profile": [
            "-m",
            "sparring",
            "validate",
            str(EXAMPLE / "profiles" / "sizes.yaml"),
        ],
        "sparring validate rules+chatbot": [
            "-m",
            "sparring",
            "validate",
            str(EXAMPLE / "rules" / "few_fallbacks.yaml"),
            str(EXAMPLE / "chatbot.yaml"),
        ],
    }
    if commands:
        from sparring.cli import COMMANDS

        for entry in COMMANDS:
            found[f"sparring {entry.name} --help"] = ["-m", "sparring", entry.name, "--help"]
    return found


def measure(args: list[str], pythonpath: str, runs: int) -> tuple[float, float, str]:
    """Median import seconds, median wall seconds and the heavy modules loaded."""
    imports: list[float] = []
    walls: list[float] = []
    env = {**os.environ, "PYTHONPATH": pythonpath, "COLUMNS": "100"}
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        walls.append(time.perf_counter() - start)
        imports.append(sum(int(m.group(1)) for m in _IMPORT_LINE.finditer(done.stderr)) / 1e6)
    # which heavy modules: one more run, untimed, that prints them at exit
    from sparring.cli import HEAVY_MODULES

    code = args[1] if args[0] == "-c" else "import runpy; runpy.run_module('sparring')"
    argv = [] if args[0] == "-c" else args[2:]
    prelude = _REPORT_HEAVY.format(heavy=set(HEAVY_MODULES)) + f"sys.argv[1:] = {argv!r}\n"
    probe = subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    heavy = " ".join(
        line.removeprefix("HEAVY ")
        for line in probe.stderr.splitlines()
        if line.startswith("HEAVY")
    )
    return statistics.median(imports), statistics.median(walls), heavy or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--commands", action="store_true", help="every command's --help too")
    parser.add_argument("--baseline", type=Path, help="an older checkout's src directory")
    options = parser.parse_args()
    trees = [("this tree", str(ROOT / "src"))]
    if options.baseline:
        trees.append(("baseline", str(options.baseline)))
    print(f"{'case':40} {'tree':10} {'import s':>9} {'wall s':>8}  heavy modules loaded")
    for name, args in cases(options.commands).items():
        for label, path in trees:
            imported, wall, heavy = measure(args, path, options.runs)
            print(f"{name:40} {label:10} {imported:9.3f} {wall:8.3f}  {heavy}")


if __name__ == "__main__":
    main()
