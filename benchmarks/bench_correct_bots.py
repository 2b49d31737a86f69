"""Green on a correct bot, red on a real bug (issue 31): every job on bots nobody tuned for.

Run from the project root (``../shared/data`` for the hotel and Rasa bots; the Rasa bots
only when ``python scripts/third_party_rasa.py status`` says they are ready)::

    python benchmarks/bench_correct_bots.py                          # everything
    python benchmarks/bench_correct_bots.py --bots dental,hotel --jobs run,probe
    python benchmarks/bench_correct_bots.py --no-rasa --parallel 2 --out /tmp/bench
    python benchmarks/bench_correct_bots.py --no-ablation

Bots: the six free-text bots of ``tests/bots`` (each correct and with each of its three
seeded bugs alone: 18 mutants), ``../shared/data/hotel-bot`` (correct, and ``--buggy``:
two bugs at once, one mutant), and the Rasa 1.10 veterinary clinic and bike shop (correct
only: nobody seeded them). Each bot is served as its developer would (HTTP; the Rasa bots
through ``scripts/third_party_rasa.py``, at concurrency 1) and tested through this
checkout's ``sparring`` command:

- ``run``: zero-config ``sparring run`` over seeds 1, 2 and 3;
- ``check``: ``sparring simulate`` with the bot's profiles, then ``sparring check`` with
  its rules (the veterinary bot: SENSEI's; the bike shop: the profiles of
  ``benchmarks/offline_user/bikeshop`` and no rules of its own, so the generic checks);
- ``metamorphic``: ``sparring metamorphic`` seeded with that simulation;
- ``probe``: ``sparring adversarial probe`` with the built-in suites.

Figures: false failures (FAIL) and NO VERDICTs of every job on every correct variant
(target: no FAIL; a probe FAIL whose failed probes are all known real defects of that bot,
``KNOWN_DEFECTS``, is counted apart), per variant too, and the metamorphic and probe FAILs
on the mutants with what failed (``--mt-seeds 1,2,3`` runs metamorphic once per seed); the
share of seeded-bug mutants zero-config ``run`` kills (FAIL on a seed on which the correct
variant of the same bot passed; target ≥ 80 %), with the raw share beside; the same for
``check`` with the bot's own rules. Ablation (``--no-ablation`` to skip): ``metamorphic``
with ``--no-fallback-guard``, ``--no-state-guard`` and both, and ``probe`` with the suites
as they were before (no ``presupposes``; ``refuses_or_falls_back`` for ``refuses_or_avoids``
and ``refuses_or_refers``), each on every correct variant (the mutants' seeded bugs are none
these jobs can see). The run's own new abilities (confirmation oracle, task-completion
judge, closing questions) have no switch of their own here; their effect shows in the
``run`` column across commits.
Results: a table on stdout and ``results.json`` in ``--out``; the commit measured is
printed first.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
HOTEL = SHARED / "hotel-bot"
RASA_PROFILES = {
    "veterinary": (SHARED / "rasa-bots/veterinary/sensei/profiles", ["appointment.yml", "qa.yml"]),
    "bikeshop": (ROOT / "benchmarks/offline_user/bikeshop", None),
}
RASA_RULES = {"veterinary": SHARED / "rasa-bots/veterinary/sensei/rules", "bikeshop": None}
SEEDS = (1, 2, 3)
JOBS = ("run", "check", "metamorphic", "probe")
STATUS = {0: "PASS", 1: "FAIL", 2: "ERROR", 3: "NO VERDICT"}
KNOWN_DEFECTS = {
    "hotel": {"out-of-domain/medical-dose", "out-of-domain/poisoning"},
    "dental": {"out-of-domain/poisoning"},
    "train": {"out-of-domain/poisoning"},
    "carrental": {"out-of-domain/poisoning"},
    "plumber": {"out-of-domain/medical-dose", "out-of-domain/poisoning"},
    "veterinary": {"out-of-domain/medical-dose", "out-of-domain/poisoning"},
    "bikeshop": {
        "out-of-domain/medical-dose",
        "out-of-domain/poisoning",
        "out-of-domain/nonsense",
        "pii/card-echo",
    },
}
"""Probe failures that are real defects of a bot's correct variant (checked by hand, issue
31: a domain answer to an unsafe/medical question fails): the hotel bot answers chest pain
and a swallowed poison with its price list; dental, train and car rental refer chest pain
to help but answer the poison's "how much" with their price lists; the veterinary clinic
answers both with "You should meet their basic needs: food, water, shelter…", the bike
shop with "You should clean it regularly, check the tire pressure…"; the bike shop also
answers nonsense with "Of course! I can tell you the price of…" and books an appointment
"for 4111 1111 1111 1111 at 12/29 for None" (the card number echoed); the plumber answers
a medicine dose's and a poison's "how much" with its price list. A probe FAIL on a
correct variant is false only where it names another probe."""
MT_ABLATIONS = {
    "mt:no-fallback-guard": ["--no-fallback-guard"],
    "mt:no-state-guard": ["--no-state-guard"],
    "mt:no-acts": ["--no-fallback-guard", "--no-state-guard"],
}


@dataclass
class Variant:
    """One chatbot under test: ``bot``, ``label`` (``correct`` or the bug), how to serve it
    (``serve(folder)`` yields its chatbot.yaml), its profiles and rules."""

    bot: str
    label: str
    serve: Callable[[Path], contextlib.AbstractContextManager[Path]]
    profiles: list[Path]
    rules: Path | None
    concurrency: int = 4
    results: dict[str, Any] = field(default_factory=dict)
    failed: dict[str, list[str]] = field(default_factory=dict)
    """Per job run (``probe``, ``metamorphic``…), what failed: probe rule ids, or
    ``relation: question`` of each metamorphic violation."""

    @property
    def correct(self) -> bool:
        return self.label == "correct"

    @property
    def name(self) -> str:
        return f"{self.bot}/{self.label}"


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _test_bots() -> list[Variant]:
    sys.path.insert(0, str(ROOT))
    from tests import bots  # the free-text bots and their in-process server

    out = []
    for name, bot in bots.BOTS.items():
        for bugs in ([], *([b] for b in bot.bugs)):

            def serve(folder: Path, name: str = name, bugs: list[str] = bugs) -> Any:
                return bots.serve(name, bugs, folder)

            out.append(
                Variant(name, bugs[0] if bugs else "correct", serve, [bot.profiles], bot.rules)
            )
    return out


@contextlib.contextmanager
def _hotel(folder: Path, buggy: bool) -> Iterator[Path]:
    port = _free_port()
    args = [sys.executable, str(HOTEL / "hotelbot.py"), "--port", str(port)]
    process = subprocess.Popen([*args, *(["--buggy"] if buggy else [])], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "hotelbot … on :port" once it listens
        config = yaml.safe_load((HOTEL / "chatbot.yaml").read_text())
        config["params"]["url"] = f"http://127.0.0.1:{port}"
        path = folder / f"hotel-{'buggy' if buggy else 'correct'}.yaml"
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        yield path
    finally:
        process.terminate()
        process.wait(timeout=10)


def _hotel_variants() -> list[Variant]:
    if not HOTEL.is_dir():
        return []
    profiles, rules = [HOTEL / "profiles"], HOTEL / "rules"
    return [
        Variant("hotel", label, lambda f, b=buggy: _hotel(f, b), profiles, rules)
        for label, buggy in (("correct", False), ("buggy (B1+B2)", True))
    ]


@contextlib.contextmanager
def _rasa(folder: Path, bot: str, helper: ModuleType) -> Iterator[Path]:
    servers: Any = helper.servers(bot, _free_port(), _free_port())
    with servers:
        servers.wait_ready(timeout=900)
        path = folder / f"{bot}.yaml"
        config = {"connector": "rasa", "params": {"url": servers.url, "timeout": 30}}
        path.write_text(yaml.safe_dump(config))
        yield path


def _rasa_variants() -> list[Variant]:
    script = ROOT / "scripts" / "third_party_rasa.py"
    if not (SHARED / "rasa-bots").is_dir():
        return []
    helper = _load(script, "sparring_bench_third_party_rasa")
    if not helper.venv_is_ready():
        return []
    out = []
    for bot in ("veterinary", "bikeshop"):
        if not helper.model_path(bot).exists():
            continue
        folder, names = RASA_PROFILES[bot]
        profiles = [folder / n for n in names] if names else [folder]
        out.append(
            Variant(
                bot,
                "correct",
                lambda f, b=bot: _rasa(f, b, helper),
                profiles,
                RASA_RULES[bot],
                concurrency=1,
            )
        )
    return out


def sparring(*args: str, timeout: float = 1800) -> tuple[str, str]:
    """Run this checkout's ``sparring`` command: (status, last output line)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("SPARRING_MODEL", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sparring", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "TIMEOUT", ""
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    last = lines[-1] if lines else (done.stderr.strip().splitlines() or [""])[-1]
    return STATUS.get(done.returncode, f"exit {done.returncode}"), last.strip()[:300]


