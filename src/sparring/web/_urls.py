"""URL patterns of the dashboard. Every pattern is walked by the default-deny test
(tests/web/test_access.py): an anonymous request is refused except on its allow-list."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic.base import RedirectView
from rest_framework.routers import DefaultRouter

from sparring.web import _api, _api_runs, _views

router = DefaultRouter()
router.register("projects", _api.ProjectViewSet, basename="project")
router.register("members", _api.MemberViewSet, basename="member")
router.register("files", _api.FileViewSet, basename="file")
router.register("secrets", _api.SecretViewSet, basename="secret")
router.register("tokens", _api.TokenViewSet, basename="token")
router.register("runs", _api_runs.RunViewSet, basename="run")
router.register("annotations", _api_runs.AnnotationViewSet, basename="annotation")

urlpatterns: list[URLPattern | URLResolver] = [
    path("", RedirectView.as_view(pattern_name="projects"), name="home"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="sparring_web/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("login/link/<str:uidb64>/<str:token>/", _views.link_login, name="link-login"),
    path("account/password/", _views.password, name="password"),
    path("signup/", _views.signup, name="signup"),
    path("projects/", _views.projects, name="projects"),
    path("admin/", admin.site.urls),
    path("api/auth/logout/", _api.TokenLogout.as_view(), name="api-logout"),
    path("api/auth/logoutall/", _api.TokenLogoutAll.as_view(), name="api-logout-all"),
    path("api/", include(router.urls)),
]
