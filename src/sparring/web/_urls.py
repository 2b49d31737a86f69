"""URL patterns of the dashboard. Every pattern is walked by the default-deny test
(tests/web/test_access.py): an anonymous request is refused except on its allow-list."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic.base import RedirectView
from rest_framework.routers import DefaultRouter

from sparring.web import (
    _admin_views,
    _api,
    _api_runs,
    _applied_views,
    _audit_views,
    _compare_views,
    _import_views,
    _invitation_views,
    _lifecycle_views,
    _project_views,
    _run_views,
    _views,
)

router = DefaultRouter()
router.register("projects", _api.ProjectViewSet, basename="project")
router.register("members", _api.MemberViewSet, basename="member")
router.register("files", _api.FileViewSet, basename="file")
router.register("secrets", _api.SecretViewSet, basename="secret")
router.register("tokens", _api.TokenViewSet, basename="token")
router.register("runs", _api_runs.RunViewSet, basename="run")
router.register("annotations", _api_runs.AnnotationViewSet, basename="annotation")
router.register("audit", _audit_views.AuditViewSet, basename="audit")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", RedirectView.as_view(pattern_name="projects"), name="home"),
    path(
        "login/",
        _views.SignIn.as_view(
            template_name="sparring_web/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("login/link/<str:uidb64>/<str:token>/", _views.link_login, name="link-login"),
    path("account/password/", _views.password, name="password"),
    path("signup/", _views.signup, name="signup"),
    path("account/tokens/", _admin_views.tokens, name="tokens"),
    path("projects/", _views.projects, name="projects"),
    path("projects/<int:pk>/", _project_views.project, name="project"),
    path("projects/<int:pk>/files/new/", _project_views.file_edit, name="file-new"),
    path("projects/<int:pk>/files/<int:fid>/", _project_views.file_edit, name="file"),
    path(
        "projects/<int:pk>/files/<int:fid>/versions/<int:number>/",
        _project_views.file_version,
        name="file-version",
    ),
    path("projects/<int:pk>/launch/<str:job>/", _project_views.launch, name="launch"),
    path("projects/<int:pk>/import/", _import_views.project_import, name="project-import"),
    path("projects/<int:pk>/members/", _admin_views.members, name="members"),
    path("projects/<int:pk>/invitations/", _invitation_views.invitations, name="invitations"),
    path("invite/<str:token>/", _invitation_views.invitation, name="invitation"),
    path("projects/<int:pk>/secrets/", _admin_views.secrets, name="secrets"),
    path("projects/<int:pk>/quotas/", _admin_views.quotas, name="quotas"),
    path("projects/<int:pk>/rules/", _compare_views.rule_history, name="rule-history"),
    path("projects/<int:pk>/trends/", _project_views.trends, name="trends"),
    path("projects/<int:pk>/delete/", _lifecycle_views.project_delete, name="project-delete"),
    path("projects/<int:pk>/archive/", _lifecycle_views.project_archive, name="project-archive"),
    path(
        "projects/<int:pk>/files/<int:fid>/delete/",
        _lifecycle_views.file_delete,
        name="file-delete",
    ),
    path("runs/", _run_views.runs, name="runs"),
    path("runs/<int:pk>/", _run_views.run_detail, name="run"),
    path("runs/<int:pk>/progress/", _run_views.run_progress, name="page-run-progress"),
    path("runs/<int:pk>/verdict/", _run_views.run_verdict, name="page-run-verdict"),
    path("runs/<int:pk>/sections/<str:name>/", _run_views.run_section, name="page-run-section"),
    path("runs/<int:pk>/stop/", _run_views.run_stop, name="page-run-stop"),
    path("runs/<int:pk>/resume/", _run_views.run_resume, name="page-run-resume"),
    path("runs/<int:pk>/delete/", _lifecycle_views.run_delete, name="page-run-delete"),
    path("runs/<int:pk>/archive/", _lifecycle_views.run_archive, name="page-run-archive"),
    path("runs/<int:pk>/applied/", _applied_views.applied_panel, name="page-run-applied"),
    path("runs/<int:pk>/apply/<str:job>/", _applied_views.apply, name="page-run-apply"),
    path(
        "runs/<int:pk>/applied/<int:applied>/stop/",
        _applied_views.applied_stop,
        name="page-run-applied-stop",
    ),
    path("runs/<int:pk>/annotate/", _run_views.annotate, name="page-run-annotate"),
    path(
        "runs/<int:pk>/conversations/", _run_views.run_conversations, name="page-run-conversations"
    ),
    path(
        "runs/<int:pk>/conversations/<path:cid>",
        _run_views.conversation_view,
        name="page-run-conversation",
    ),
    path("compare/", _compare_views.compare, name="compare"),
    path("audit/", _audit_views.audit, name="audit"),
    path("report.css", _run_views.report_css, name="report-css"),
    path("admin/", admin.site.urls),
    path("api/auth/logout/", _api.TokenLogout.as_view(), name="api-logout"),
    path("api/auth/logoutall/", _api.TokenLogoutAll.as_view(), name="api-logout-all"),
    path("api/", include(router.urls)),
]
