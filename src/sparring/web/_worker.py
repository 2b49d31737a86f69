"""The dashboard's worker: launches a ``Run`` (or a ``RunJob``, a job applied to an existing
run: ``check``, ``evaluate``) through a ``sparring.runner.Executor`` and keeps its row current.

Each job runs in a process of its own (``_job_process.ProcessExecutor``), ``slots()`` at
once and at most one per project. Nothing polls: a queued job starts when it is launched or
when a job ends (``_dispatch``, on a thread of its own while it runs), and that thread
waits on the job's events (``Executor.watch``) — its end, the items that grow its run
(the stored-size quota is checked then) — or on the run-time quota's deadline.

With an executor that runs jobs in this process (``InProcessExecutor``; tests) ONE job
runs at a time: a job reads its model and chatbot keys from the process environment (the
runner's contract), so the project's secrets are decrypted into the environment for exactly
the time its job runs and removed after — two projects' jobs never share an environment.
The job's stored settings, the run directory and the logs never see a key.

Launching: the project's files are frozen into ``RUN_DIR.inputs/`` and every path in the
settings must name one of them (a path outside is refused, so a user cannot make the server
read its own files); settings that would run code on the server are refused. A job applied
to a run gets the files frozen into its own folder (``applied_folder``) and the run as its
``run`` setting.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.db import connections
from django.db.models import QuerySet
from pydantic import JsonValue

from sparring._policy import current_policy, inside, install_policy, scoped
from sparring._redact import redact_text
from sparring._ssrf import url_refusal
from sparring.conversations import RunStore, is_run_directory
from sparring.errors import Problem, UserInputError
from sparring.jobs import JobEvent
from sparring.jobs.events import Finished
from sparring.runner import Executor
from sparring.web._files import policy_for, server_problems, write_snapshot
from sparring.web._job_process import ProcessExecutor
from sparring.web._quotas import Overrun, launch_problems
from sparring.web._secrets import secret_hosts, secret_values
from sparring.web.models import FileKind, Project, ProjectFile, Run, RunJob, RunStatus, Secret

logger = logging.getLogger(__name__)

REFUSED_KEYS = frozenset({"serve_command", "trust_functions"})
"""Settings the dashboard never offers (they run the user's code or commands on the
server); a job given one anyway is refused on its typed value (``JobSettings.CODE_SETTINGS``
under ``DASHBOARD_POLICY``)."""
JOB_SLOTS_ENV = "SPARRING_WEB_JOB_SLOTS"
DEFAULT_JOB_SLOTS = 2
_RUN, _APPLIED = "run", "applied"


def in_process_executor() -> Executor:
    """The runner's ``InProcessExecutor``: jobs on threads of this process."""
    from sparring.runner import InProcessExecutor

    return InProcessExecutor()


def run_folder(project: Project, run_id: int) -> Path:
    """Where a run of ``project`` is written: ``RUNS_DIR/<project>/<run>-<UTC time>``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Path(django_settings.RUNS_DIR) / str(project.pk) / f"{run_id}-{stamp}"


def applied_folder(applied: RunJob) -> Path:
    """The folder of a job applied to a run: ``RUNS_DIR/<project>/applied/<run>/<job>``,
    holding the project files frozen for it (``inputs/``) and its ``progress.json``. It is
    the dashboard's even when the run was imported (its folder is then elsewhere)."""
    return applied_root(applied.run) / str(applied.pk)


def applied_root(run: Run) -> Path:
    """Where the folders of the jobs applied to ``run`` are (``applied_folder``)."""
    return Path(django_settings.RUNS_DIR) / str(run.project_id) / "applied" / str(run.pk)


def _paths_inside(value: JsonValue, files: dict[str, Path], inputs: Path) -> JsonValue:
    """``value`` with each project file or folder name replaced by its snapshot path."""
    if isinstance(value, list):
        return [_paths_inside(v, files, inputs) for v in value]
    if not isinstance(value, str):
        return value
    name = value.strip().rstrip("/")
    if name in files:
        return str(files[name])
    if name and any(f.startswith(name + "/") for f in files):
        return str(inputs / name)
    return value


def _paths_of(value: Any) -> list[Path]:
    if isinstance(value, Path):
        return [value]
    if isinstance(value, list | tuple | set):
        return [p for v in value for p in _paths_of(v)]
    return []


