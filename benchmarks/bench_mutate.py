"""Benchmark: ``sparring mutate`` on the real Rasa pizzeria (examples/pizzeria).

Four mutants from two local operators (no Rasa operator is needed from the registry):
three change one response text in ``domain.yml`` to the fallback phrase (a new training-data
fingerprint, so ``rasa train`` runs — Rasa's own component cache keeps NLU and core), one
changes the price of a large pizza in ``actions/catalogue.py`` (fingerprint unchanged: the
cached model is reused, no training). The same four run with 1 worker, then 2; the models
the benchmark trains are removed from the cache before each pass and after, so both passes
(and a re-run) do the same work. Prints per mutant the build (train + serve), run and
check seconds, the whole sample's time, and the pool's speed-up.

    PYTHONPATH=src python benchmarks/bench_mutate.py [--workers 1 2] [--keep OUT]

Skips with a message when the Rasa runtime is missing (``rasa_bot.py status``).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from sparring.mutation import Location
from sparring.mutation._job import MutateJob, MutateSettings
from sparring.mutation._result import MutationResult
from sparring.runner import start

REPO = Path(__file__).resolve().parents[1]
PIZZERIA = REPO / "examples" / "pizzeria"
FALLBACK = "Sorry, I didn't get that. Could you rephrase it?"
RESPONSES = ("utter_ask_size", "utter_ask_pizza", "utter_goodbye")


class ResponseToFallback:
    """Replace the first text of one response with the fallback phrase."""

    name, kind, description = "bench.response_to_fallback", "rasa", "A response says the fallback"

    def locations(self, project: Path) -> list[Location]:
        lines = (project / "domain.yml").read_text().splitlines()
        found = []
        for i, line in enumerate(lines):
            name = line.strip().rstrip(":")
            if name in RESPONSES and i + 1 < len(lines) and "- text:" in lines[i + 1]:
                found.append(Location(file="domain.yml", key=f"response:{name}", line=i + 2))
        return found

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        lines = (project / "domain.yml").read_text().splitlines(keepends=True)
        assert location.line is not None
        old = lines[location.line - 1]
        lines[location.line - 1] = old[: old.index("- text:")] + f'- text: "{FALLBACK}"\n'
        return {"domain.yml": "".join(lines)}, f"{location.key} answers the fallback"


class CheaperLarge:
    """A large pizza costs less than a small one (an action-only mutant)."""

    name, kind, description = "bench.cheaper_large", "rasa", "Large pizzas cost 7.00"

    def locations(self, project: Path) -> list[Location]:
        return [Location(file="actions/catalogue.py", key="SIZES:large")]

    def apply(self, project: Path, location: Location) -> tuple[dict[str, str], str]:
        text = (project / "actions" / "catalogue.py").read_text()
        changed = re.sub(r'"large": 13\.00', '"large": 7.00', text, count=1)
        return {"actions/catalogue.py": changed}, "a large pizza costs 7.00"


def rasa_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_rasa_bot", PIZZERIA / "rasa_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def models(bot: ModuleType) -> set[Path]:
    return set((bot.cache_dir() / "models").glob("pizzeria-*.tar.gz"))


def run_pass(
    workers: int, out: Path, keep: set[Path], bot: ModuleType
) -> tuple[float, MutationResult]:
    for stale in models(bot) - keep:
        stale.unlink()
    settings = MutateSettings(
        project=PIZZERIA / "rasa", kind="rasa", profiles=[PIZZERIA / "profiles"],
        rules=[PIZZERIA / "rules"], workers=workers, seed=0,
    )  # fmt: skip
    started = time.monotonic()
    result = start(
        MutateJob(operators=[ResponseToFallback(), CheaperLarge()]), settings, out, report=False
    ).result
    elapsed = time.monotonic() - started
    for made in models(bot) - keep:
        made.unlink()
    return elapsed, result


def show(workers: int, elapsed: float, result: MutationResult) -> None:
    original = result.original
    assert original is not None
    d = original.durations
    print(f"\n== workers {workers}: {elapsed:.0f} s in all (original + {len(result.mutants)})")
    print(f"original: build {d.build:.0f} s, run {d.run:.0f} s, check {d.check:.1f} s; "
          f"{original.conversations} conversations; false positives: "
          f"{', '.join(original.false_positives) or 'none'}; "
          f"{'; '.join(original.notes)}")  # fmt: skip
    for m in result.mutants:
        d = m.durations
        print(f"  {m.id}\n    {m.status} {m.killed_by or ''} build {d.build:.0f} s, run "
              f"{d.run:.0f} s, check {d.check:.1f} s, total {d.total:.0f} s; "
              f"{'; '.join(m.notes)}{' ' + (m.reason or '') if m.reason else ''}")  # fmt: skip
    score = "—" if result.score is None else f"{result.score:.0%}"
    print(f"  score {score}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--keep", type=Path, help="folder to keep the job folders in")
    args = parser.parse_args()
    bot = rasa_bot()
    if not bot.venv_is_ready() or not bot.model_path().exists():
        print("skipped: the Rasa runtime or the pizzeria model is missing "
              "(python examples/pizzeria/rasa_bot.py setup && ... train)")  # fmt: skip
        return 0
    keep = models(bot)
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-mutate-"))
    times: dict[int, float] = {}
    for workers in args.workers:
        elapsed, result = run_pass(workers, root / f"workers-{workers}", keep, bot)
        times[workers] = elapsed
        show(workers, elapsed, result)
    if 1 in times:
        for workers, elapsed in times.items():
            if workers != 1:
                print(f"\nspeed-up with {workers} workers: {times[1] / elapsed:.2f}x")
    print(f"job folders: {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