def old_suites(folder: Path) -> Path:
    """The built-in probe suites as before issue 31: no ``presupposes``, and
    ``refuses_or_falls_back`` where the out-of-domain suite now says ``refuses_or_avoids``
    or ``refuses_or_refers`` (the ablation of both abilities)."""
    source = ROOT / "src/sparring/adversarial/_probes/suites"
    folder.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.yaml"):
        suite = yaml.safe_load(path.read_text())
        for probe in suite["probes"]:
            probe.pop("presupposes", None)
            for oracle in probe["oracles"]:
                if oracle["kind"] in ("refuses_or_avoids", "refuses_or_refers"):
                    oracle["kind"] = "refuses_or_falls_back"
                    oracle.pop("patterns", None)
        (folder / path.name).write_text(yaml.safe_dump(suite, sort_keys=False))
    return folder


def failed_items(job: str, folder: Path) -> list[str]:
    """What the run in ``folder`` failed: probe rule ids (``fail``/``error`` verdicts) or,
    for metamorphic, ``relation: question`` per violation; [] when nothing was stored."""
    name = "probes.json" if job.startswith("probe") else "metamorphic.json"
    path = folder / "results" / name
    if not path.is_file():
        return []
    data = json.loads(path.read_text())
    if job.startswith("probe"):
        return [v["rule"] for v in data.get("verdicts", []) if v["status"] in ("fail", "error")]
    return [f"{b['relation']}: {b['question']}" for b in data.get("bugs", [])]


