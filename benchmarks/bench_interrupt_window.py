"""Ctrl-C during the console script's first moments (issue 36, leftover c): where it lands.

The ``sparring`` script pip generates runs ``import re, sys``, ``from sparring._console
import main`` and ``main()``; ``main`` turns a Ctrl-C while the command line loads into one
line and exit 130 (``sparring._console``). Before ``main`` runs, Python is still starting:
the interpreter, ``site`` and the environment's ``.pth`` files. A SIGINT there is Python's
to handle: before its handler is installed the process dies of the signal (-2); after, the
``KeyboardInterrupt`` of whatever ``site`` was importing is printed and Python exits 1.

This sends SIGINT to ``SCRIPT --version`` (the installed console script run by this
Python, so a pyenv shim is skipped) after delays spread over the start-up, counts where
each landed, and prints the start-up of ``python -c pass`` and of the script beside it:
the window sparring cannot cover is Python's own start-up, whose length is the
environment's (0.5 s on 2 shared cores at load 8, with three ``.pth`` files).

    PYTHONPATH=src python benchmarks/bench_interrupt_window.py [--tries 120] [--step 0.005]
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path


def _script() -> Path:
    found = Path(sysconfig.get_path("scripts")) / "sparring"
    if found.is_file():
        return found
    shim = shutil.which("sparring")
    if shim is None:
        raise SystemExit("no sparring console script installed")
    return Path(shim)


def _landed(delay: float, script: Path) -> str:
    child = subprocess.Popen(
        [sys.executable, str(script), "--version"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    if "interrupted while loading" in err:
        return f"sparring's one line (exit {child.returncode})"
    if "Traceback" in err:
        return f"Python's start-up traceback (exit {child.returncode})"
    if out:
        return "ran to the end (the signal came after)"
    return f"no output (exit {child.returncode})"


def _seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=120)
    parser.add_argument("--step", type=float, default=0.005, help="seconds between delays")
    options = parser.parse_args()
    script = _script()
    bare = min(_seconds([sys.executable, "-c", "pass"]) for _ in range(3))
    whole = min(_seconds([sys.executable, str(script), "--version"]) for _ in range(3))
    print(f"python -c pass: {bare:.3f} s; {script.name} --version: {whole:.3f} s")
    landed: dict[str, list[float]] = {}
    for n in range(options.tries):
        delay = (n % 80) * options.step
        landed.setdefault(_landed(delay, script), []).append(delay)
    counts = Counter({kind: len(delays) for kind, delays in landed.items()})
    for kind, count in counts.most_common():
        delays = landed[kind]
        print(f"{count:4} {kind}: delays {min(delays):.3f}-{max(delays):.3f} s")


if __name__ == "__main__":
    main()
