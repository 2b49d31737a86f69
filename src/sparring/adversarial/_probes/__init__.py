"""Offline adversarial probes: probe suites as data (YAML), oracles that need no model, and
the probe job (``sparring adversarial probe``); see docs/adversarial-probes.md."""

from sparring.adversarial._probes._job import (
    EXIT_FAIL,
    EXIT_NO_VERDICT,
    EXIT_PASS,
    PROBES,
    PROBES_FILE,
    ProbeEntry,
    ProbeJob,
    ProbeJobResult,
    ProbeOutcome,
    ProbeReport,
    ProbeSettings,
    probe_outcome,
)
from sparring.adversarial._probes._model import (
    EncodedTurn,
    Oracle,
    OracleKind,
    Probe,
    ProbeCategory,
    ProbeSuite,
)
from sparring.adversarial._probes._oracles import (
    REFUSAL_PATTERNS,
    Pii,
    echoed,
    echoed_pii,
    fallback,
    find_pii,
    judge_reply,
    refusal,
)
from sparring.adversarial._probes._run import judge_probe, probe_id, run_probe
from sparring.adversarial._probes._suites import builtin_suites, load_probe_suite, resolve_suites

__all__ = [
    "EXIT_FAIL",
    "EXIT_NO_VERDICT",
    "EXIT_PASS",
    "PROBES",
    "PROBES_FILE",
    "REFUSAL_PATTERNS",
    "EncodedTurn",
    "Oracle",
    "OracleKind",
    "Pii",
    "Probe",
    "ProbeCategory",
    "ProbeEntry",
    "ProbeJob",
    "ProbeJobResult",
    "ProbeOutcome",
    "ProbeReport",
    "ProbeSettings",
    "ProbeSuite",
    "builtin_suites",
    "echoed",
    "echoed_pii",
    "fallback",
    "find_pii",
    "judge_probe",
    "judge_reply",
    "load_probe_suite",
    "probe_id",
    "probe_outcome",
    "refusal",
    "resolve_suites",
    "run_probe",
]