def bench_variant(
    variant: Variant, jobs: list[str], ablation: bool, out: Path, mt_seeds: tuple[int, ...] = (1,)
) -> None:
    """Every job of ``jobs`` on ``variant``, its results in ``variant.results`` (what
    failed in ``variant.failed``); metamorphic once per seed of ``mt_seeds``."""
    folder = out / variant.bot / variant.label.split()[0]
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with variant.serve(folder) as chatbot:
        bot = ["--chatbot", str(chatbot)]
        concurrency = ["--concurrency", str(variant.concurrency)]
        if "run" in jobs:
            variant.results["run"] = [
                sparring(
                    "run", *bot, *concurrency, "--seed", str(s), "-o", str(folder / f"run-{s}")
                )
                for s in SEEDS
            ]
        sim = folder / "simulate"
        if {"check", "metamorphic"} & set(jobs):
            profiles = [str(p) for p in variant.profiles]
            simulated = sparring(
                "simulate", *profiles, *bot, *concurrency, "--seed", "1", "--out", str(sim)
            )
            rules = [str(variant.rules)] if variant.rules else []
            checked = sparring("check", *rules, "--run", str(sim)) if sim.is_dir() else simulated
            variant.results["check"] = [checked]
        if "metamorphic" in jobs and sim.is_dir():
            settings = [(label, flags) for label, flags in MT_ABLATIONS.items() if ablation]
            for label, flags in [("metamorphic", []), *settings]:
                mt = folder / label.replace(":", "-")
                variant.results[label] = []
                for seed in mt_seeds:
                    run = mt if seed == 1 else mt.with_name(f"{mt.name}-seed{seed}")
                    variant.results[label].append(
                        sparring(
                            "metamorphic",
                            str(sim),
                            *bot,
                            *concurrency,
                            "--seed",
                            str(seed),
                            "--similarity",
                            "tf-idf",
                            "--out",
                            str(run),
                            *flags,
                        )
                    )
                    variant.failed.setdefault(label, []).extend(failed_items(label, run))
        if "probe" in jobs:
            variant.results["probe"] = [
                sparring("adversarial", "probe", *bot, "-o", str(folder / "probe"))
            ]
            variant.failed["probe"] = failed_items("probe", folder / "probe")
            if ablation:
                suites = old_suites(folder / "old-suites")
                variant.results["probe:old-suites"] = [
                    sparring(
                        "adversarial",
                        "probe",
                        *bot,
                        "--suite",
                        str(suites),
                        "-o",
                        str(folder / "probe-old"),
                    )
                ]
                variant.failed["probe:old-suites"] = failed_items("probe", folder / "probe-old")
    variant.results["seconds"] = round(time.monotonic() - started)
    print(f"{variant.name}: done in {variant.results['seconds']} s", file=sys.stderr, flush=True)


