"""The dashboard's database: an index over run directories, plus who may see what.

- ``Project`` — a chatbot under test and its files; private unless ``public`` (then every
  signed-in user may read it, never change it).
- ``Membership`` — a user's ``Role`` in a project (owner, editor, viewer).
- ``ProjectFile`` / ``FileVersion`` — chatbot.yaml, profiles, rules, personas and probe
  suites, every saved version kept (``ProjectFile.current`` is the newest).
- ``Run`` — one run directory (``path``) launched from the dashboard or imported from the
  CLI: job, status, verdict, tags.
- ``RunJob`` — a job applied to an existing run (``check``, ``evaluate``: jobs that write
  into a run's slots and create none), its settings (no secrets), who, when, status and
  outcome: the run's history of what was done to it.
- ``Invitation`` — an owner's invitation (by e-mail or a one-time link) to join a project
  with a role.
- ``Secret`` — a model-provider API key, encrypted at rest (``sparring.web._secrets``);
  only ``hint`` (``…abcd``) is ever shown.
- ``Annotation`` — a person's label on a conversation or one of its turns.
- ``AuditEvent`` — append-only: the model refuses updates and deletes.
- ``DeviceToken`` — a knox API token (stored hashed) with a device name and a scope.

Which rows a user may touch is decided in one place: ``sparring.web._permissions``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings as django_settings
from django.db import models
from knox.models import AbstractAuthToken


class Role(models.TextChoices):
    OWNER = "owner"
    EDITOR = "editor"
    VIEWER = "viewer"


class FileKind(models.TextChoices):
    CHATBOT = "chatbot", "chatbot.yaml"
    PROFILE = "profile", "profile"
    RULES = "rules", "rules"
    PERSONA = "persona", "persona"
    PROBES = "probes", "probe suite"


class RunStatus(models.TextChoices):
    """The job's state (``sparring.jobs.JobStatus``) plus ``queued`` before it starts."""

    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"


class TokenScope(models.TextChoices):
    READ = "read", "read: list and fetch"
    RUN = "run", "run: read, and start or stop runs"


class Project(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    public = models.BooleanField(
        default=False, help_text="Every signed-in user may read it (never change it)."
    )
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members: models.ManyToManyField[Any, Any] = models.ManyToManyField(
        django_settings.AUTH_USER_MODEL, through="Membership", related_name="projects"
    )
    max_conversations = models.PositiveIntegerField(
        null=True, blank=True, help_text="Conversations a run may plan (empty: the server's)."
    )
    max_concurrency = models.PositiveIntegerField(
        null=True, blank=True, help_text="Conversations at once (empty: the server's)."
    )
    max_run_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seconds a job may run (empty: the server's)."
    )
    max_stored_mb = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Megabytes the project's runs may hold (empty: the server's).",
    )
    archived = models.BooleanField(
        default=False, help_text="Hidden from the project list until restored; kept whole."
    )

    class Meta:
        ordering: ClassVar[list[str]] = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)

    class Meta:
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["project", "user"], name="one_role_per_project")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.project}"


class ProjectFile(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="files")
    kind = models.CharField(max_length=10, choices=FileKind.choices)
    name = models.CharField(max_length=200, help_text="e.g. profiles/order.yaml")

    class Meta:
        ordering: ClassVar[list[str]] = ["kind", "name"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["project", "name"], name="one_file_per_name")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def current(self) -> FileVersion | None:
        """The newest saved version (``None`` before the first save)."""
        return self.versions.order_by("-number").first()


class FileVersion(models.Model):
    file = models.ForeignKey(ProjectFile, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content = models.TextField()
    author = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-number"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["file", "number"], name="one_version_number")
        ]


