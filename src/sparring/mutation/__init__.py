"""sparring.mutation: mutation testing of chatbots — inject one fault per mutant, run the
same profiles and rules against every mutant, count the mutants killed (SENSEI §7.1;
TRACER's thesis, chapter 6). The job is ``MutateJob`` on the runner:
``sparring.runner.start("mutate", settings, out)``."""

from sparring.mutation._build_rasa import RasaBuilder
from sparring.mutation._builders import SKIPPED as PROJECT_FOLDERS_SKIPPED
from sparring.mutation._builders import (
    BuildFailed,
    BuiltBot,
    CopyBuilder,
    MutantBuilder,
    copy_project,
)
from sparring.mutation._harness import MutantRunner, OriginalFailed
from sparring.mutation._job import (
    MutateJob,
    SettingsRunner,
    adopt_old_run,
    run_one_mutant,
)
from sparring.mutation._kill import Kill, failing, judge
from sparring.mutation._model import (
    Location,
    Mutant,
    MutationOperator,
    ProjectKind,
    mutant_id,
    unified_diff,
)
from sparring.mutation._processes import terminating_signals
from sparring.mutation._registry import (
    ENTRY_POINT_GROUP,
    OPERATORS,
    mutation_operator,
    operators_for,
)
from sparring.mutation._result import (
    MUTATION,
    MUTATION_FILE,
    UNREACHABLE,
    Durations,
    MutantResult,
    MutantStatus,
    MutationResult,
    OperatorRow,
    OriginalResult,
    mutation_outcome,
    mutation_score,
    read_mutation,
)
from sparring.mutation._sample import apply_mutant, sample_mutants
from sparring.mutation._settings import MutateSettings

__all__ = [
    "ENTRY_POINT_GROUP",
    "MUTATION",
    "MUTATION_FILE",
    "OPERATORS",
    "PROJECT_FOLDERS_SKIPPED",
    "UNREACHABLE",
    "BuildFailed",
    "BuiltBot",
    "CopyBuilder",
    "Durations",
    "Kill",
    "Location",
    "Mutant",
    "MutantBuilder",
    "MutantResult",
    "MutantRunner",
    "MutantStatus",
    "MutateJob",
    "MutateSettings",
    "MutationOperator",
    "MutationResult",
    "OperatorRow",
    "OriginalFailed",
    "OriginalResult",
    "ProjectKind",
    "RasaBuilder",
    "SettingsRunner",
    "adopt_old_run",
    "apply_mutant",
    "copy_project",
    "failing",
    "judge",
    "mutant_id",
    "mutation_operator",
    "mutation_outcome",
    "mutation_score",
    "operators_for",
    "read_mutation",
    "run_one_mutant",
    "sample_mutants",
    "terminating_signals",
    "unified_diff",
]