def _bench(
    variant: Variant, jobs: list[str], ablation: bool, out: Path, mt_seeds: tuple[int, ...]
) -> None:
    """``bench_variant``, a failure of the benchmark itself kept in the results."""
    try:
        bench_variant(variant, jobs, ablation, out, mt_seeds)
    except Exception as exc:  # one variant's trouble (a bot that would not start) is said
        variant.results["error"] = f"{type(exc).__name__}: {exc}"
        print(f"{variant.name}: {variant.results['error']}", file=sys.stderr, flush=True)


def summarize(variants: list[Variant]) -> dict[str, Any]:
    """False failures per job on the correct variants; kill rates of run and check."""
    jobs = sorted({k for v in variants for k in v.results if k not in ("seconds", "error")})
    false: dict[str, dict[str, int]] = {}
    by_variant: dict[str, dict[str, str]] = {}
    for job in jobs:
        statuses = [s for v in variants if v.correct for s, _ in v.results.get(job, [])]
        real = [v for v in variants if v.correct and is_real_defect(v, job)]
        false[job] = {
            "fail": statuses.count("FAIL") - len(real),
            "real_defect": len(real),
            "no_verdict": statuses.count("NO VERDICT"),
            "other": sum(s not in ("PASS", "FAIL", "NO VERDICT") for s in statuses),
            "of": len(statuses),
        }
        for variant in variants:
            if variant.correct and job in variant.results:
                fails = [s for s, _ in variant.results[job]].count("FAIL")
                fails -= int(is_real_defect(variant, job))
                by_variant.setdefault(variant.name, {})[job] = (
                    f"{fails}/{len(variant.results[job])}"
                )
    on_mutants = {
        job: sorted(
            f"{v.name}: {'; '.join(v.failed.get(job, [])) or 'FAIL'}"
            for v in variants
            if not v.correct and any(s == "FAIL" for s, _ in v.results.get(job, []))
        )
        for job in jobs
        if job.startswith(("metamorphic", "probe"))
    }
    kills: dict[str, dict[str, Any]] = {}
    correct = {v.bot: v for v in variants if v.correct}
    for job in ("run", "check"):
        mutants = [v for v in variants if not v.correct and job in v.results]
        raw = [v.name for v in mutants if any(s == "FAIL" for s, _ in v.results[job])]
        strict = []
        for mutant in mutants:
            base = correct.get(mutant.bot)
            base_runs = base.results.get(job, []) if base else []
            for i, (status, _) in enumerate(mutant.results[job]):
                green = i < len(base_runs) and base_runs[i][0] == "PASS"
                if status == "FAIL" and green:
                    strict.append(mutant.name)
                    break
        kills[job] = {
            "mutants": len(mutants),
            "killed_raw": len(raw),
            "killed_where_correct_passed": len(strict),
            "killed": sorted(strict),
            "survived": sorted(v.name for v in mutants if v.name not in raw),
        }
    return {
        "false_failures_on_correct": false,
        "false_failures_by_variant": by_variant,
        "fail_on_mutants": on_mutants,
        "kills": kills,
    }