class Run(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    job = models.CharField(max_length=40)
    path = models.CharField(max_length=1000, help_text="The run directory.")
    status = models.CharField(
        max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    verdict = models.CharField(max_length=20, blank=True, db_index=True)
    settings = models.JSONField(default=dict, help_text="The job's settings (no secrets).")
    tags = models.JSONField(default=list)
    handle = models.CharField(max_length=100, blank=True, help_text="The executor's handle.")
    error = models.TextField(blank=True, help_text="Why the job failed (redacted).")
    imported = models.BooleanField(default=False, help_text="Made by the CLI, then imported.")
    archived = models.BooleanField(
        default=False, db_index=True, help_text="Hidden from the runs list until restored."
    )
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.job} {self.created_at:%Y-%m-%d %H:%M}"


class RunJob(models.Model):
    """A job applied to ``run`` (one whose ``creates_run`` is false: it writes into the
    run's own slots, e.g. ``verdicts/``); the run's history of what was done to it."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="applied")
    job = models.CharField(max_length=40)
    settings = models.JSONField(default=dict, help_text="The job's settings (no secrets).")
    status = models.CharField(
        max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    verdict = models.CharField(max_length=20, blank=True)
    handle = models.CharField(max_length=100, blank=True, help_text="The executor's handle.")
    error = models.TextField(blank=True, help_text="Why the job failed (redacted).")
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.job} of run {self.run_id}"


class Invitation(models.Model):
    """An owner's invitation to join ``project`` with ``role``: sent by e-mail to
    ``email`` or handed over as a link (``email`` empty). The link carries the row's id
    signed by Django (``sparring.web._invitations``); it works once (``accepted_at``), until
    ``expires_at``, and not after the row is deleted (revoked)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=10, choices=Role.choices)
    email = models.EmailField(blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.role} of {self.project} for {self.email or 'a link'}"


class Secret(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="secrets")
    name = models.CharField(max_length=100, help_text="The variable a job reads, OPENAI_API_KEY")
    ciphertext = models.BinaryField(editable=False)
    hint = models.CharField(max_length=8, editable=False, help_text="…abcd")
    hosts = models.TextField(
        blank=True,
        default="",
        help_text="Host names it may be sent to, comma-separated (empty: nowhere; a model "
        "key: its provider's host).",
    )
    updated_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["name"]
        constraints: ClassVar[list[Any]] = [
            models.UniqueConstraint(fields=["project", "name"], name="one_secret_per_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.hint}"


class Annotation(models.Model):
    class Label(models.TextChoices):
        CORRECT = "correct"
        WRONG = "wrong"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="annotations")
    conversation = models.CharField(max_length=200, help_text="The conversation's id.")
    turn = models.PositiveIntegerField(null=True, blank=True, help_text="None: the whole one.")
    label = models.CharField(max_length=10, choices=Label.choices)
    breakdown = models.CharField(max_length=100, blank=True, help_text="A breakdown type.")
    comment = models.TextField(blank=True)
    author = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["conversation", "turn", "id"]


class AppendOnly(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("the audit log is append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class AuditEvent(models.Model):
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    # plain ids, not foreign keys: deleting a user or project must not rewrite the log
    actor_id_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    actor_name = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=40, db_index=True)
    project_id_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    address = models.GenericIPAddressField(null=True, blank=True)
    detail = models.JSONField(default=dict)

    objects = AppendOnly.as_manager()

    class Meta:
        ordering: ClassVar[list[str]] = ["-at", "-id"]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class DeviceToken(AbstractAuthToken):  # type: ignore[misc]  # knox ships no types
    """A knox token (only its SHA-512 digest is stored) for one device, with a scope and
    when it was last used (``_api_access.DeviceTokenAuthentication`` keeps it, to the
    minute: knox records no use)."""

    name = models.CharField(max_length=100, help_text="The device, e.g. 'CI on main'.")
    scope = models.CharField(max_length=10, choices=TokenScope.choices, default=TokenScope.READ)
    last_used = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When a request last used it."
    )

    class Meta:
        ordering: ClassVar[list[str]] = ["-created"]