def check_paths(job: str, settings: dict[str, JsonValue], allowed: list[Path]) -> Any:
    """Type ``settings`` as ``job``'s ``JobSettings`` (located errors, ``settings.<key>``)
    and refuse every path that is not inside ``allowed`` folders: the server never reads
    or writes its own files for a user; the typed settings. Raises ``UserInputError``."""
    from sparring.runner import find_job

    try:
        typed = find_job(job).settings_type.from_values(settings)
    except UserInputError as exc:  # located as the form and the API show settings
        raise UserInputError([_as_setting(p) for p in exc.problems]) from None
    roots = tuple(allowed)
    problems: list[Problem] = []
    for key in type(typed).model_fields:
        for path in _paths_of(getattr(typed, key)):
            if not inside(path, roots):
                message = f"{str(path)!r} is not a file of this project"
                problems.append(Problem("", None, f"settings.{key}", message))
    if problems:
        raise UserInputError(problems)
    return typed


def _as_setting(problem: Problem) -> Problem:
    """A problem of the typed settings (file ``settings``) keyed ``settings.<key>``."""
    if problem.file != "settings" or problem.key.startswith("settings."):
        return problem
    return Problem("", None, f"settings.{problem.key}", problem.message)


def _refused(settings: dict[str, JsonValue], fixed: frozenset[str] = frozenset()) -> list[Problem]:
    """A problem for each setting the dashboard sets itself (``fixed``) or never offers
    (``REFUSED_KEYS``); code settings are refused on the typed values (``check_paths``)."""
    problems = []
    for key in settings:
        if key in REFUSED_KEYS or key in fixed:
            problems.append(Problem("", None, f"settings.{key}", "not offered by the dashboard"))
    base_url = settings.get("model_base_url")
    if isinstance(base_url, str) and base_url and (why := url_refusal(base_url)) is not None:
        problems.append(Problem("", None, "settings.model_base_url", why))
    return problems


def _chatbot_problems(project: Project, files: dict[str, Path]) -> list[Problem]:
    """Each frozen chatbot.yaml's problems under the dashboard's policy (in force): a
    connector that runs code, a ``${NAME}`` that is not one of the project's secrets, a
    secret bound to hosts sent elsewhere."""
    secrets = list(Secret.objects.filter(project=project).values_list("name", flat=True))
    bound = secret_hosts(project)
    chatbots = ProjectFile.objects.filter(project=project, kind=FileKind.CHATBOT)
    problems: list[Problem] = []
    for name in chatbots.values_list("name", flat=True):
        if name in files:
            problems += server_problems(files[name], name, secrets, bound)
    return problems


def prepare_settings(
    project: Project, job: str, settings: dict[str, JsonValue], run_dir: Path
) -> dict[str, JsonValue]:
    """The settings a job gets: project file names pointed at the files frozen for this
    run, typed and checked under the dashboard's policy (``_files.policy_for``: nothing
    that runs code, every path inside the frozen files or the run). Raises
    ``UserInputError`` (key, message) for settings or files the dashboard refuses."""
    problems = _refused(settings)
    inputs = run_dir.with_name(run_dir.name + ".inputs")
    files = write_snapshot(project, inputs)
    with scoped(policy_for([inputs, run_dir])):
        problems += _chatbot_problems(project, files)
        if problems:
            raise UserInputError(problems)
        prepared = {k: _paths_inside(v, files, inputs) for k, v in settings.items()}
        typed = check_paths(job, prepared, [inputs, run_dir])
        if problems := launch_problems(project, typed):
            raise UserInputError(problems)
    return prepared


APPLIED_TARGET = "run"
"""The setting that names the run a job applied to one reads and writes (``check``,
``evaluate``): the dashboard sets it to the run."""
APPLIED_FIXED = frozenset(
    {APPLIED_TARGET, "store", "csv", "junit", "junit_per_conversation", "json_file"}
)
"""Settings of an applied job the dashboard sets (the run) or keeps at their defaults: the
verdicts are stored in the run (JUnit and JSON through the API), never written elsewhere."""