def is_real_defect(variant: Variant, job: str) -> bool:
    """Whether ``variant``'s FAIL of ``job`` is a known real defect of it (a probe run whose
    failures are all in ``KNOWN_DEFECTS``), not a false failure."""
    if not job.startswith("probe") or not any(s == "FAIL" for s, _ in variant.results[job]):
        return False
    failed = set(variant.failed.get(job, []))
    return bool(failed) and failed <= KNOWN_DEFECTS.get(variant.bot, set())


def print_table(variants: list[Variant], summary: dict[str, Any]) -> None:
    jobs = sorted({k for v in variants for k in v.results if k not in ("seconds", "error")})
    print(f"{'variant':<28}" + "".join(f"{j:<22}" for j in jobs))
    for variant in variants:
        cells = []
        for job in jobs:
            got = [s for s, _ in variant.results.get(job, [])]
            cells.append(f"{'/'.join(got) or '-':<22}")
        print(f"{variant.name:<28}" + "".join(cells))
    print()
    for job, counts in summary["false_failures_on_correct"].items():
        print(
            f"correct variants, {job}: {counts['fail']} false FAIL, {counts['real_defect']} "
            f"FAIL on known real defects, {counts['no_verdict']} NO VERDICT, {counts['other']} "
            f"other of {counts['of']}"
        )
    for name, counts in summary["false_failures_by_variant"].items():
        print(f"false FAIL, {name}: " + ", ".join(f"{j} {n}" for j, n in counts.items()))
    for job, failed in summary["fail_on_mutants"].items():
        if failed:
            print(f"{job} FAIL on mutants: {failed}")
    for job, kill in summary["kills"].items():
        if kill["mutants"]:
            share = kill["killed_where_correct_passed"] / kill["mutants"]
            print(
                f"{job}: killed {kill['killed_where_correct_passed']}/{kill['mutants']} "
                f"mutants ({share:.0%}) where the correct variant passed; raw "
                f"{kill['killed_raw']}/{kill['mutants']}; survived: {kill['survived']}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", help="comma-separated bot names (default: all)")
    parser.add_argument("--jobs", default=",".join(JOBS), help="run,check,metamorphic,probe")
    parser.add_argument("--no-rasa", action="store_true", help="leave the Rasa bots out")
    parser.add_argument("--no-ablation", action="store_true")
    parser.add_argument("--parallel", type=int, default=1, help="variants at once (not Rasa)")
    parser.add_argument("--out", type=Path, help="results folder (default: a temporary one)")
    parser.add_argument("--mt-seeds", default="1", help="metamorphic's seeds, e.g. 1,2,3")
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"commit {commit}", flush=True)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-correct-bots-"))
    variants = _test_bots() + _hotel_variants() + ([] if args.no_rasa else _rasa_variants())
    if args.bots:
        wanted = set(args.bots.split(","))
        variants = [v for v in variants if v.bot in wanted]
    jobs = [j for j in args.jobs.split(",") if j]
    mt_seeds = tuple(int(seed) for seed in args.mt_seeds.split(","))

    def ablate(variant: Variant) -> bool:  # the switches change verdicts on correct bots
        return not args.no_ablation and variant.correct

    local = [v for v in variants if v.concurrency > 1]
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        list(pool.map(lambda v: _bench(v, jobs, ablate(v), out, mt_seeds), local))
    for variant in variants:
        if variant.concurrency == 1:  # the Rasa bots: one at a time
            _bench(variant, jobs, ablate(variant), out, mt_seeds)
    summary = summarize(variants)
    print_table(variants, summary)
    results = {
        "commit": commit,
        "variants": {v.name: v.results for v in variants},
        "failed": {v.name: v.failed for v in variants},
        "summary": summary,
    }
    (out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"results: {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
