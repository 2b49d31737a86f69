"""Django settings of the dashboard (``DJANGO_SETTINGS_MODULE=sparring.web._settings``).

Built from ``sparring.web._config`` (environment variables; docs/web.md). On loopback the
secret key and the Fernet keys are generated once into the data folder; in production they
must be given, and ``sparring web`` refuses to start without them. Debug is off unless asked
for on loopback. The database is SQLite with WAL in the data folder, or
``SPARRING_DATABASE_URL``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sparring.web._config import (
    email_settings,
    loopback_fernet_keys,
    loopback_secret_key,
    read_config,
)

CONFIG = read_config()
DATA_DIR = CONFIG.data_dir
RUNS_DIR = DATA_DIR / "runs"

if CONFIG.production:
    SECRET_KEY = CONFIG.secret_key or ""
    FERNET_KEYS = CONFIG.fernet_keys
else:
    SECRET_KEY = loopback_secret_key(CONFIG)
    FERNET_KEYS = loopback_fernet_keys(CONFIG)

DEBUG = CONFIG.debug
ALLOWED_HOSTS = CONFIG.allowed_hosts or ["127.0.0.1", "localhost", "[::1]", "testserver"]
SIGNUP_OPEN = CONFIG.signup
SSRF_ALLOW = CONFIG.ssrf_allow
PROJECT_CREATORS = CONFIG.project_creators

# invitations (sparring.web._invitations): Django's console backend unless
# SPARRING_WEB_EMAIL_URL names an SMTP server
_EMAIL = email_settings(CONFIG.email_url)
EMAIL_BACKEND = _EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = _EMAIL.get("EMAIL_HOST", "localhost")
EMAIL_PORT = _EMAIL.get("EMAIL_PORT", 25)
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = _EMAIL.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _EMAIL.get("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = CONFIG.email_from

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "axes",
    "sparring.web.apps.WebConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "sparring.web._csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "sparring.web._urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]


def _databases() -> dict[str, Any]:
    if CONFIG.database_url:
        import dj_database_url

        return {"default": dict(dj_database_url.parse(CONFIG.database_url, conn_max_age=60))}
    return {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(DATA_DIR / "sparring.sqlite3"),
            # WAL: readers never wait for the worker's writes; the pragma is set on connect
            # (sparring.web.apps)
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }


DATABASES = _databases()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = False

# The run page's rendered report sections (``_run_page``): on disk, so they outlive a
# restart; each keyed by the parts of the run directory it reads, so a changed part is
# rendered again. About 16 entries a run: 8,000 keep ~500 runs' pages before a third of
# the entries are culled (a culled piece is rendered again in the background).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(DATA_DIR / "cache"),
        "OPTIONS": {"MAX_ENTRIES": 8000},
    }
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "projects"
LOGOUT_REDIRECT_URL = "login"

# Cookies and transport
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = CONFIG.https
CSRF_COOKIE_SECURE = CONFIG.https
SECURE_SSL_REDIRECT = CONFIG.https and CONFIG.production
SECURE_HSTS_SECONDS = 31_536_000 if CONFIG.https and CONFIG.production else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if CONFIG.production else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_TRUSTED_ORIGINS = [f"https://{host}" for host in CONFIG.allowed_hosts]
DATA_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024
# a project imported whole (``_project_import``): its files and their relative paths
DATA_UPLOAD_MAX_NUMBER_FILES = 2000
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2 * DATA_UPLOAD_MAX_NUMBER_FILES + 100

# Login rate limiting (django-axes): 5 failures per user name and address lock for an hour;
# the answer is the same whether the user exists or not.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(hours=1)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "sparring_web/locked.html"
AXES_VERBOSE = False

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "sparring.web._api_access.DeviceTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
KNOX_TOKEN_MODEL = "sparring_web.DeviceToken"
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=30),
    "AUTO_REFRESH": False,
    "TOKEN_PREFIX": "spr_",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