def prepare_applied(applied: RunJob, settings: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The settings of a job applied to ``applied.run``: project file names pointed at the
    files frozen for it (``applied_folder(applied)/inputs``), the run as its target, typed
    and checked. Raises ``UserInputError`` (key, message) for settings the dashboard
    refuses."""
    problems = _refused(settings, APPLIED_FIXED)
    if problems:
        raise UserInputError(problems)
    inputs = applied_folder(applied) / "inputs"
    files = write_snapshot(applied.run.project, inputs)
    prepared = {k: _paths_inside(v, files, inputs) for k, v in settings.items()}
    prepared[APPLIED_TARGET] = str(Path(applied.run.path))
    with scoped(policy_for([inputs, Path(applied.run.path)])):
        typed = check_paths(applied.job, prepared, [inputs, Path(applied.run.path)])
        if problems := launch_problems(applied.run.project, typed):
            raise UserInputError(problems)
    return prepared


def _failure(executor: Executor, handle: str, secrets: dict[str, str]) -> str:
    """Why the job ``handle`` failed ('' when it did not, or the executor cannot say),
    with every secret removed (the project's, and any the redaction pass knows)."""
    failure = executor.error(handle)
    if failure is None:
        return ""
    text = f"{type(failure).__name__}: {failure}"
    for value in sorted(secrets.values(), key=len, reverse=True):
        text = text.replace(value, "[redacted]")
    return redact_text(text)[:4000]


@contextmanager
def project_environment(project: Project) -> Iterator[dict[str, str]]:
    """The project's secrets in the process environment while the block runs; the previous
    values (or their absence) restored after."""
    values = secret_values(Secret.objects.filter(project=project))
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield values
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
        values.clear()


@contextmanager
def job_policy(
    roots: list[Path], secrets: dict[str, str], hosts: dict[str, frozenset[str]] | None = None
) -> Iterator[None]:
    """The dashboard's policy for one job, installed in this process while the block runs
    (the job runs on a thread of its own, which a ``scoped`` policy would not reach): paths
    inside ``roots``, ``${NAME}`` from ``secrets`` only, each sent only to its ``hosts``;
    the policy before put back after."""
    before = current_policy()
    install_policy(policy_for(roots, secrets, hosts or {}))
    try:
        yield
    finally:
        install_policy(before)


class _Claim(NamedTuple):
    """What a started job holds until it ends: its project's key and its launcher's id."""

    project: int
    account: int | None


class Worker:
    """Runs the dashboard's queued runs through ``executor``: ``slots()`` at once, at most
    one per project and at most ``account_slots()`` per launching account, so one user's
    long runs (in as many projects as they create) never hold every other user's back."""

    def __init__(self, executor: Executor | None = None) -> None:
        self.executor: Executor = executor or ProcessExecutor()
        self._pending: list[tuple[str, int]] = []
        self._started = False
        self._lock = threading.Lock()
        self._dispatching = threading.Lock()
        self._submitting = threading.Lock()
        self._busy: set[int] = set()
        self._by_account: Counter[int] = Counter()

    def start(self) -> None:
        """Start dispatching (once): settle runs a dead server left ``running``
        (``settle_orphans``) and start the runs and applied jobs left queued."""
        with self._lock:
            if self._started:
                return
            self._started = True
            settle_orphans()
        for pk in Run.objects.filter(status=RunStatus.QUEUED).values_list("pk", flat=True):
            self._enqueue(_RUN, pk)
        for pk in RunJob.objects.filter(status=RunStatus.QUEUED).values_list("pk", flat=True):
            self._enqueue(_APPLIED, pk)

    def launch(self, run: Run) -> None:
        """Queue ``run`` (its row is ``queued``); it starts when a slot and its project are
        free."""
        self._enqueue(_RUN, run.pk)

    def apply(self, applied: RunJob) -> None:
        """Queue a job applied to an existing run (its row is ``queued``)."""
        self._enqueue(_APPLIED, applied.pk)

    def resume(self, run: Run) -> None:
        """Queue a stopped or failed run again; the executor resumes it from its run
        directory (what finished is kept). Raises ``UserInputError`` for a run in another
        state."""
        if run.status not in (RunStatus.STOPPED, RunStatus.FAILED) or not run.handle:
            raise UserInputError(f"only a stopped or failed run resumes (this one: {run.status})")
        Run.objects.filter(pk=run.pk).update(status=RunStatus.QUEUED, finished_at=None)
        self._enqueue(_RUN, run.pk)

    def stop(self, run: Run | RunJob) -> None:
        """Ask the job of ``run`` (a run, or a job applied to one) to end cleanly (what
        finished is kept); a queued one is marked stopped before it starts."""
        if run.handle:
            self.executor.stop(run.handle)
        elif run.status == RunStatus.QUEUED:
            type(run).objects.filter(pk=run.pk, status=RunStatus.QUEUED).update(
                status=RunStatus.STOPPED, finished_at=datetime.now(UTC)
            )

    def slots(self) -> int:
        """Jobs run at once: ``SPARRING_WEB_JOB_SLOTS`` (default 2) with a
        ``ProcessExecutor`` (each job in its own process and environment); 1 with an
        executor that runs jobs here (they share this process's environment)."""
        if not isinstance(self.executor, ProcessExecutor):
            return 1
        text = os.environ.get(JOB_SLOTS_ENV, "").strip()
        return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_JOB_SLOTS

    def account_slots(self) -> int:
        """Jobs one account may have running at once: every slot but one (at least one), so
        a slot is always left for the others — whatever number of projects the account
        created (any account may create projects; accounts come only by invitation). On a
        server with one active account (local mode) there are no others: every slot."""
        if User.objects.filter(is_active=True).count() <= 1:
            return self.slots()
        return max(1, self.slots() - 1)

    def _enqueue(self, kind: str, pk: int) -> None:
        with self._lock:
            self._pending.append((kind, pk))
        self._dispatch()

    def _dispatch(self) -> None:
        """Start each queued job, oldest first, whose project has no job running and whose
        launching account is under ``account_slots()`` while a slot is free, each on a
        thread of its own that drives it to its end and then dispatches again. Called when
        a job is queued and when one ends: nothing polls. Before ``start`` (tests drive
        ``run_one``) jobs only wait."""
        with self._dispatching:
            with self._lock:
                if not self._started:
                    return
                waiting, self._pending = self._pending, []
            for kind, pk in waiting:
                try:
                    claim = self._claim(kind, pk)
                except Exception as exc:  # its row cannot be read: failed, never queued forever
                    logger.exception("run %s could not be started", pk)
                    _record_failure(Run if kind == _RUN else RunJob, pk, exc)
                    continue
                if claim is None:  # its project or account is busy, or every slot: later
                    with self._lock:
                        self._pending.append((kind, pk))
                    continue
                name = f"sparring-web-{kind}-{pk}"
                threading.Thread(
                    target=self._run, args=(kind, pk, claim), name=name, daemon=True
                ).start()

    def _claim(self, kind: str, pk: int) -> _Claim | None:
        """The project and launching account of the queued job, marked busy; ``None`` when
        that project already has a job running (one job per project at a time), its
        account already runs ``account_slots()`` jobs, or every slot is taken."""
        model = Run if kind == _RUN else RunJob
        field = "project_id" if kind == _RUN else "run__project_id"
        row = model.objects.filter(pk=pk).values_list(field, "created_by_id").first()
        project, account = row if row is not None else (None, None)
        key = int(project) if project is not None else -pk
        cap = self.account_slots()
        with self._lock:
            if key in self._busy or len(self._busy) >= self.slots():
                return None
            if account is not None and self._by_account[account] >= cap:
                return None
            self._busy.add(key)
            if account is not None:
                self._by_account[account] += 1
        return _Claim(key, account)

    def _run(self, kind: str, pk: int, claim: _Claim) -> None:
        try:
            (self.run_one if kind == _RUN else self.run_applied)(pk)
        except Exception as exc:
            logger.exception("run %s could not be run", pk)
            _record_failure(Run if kind == _RUN else RunJob, pk, exc)
        finally:
            with self._lock:
                self._busy.discard(claim.project)
                if claim.account is not None:
                    self._by_account[claim.account] -= 1
            self._dispatch()
            connections.close_all()  # this thread's: it ends here

    def run_one(self, pk: int) -> None:
        """Run the queued run ``pk`` to its end (the dispatcher's step; tests call it)."""
        run = Run.objects.select_related("project").filter(pk=pk).first()
        if run is None or run.status != RunStatus.QUEUED:
            return

        def submit() -> str:
            if run.handle:  # a stopped run queued again: resume it
                return self.executor.resume(Path(run.path))
            return self.executor.submit(run.job, dict(run.settings), Path(run.path))

        rows = Run.objects.filter(pk=pk)
        roots = [Path(run.path), Path(run.path).with_name(Path(run.path).name + ".inputs")]
        _update(rows, **self._drive(run.project, submit, rows, roots))
        from sparring.web._run_page import warm

        warm(run)

    def run_applied(self, pk: int) -> None:
        """Run the queued job ``pk`` applied to an existing run (``RunJob``) to its end:
        the job reads and writes the run (its settings name it), its progress record is
        written into the job's own folder (``applied_folder``), so the run's own
        ``progress.json`` stays the run's; the run's page is rendered again after. A check
        that finished gives the run its verdict (the one its page then shows)."""
        applied = RunJob.objects.select_related("run__project").filter(pk=pk).first()
        if applied is None or applied.status != RunStatus.QUEUED:
            return
        folder = applied_folder(applied)
        folder.mkdir(parents=True, exist_ok=True)

        def submit() -> str:
            return self.executor.submit(applied.job, dict(applied.settings), folder)

        rows = RunJob.objects.filter(pk=pk)
        ended = self._drive(applied.run.project, submit, rows, [folder, Path(applied.run.path)])
        _update(rows, **ended)
        stored = _stored_verdict(Path(applied.run.path))
        if stored is not None:  # a check stored its outcome in the run's verdict: the runs
            # list shows and filters on the one verdict its page and the CLI read
            _update(Run.objects.filter(pk=applied.run_id), verdict=stored)
        from sparring.web._run_page import warm

        warm(applied.run)

    @contextmanager
    def _isolated(self, project: Project, roots: list[Path]) -> Iterator[dict[str, str]]:
        """The project's secrets for the job about to be submitted: for an executor running
        jobs here, put in this process's environment and policy while the job runs (one
        job at a time then); for a ``ProcessExecutor``, only decrypted (``_submit`` hands
        them to its job process; this process's environment is untouched)."""
        if not isinstance(self.executor, ProcessExecutor):
            with (
                project_environment(project) as values,
                job_policy(roots, values, secret_hosts(project)),
            ):
                yield values
            return
        values = secret_values(Secret.objects.filter(project=project))
        try:
            yield values
        finally:
            values.clear()

    def _submit(
        self, submit: Callable[[], str], values: dict[str, str], project: Project, roots: list[Path]
    ) -> str:
        """``submit()``, after handing a ``ProcessExecutor`` the job's secrets, roots and
        hosts — one submission at a time, so two slots never mix two projects' secrets."""
        if not isinstance(self.executor, ProcessExecutor):
            return submit()
        with self._submitting:
            self.executor.prepare(values, roots, secret_hosts(project))
            try:
                return submit()
            finally:
                self.executor.prepare({}, [])

    def _drive(
        self, project: Project, submit: Callable[[], str], rows: QuerySet[Any], roots: list[Path]
    ) -> dict[str, Any]:
        """Submit a job with ``project``'s secrets in the environment and the dashboard's
        policy in force (paths inside ``roots``, ``${NAME}`` from those secrets only), mark
        ``rows`` running and wait on the job's events for its end, stopping it at the
        project's run-time or stored-size quota (``_quotas``: checked at the run-time
        deadline and as the job's items end); the fields that say how it ended."""
        overrun, reason = Overrun(project), None
        events: queue.SimpleQueue[JobEvent] = queue.SimpleQueue()
        with self._isolated(project, roots) as values:
            handle = self._submit(submit, values, project, roots)
            _update(rows, handle=handle, status=RunStatus.RUNNING)
            self.executor.watch(handle, events.put)
            while True:  # until the job's end: an event, or the run-time quota's deadline
                event = _next(events, overrun.seconds_left() if reason is None else None)
                if isinstance(event, Finished):
                    break
                if reason is None and (reason := overrun.check()) is not None:
                    self.executor.stop(handle)  # a quota ends it as a Stop does
            error = reason or _failure(self.executor, handle, values)
        return {
            "status": str(self.executor.status(handle) or event.status),
            "error": error,
            "verdict": event.verdict or "",
            "finished_at": datetime.now(UTC),
        }


def _next(events: queue.SimpleQueue[JobEvent], timeout: float | None) -> JobEvent | None:
    """The job's next event, or ``None`` when ``timeout`` seconds passed without one."""
    try:
        return events.get(timeout=timeout)
    except queue.Empty:
        return None


def _update(rows: QuerySet[Any], **fields: Any) -> None:
    """``rows.update(**fields)``, tried again for up to 30 seconds while the database says
    it is locked (SQLite: another connection writes; a shared-cache database fails at once
    instead of waiting), so a busy moment never loses a run's state. Other errors raise."""
    from django.db import OperationalError
    from tenacity import (
        retry,
        retry_if_exception,
        stop_after_delay,
        wait_random_exponential,
    )

    def locked(exc: BaseException) -> bool:
        return isinstance(exc, OperationalError) and "locked" in str(exc)

    update = retry(
        retry=retry_if_exception(locked),
        stop=stop_after_delay(30),
        wait=wait_random_exponential(multiplier=0.05, max=1),
        reraise=True,
    )(rows.update)
    update(**fields)


def _record_failure(model: type[Run] | type[RunJob], pk: int, exc: Exception) -> None:
    """Mark a run (or applied job) the worker could not drive as failed, so it never stays
    ``queued`` or ``running`` forever; a database that refuses this too is only logged."""
    try:
        model.objects.filter(pk=pk, status__in=(RunStatus.QUEUED, RunStatus.RUNNING)).update(
            status=RunStatus.FAILED,
            # the type only: the message may carry a secret (the server log has it all)
            error=f"the dashboard's worker failed ({type(exc).__name__}); see the server log",
            finished_at=datetime.now(UTC),
        )
    except Exception:
        logger.exception("run %s could not be marked failed", pk)


def settle_orphans() -> tuple[int, int]:
    """Runs and applied jobs left ``running`` by a server that died (no process of this
    one drives them): a run that has a run directory is marked ``stopped`` (Resume
    finishes it; a job process also stops its job when its server goes), any other
    ``failed`` with the reason. Returns (stopped, failed). Called once at start-up."""
    now = datetime.now(UTC)
    why = "the server stopped while this job ran; resume it if it is a run"
    stopped = failed = 0
    for run in Run.objects.filter(status=RunStatus.RUNNING):
        resumable = bool(run.handle) and is_run_directory(run.path)
        status = RunStatus.STOPPED if resumable else RunStatus.FAILED
        Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            status=status, finished_at=now, error="" if resumable else why
        )
        stopped, failed = (stopped + 1, failed) if resumable else (stopped, failed + 1)
    failed += RunJob.objects.filter(status=RunStatus.RUNNING).update(
        status=RunStatus.FAILED, finished_at=now, error=why
    )
    if stopped or failed:
        logger.warning("start-up: %s orphaned runs stopped, %s failed", stopped, failed)
    return stopped, failed


_worker: Worker | None = None


def worker() -> Worker:
    """The process's worker (created on first use)."""
    global _worker
    if _worker is None:
        _worker = Worker()
    return _worker


def start_worker() -> None:
    """Start the process's worker (``sparring web`` does at start)."""
    worker().start()


def launch_applied(applied: RunJob, settings: dict[str, Any]) -> None:
    """Prepare the settings of a job applied to a run and queue it. Raises
    ``UserInputError`` for settings the dashboard refuses (nothing is queued then)."""
    applied.settings = prepare_applied(applied, settings)
    applied.save(update_fields=["settings"])
    worker().apply(applied)


def launch(run: Run, project_settings: dict[str, Any]) -> None:
    """Prepare ``run``'s folder and settings and queue it. Raises ``UserInputError`` for
    settings the dashboard refuses (nothing is queued then)."""
    run_dir = Path(run.path)
    run.settings = prepare_settings(run.project, run.job, project_settings, run_dir)
    run.save(update_fields=["settings"])
    worker().launch(run)


def _stored_verdict(run_dir: Path) -> str | None:
    """The verdict stored in the run's manifest (``RunManifest.outcome``), ``None`` when
    it has none or cannot be read."""
    try:
        outcome = RunStore.open(run_dir, clean=False).manifest.outcome
    except (UserInputError, OSError):
        return None
    return outcome.verdict if outcome is not None else None
