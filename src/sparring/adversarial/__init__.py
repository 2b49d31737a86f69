"""The ``adversarial`` job: weakness planning, adaptive judge-steered adversarial threads
(the Agent-Testing Agent, Komoravolu and Mrini, arXiv 2508.17393) and offline probes with
oracles that need no model (docs/adversarial.md)."""

from __future__ import annotations

# Offline probes (sparring adversarial probe).
from sparring.adversarial._probes import (
    PROBES_FILE,
    EncodedTurn,
    Oracle,
    Probe,
    ProbeCategory,
    ProbeEntry,
    ProbeJobResult,
    ProbeOutcome,
    ProbeReport,
    ProbeSettings,
    ProbeSuite,
    builtin_suites,
    echoed,
    echoed_pii,
    fallback,
    find_pii,
    load_probe_suite,
    probe_job,
    probe_job_async,
    probe_outcome,
    refusal,
    resolve_suites,
)
from sparring.adversarial._weaknesses import (
    WEAKNESSES_FILE,
    Difficulty,
    ExampleTest,
    Weakness,
    WeaknessCategory,
    WeaknessFile,
    load_weaknesses,
    write_weaknesses,
)

__all__ = [
    "PROBES_FILE",
    "WEAKNESSES_FILE",
    "Difficulty",
    "EncodedTurn",
    "ExampleTest",
    "Oracle",
    "Probe",
    "ProbeCategory",
    "ProbeEntry",
    "ProbeJobResult",
    "ProbeOutcome",
    "ProbeReport",
    "ProbeSettings",
    "ProbeSuite",
    "Weakness",
    "WeaknessCategory",
    "WeaknessFile",
    "builtin_suites",
    "echoed",
    "echoed_pii",
    "fallback",
    "find_pii",
    "load_probe_suite",
    "load_weaknesses",
    "probe_job",
    "probe_job_async",
    "probe_outcome",
    "refusal",
    "resolve_suites",
    "write_weaknesses",
]
