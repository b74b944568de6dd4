"""The one settings module. Everything that differs between machines comes from the environment.

DATABASE_URL   database (default: the embedded SQLite file db.sqlite3); REPLICA_URLS its replicas
SECRET_KEY     required unless DEBUG=1
DEBUG          1 for development
ALLOWED_HOSTS  comma-separated host names (default with DEBUG: localhost names)
HTTPS          1 when served over TLS: secure cookies, HSTS, redirect to https
SANDBOX_MODE   1 to honour procurementMethodDetails "quick, accelerator=N"
AUCTION_MODULE who runs the electronic auctions: builtin (default) or external
DOCSERVICE_URL base URL of the document service (default: /ds of this host)
REDIS_URL      the cache shared by every worker (rate limits, sign-in lockout, rendered page
               fragments); without it each process keeps its own (`make run` only)
...and the document service's keys, limits and storage below.
"""

import hashlib
import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from core.databases import databases

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str = "") -> str:
    """The variable's value; its default when unset or empty (`DATABASE_URL= make test`)."""
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    return [item.strip() for item in env(name).split(",") if item.strip()] or default


DEBUG = env_bool("DEBUG")
SECRET_KEY = env("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY (or DEBUG=1 for development).")
    SECRET_KEY = "development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else []
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_tasks_db",
    "core",
    "portal",
    "tenders",
    "belowthreshold",
    "complaints",
    "auctions",
    "contracting",
    "opendata",
    "docservice",
    "axes",
]

MIDDLEWARE = [
    # First, so that every error under /api/ and /ds/ leaves as the 2.3 envelope.
    "core.middleware.MachineFacesAnswerJSON",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads a body: a caller with as many writes in progress as it may waits.
    "core.middleware.RequestsInFlight",
    "core.middleware.WritersReadTheirWrites",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.PortalLanguageMiddleware",
    "core.middleware.MachineFacesInEnglishMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Before any body is read (the CSRF check reads a form's): its size against who sends it.
    "core.middleware.BodiesBounded",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so that it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# docservice.urls serves the document service alone, at the root of its own host.
ROOT_URLCONF = env("ROOT_URLCONF", "portal.urls")
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "portal.views.api_version",
                "portal.views.waiting",
            ],
        },
    },
]

# A statement that runs longer is cancelled (core/databases.py). gunicorn.conf.py sets 10 for the
# web workers; commands (migrations, the chronograph) run without one unless set.
STATEMENT_TIMEOUT_SECONDS = float(env("STATEMENT_TIMEOUT_SECONDS", "0"))
DATABASES = databases(
    env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
    env_list("REPLICA_URLS", []),
    STATEMENT_TIMEOUT_SECONDS,
)
# What may be a little stale is read from a replica no further behind than this (core/replicas.py).
DATABASE_ROUTERS = ["core.replicas.ReplicaRouter"]
REPLICA_MAX_LAG_SECONDS = float(env("REPLICA_MAX_LAG_SECONDS", "2"))

CACHES = {
    "default": (
        {"BACKEND": "core.cache.SharedRedisCache", "LOCATION": env("REDIS_URL")}
        if env("REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
CACHES["default"]["KEY_PREFIX"] = env("CACHE_KEY_PREFIX", "registry")
# How long a rendered fragment of a public page is kept (core/fragments.py): the most a
# change its key does not follow (a broker's new name) is shown late.
FRAGMENT_SECONDS = int(env("FRAGMENT_SECONDS", "600"))
# A search's results are kept until the registry's newest dateModified moves, and at most this
# long (how late they are when a change is stamped no later than the newest stamp: the same
# microsecond, a server whose clock is behind); within FEED_WATERMARK_SECONDS of the newest
# stamp only until that time has passed (portal/views.py).
SEARCH_RESULTS_SECONDS = int(env("SEARCH_RESULTS_SECONDS", "60"))
if env("REDIS_URL"):
    # A Redis that hangs must not hold every request for redis-py's default 5 seconds: the
    # limits then let requests through.
    CACHES["default"]["OPTIONS"] = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}

AUTH_USER_MODEL = "portal.User"
# The lockout backend first: a locked-out sign-in is refused before any password is hashed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "uk"
LANGUAGES = [("uk", "Українська"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Kyiv"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic writes the static files and their manifest, which pages are served by.
STATIC_ROOT = Path(env("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = BASE_DIR / "media"
# The document service's files in S3 (DOCUMENTS_S3_BUCKET names the bucket): reached only
# through URLs signed for a minute, with version 4 signatures (AWS refuses version 2 for buckets
# made since 2020, and so do other S3 servers).
DOCUMENTS_S3_OPTIONS = {
    "bucket_name": env("DOCUMENTS_S3_BUCKET"),
    "endpoint_url": env("DOCUMENTS_S3_ENDPOINT_URL") or None,
    "region_name": env("DOCUMENTS_S3_REGION") or None,
    "default_acl": None,
    "file_overwrite": False,
    "querystring_auth": True,
    "querystring_expire": 60,
    "signature_version": "s3v4",
}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # File content of the document service; never served directly (only through signed URLs).
    "documents": (
        {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": DOCUMENTS_S3_OPTIONS}
        if env("DOCUMENTS_S3_BUCKET")
        else {
            "BACKEND": "docservice.storage.AtomicFileSystemStorage",
            "OPTIONS": {"location": env("DOCUMENTS_ROOT", str(BASE_DIR / "var" / "documents"))},
        }
    ),
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Security. HTTPS=1 is the production setting: everything below assumes TLS in front.
HTTPS = env_bool("HTTPS")
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
if env_bool("TRUST_X_FORWARDED_PROTO"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Everything the portal loads is its own (htmx is vendored); no inline script or style.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}

# The portal's accounts
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "home"
# How long the link that confirms a new account's e-mail address works, and an invitation to
# join an organization.
EMAIL_CONFIRMATION_DAYS = int(env("EMAIL_CONFIRMATION_DAYS", "3"))
INVITATION_DAYS = int(env("INVITATION_DAYS", "7"))

# Who may knock how often. A rate is "<count>/<second|minute|hour|day>", counted in the cache
# (shared by every worker with REDIS_URL) in fixed windows of that length.
# How many reverse proxies in front append to X-Forwarded-For; 0 trusts only REMOTE_ADDR.
PROXY_COUNT = int(env("PROXY_COUNT", "0"))
# Sign-in: after this many failures for one account name, or from one address, sign-in is
# refused for that name or address for this many minutes (no password is checked meanwhile).
LOGIN_FAILURE_LIMIT = int(env("LOGIN_FAILURE_LIMIT", "5"))
LOGIN_LOCKOUT_MINUTES = int(env("LOGIN_LOCKOUT_MINUTES", "15"))
AXES_HANDLER = "portal.lockout.LockoutHandler"
AXES_USERNAME_CALLABLE = "portal.lockout.account_name"
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_CLIENT_IP_CALLABLE = "core.limits.client_address"
AXES_LOCKOUT_CALLABLE = "portal.accounts.locked_out"
AXES_VERBOSE = False
# The portal: new accounts per address, confirmation e-mails per account, invitations per
# organization, join requests per account, tenders followed and unfollowed per account,
# searches exported per address (each reads up to 10,000 tenders).
SIGNUP_RATE = env("SIGNUP_RATE", "10/hour")
EXPORT_RATE = env("EXPORT_RATE", "30/hour")
CONFIRMATION_RESEND_RATE = env("CONFIRMATION_RESEND_RATE", "5/hour")
INVITATION_RATE = env("INVITATION_RATE", "50/day")
JOIN_REQUEST_RATE = env("JOIN_REQUEST_RATE", "10/day")
FOLLOW_RATE = env("FOLLOW_RATE", "60/hour")
# Questions and claims about the conditions an organization posts from the portal (each mails
# the buyer); brokers count against API_RATE_BROKER_WRITES.
PUBLIC_POST_RATE = env("PUBLIC_POST_RATE", "30/hour")

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["core.api.envelope.JSONRenderer"],
    # Views read their JSON themselves (core.api.envelope.read_data); this parser only tells
    # the OpenAPI description that request bodies are JSON.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["core.api.auth.BrokerAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.api.envelope.AlwaysJSON",
    "EXCEPTION_HANDLER": "core.api.errors.handler",
    "UNAUTHENTICATED_USER": None,
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_THROTTLE_CLASSES": ["core.api.throttling.KeyOrAddressRate"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
# The API and the document service: requests per broker key, and per address for callers
# without a key, reads (GET, HEAD) and writes apart; and presented keys that match no broker,
# per address. Over a limit: 429 in the 2.3 error envelope with Retry-After.
API_RATE_ANONYMOUS_READS = env("API_RATE_ANONYMOUS_READS", "1200/minute")
API_RATE_BROKER_READS = env("API_RATE_BROKER_READS", "6000/minute")
API_RATE_ANONYMOUS_WRITES = env("API_RATE_ANONYMOUS_WRITES", "60/minute")
API_RATE_BROKER_WRITES = env("API_RATE_BROKER_WRITES", "1200/minute")
API_RATE_FAILED_KEYS = env("API_RATE_FAILED_KEYS", "20/minute")
# Writes of one caller (broker key, or address) being answered at once, on every worker of
# every machine (with REDIS_URL); 0 takes the bound away. Its largest requests then hold at
# most this many workers: serve with more (README, "Limits").
API_CONCURRENT_WRITES = int(env("API_CONCURRENT_WRITES", "2"))
# Likewise for the reads that cost what a large write does: feed pages of tenders' documents or
# parts (opt_fields=items...), each up to 100 tenders read whole.
API_CONCURRENT_LARGE_READS = int(env("API_CONCURRENT_LARGE_READS", "2"))

# The 2.3 API
API_VERSION = "2.3"
# The OpenAPI description (portal/api/openapi.py), and Swagger UI served from this host.
SPECTACULAR_SETTINGS = {
    "TITLE": "Public procurement registry: the Prozorro 2.3 API and its document service",
    "DESCRIPTION": (
        "The broker API of the belowThreshold procedure, as Prozorro 2.3 speaks it: every "
        'request and answer carries `data`; every error is `{"status": "error", '
        '"errors": [{"location", "name", "description"}]}`. Authenticate with the '
        "broker's API key (Basic, the key as the user name, or Bearer); change what you created "
        "with the owner token the create answered (X-Access-Token)."
    ),
    "VERSION": API_VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Several objects have a `status` with its own values: each set gets its own name.
    "ENUM_NAME_OVERRIDES": {
        "TenderStatusEnum": "tenders.models.statuses.TenderStatus.values",
        "BidStatusEnum": "tenders.models.statuses.BidStatus.values",
        "BidStatusWrittenEnum": ["draft", "active"],
        "AwardStatusEnum": "tenders.models.statuses.AwardStatus.values",
        "ContractStatusEnum": "tenders.models.statuses.ContractStatus.values",
        # (a contract is written with any of its statuses; a cancellation's and a contract
        # change's are the same two)
        "PendingOrActiveEnum": "tenders.models.statuses.CancellationStatus.values",
        "SignedContractStatusEnum": ["active", "terminated"],
        "ComplaintStatusEnum": "complaints.models.ComplaintStatus.values",
        "ErrorStatusEnum": ["error"],
        # What a document or a question is of (the same three choices in 2.3).
        "PartOfTenderEnum": ["tender", "item", "lot"],
        # What a signed contract's document is of, and what any document is shown of.
        "ContractDocumentOfEnum": ["contract", "change"],
        "DocumentOfEnum": ["tender", "item", "lot", "contract", "change"],
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "docservice.openapi.add_document_service_paths",
        "core.api.openapi.add_common_answers",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
# Largest JSON body the API reads; larger requests get 413 in the error envelope.
API_MAX_BODY_BYTES = int(env("API_MAX_BODY_BYTES", str(2 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES
# The feed shows changes stamped at least this many seconds ago: longer than any write takes
# from its dateModified stamp to its commit, so a crawler never passes a change still
# committing (portal/api/feed.py says why that is enough).
FEED_WATERMARK_SECONDS = float(env("FEED_WATERMARK_SECONDS", "5"))
SANDBOX_MODE = env_bool("SANDBOX_MODE")

# Who runs the electronic auctions: "builtin", our own module (the portal serves them); or
# "external", a module with an auction key (manage.py add_broker --role auction) speaking 2.3's
# /tenders/{id}/auction routes. In half-hour slots, AUCTION_STREAMS at once (docs/auction.md).
AUCTION_MODULE = env("AUCTION_MODULE", "builtin")
if AUCTION_MODULE not in ("builtin", "external"):
    raise ImproperlyConfigured("AUCTION_MODULE is builtin or external.")
AUCTION_STREAMS = int(env("AUCTION_STREAMS", "10"))
if AUCTION_STREAMS < 1:  # (no slot would ever hold one: planning would never end)
    raise ImproperlyConfigured("AUCTION_STREAMS is at least 1.")
# A bidder of our module's auction offers (or takes back) at most this many times in one turn:
# every offer is kept and published in the protocol, and the course reads them all.
AUCTION_OFFERS_PER_TURN = int(env("AUCTION_OFFERS_PER_TURN", "20"))

# The document service. Without DOCSERVICE_URL it is the one mounted at /ds of this host.
DOCSERVICE_URL = env("DOCSERVICE_URL").rstrip("/")
# Ed25519 seeds (64 hex digits each; `manage.py signing_key` makes one), newest first: the
# first signs, all verify, so a key is rotated by putting a new one in front. The document
# service signs the URLs it hands out, the registry the URLs it shows. Default: derived from
# SECRET_KEY.
DOCSERVICE_SIGNING_KEYS = env_list(
    "DOCSERVICE_SIGNING_KEYS", [hashlib.sha256(b"docservice:" + SECRET_KEY.encode()).hexdigest()]
)
REGISTRY_SIGNING_KEYS = env_list(
    "REGISTRY_SIGNING_KEYS", [hashlib.sha256(b"registry:" + SECRET_KEY.encode()).hexdigest()]
)
# Verify keys (64 hex digits) of the other side when registry and document service are
# deployed apart: each trusts the URLs the other signs.
DOCSERVICE_TRUSTED_KEYS = env_list("DOCSERVICE_TRUSTED_KEYS", [])
# The broker key the registry uploads with when the document service is another host.
DOCSERVICE_UPLOAD_KEY = env("DOCSERVICE_UPLOAD_KEY")
# Largest file accepted (413 above), and how long a download URL stays valid.
DOCUMENT_MAX_BYTES = int(env("DOCUMENT_MAX_BYTES", str(50 * 1024 * 1024)))
# The largest body of any request (a portal form's files together); a caller neither signed in
# nor presenting a key sends at most API_MAX_BODY_BYTES (core.middleware.BodiesBounded).
REQUEST_MAX_BYTES = int(env("REQUEST_MAX_BYTES", str(4 * DOCUMENT_MAX_BYTES)))
DOCUMENT_URL_SECONDS = int(env("DOCUMENT_URL_SECONDS", "300"))

SITE_URL = env("SITE_URL", "http://127.0.0.1:8000").rstrip("/")  # (links in e-mail)
# The ocid prefix the Open Contracting Partnership gave this registry (README "Open data").
OCID_PREFIX = env("OCID_PREFIX", "ocds-213czf")
# E-mail: printed to the console in development (DEBUG=1) unless EMAIL_HOST names an SMTP
# server; in production always SMTP (EMAIL_HOST, default localhost).
MAILERS = {
    "default": (
        {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": env("EMAIL_HOST", "localhost"),
                "port": int(env("EMAIL_PORT", "587")),
                "username": env("EMAIL_HOST_USER"),
                "password": env("EMAIL_HOST_PASSWORD"),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
                # (a server that stops answering fails the mail, which is tried again later,
                # rather than holding its worker for good)
                "timeout": float(env("EMAIL_TIMEOUT", "30")),
            },
        }
        if env("EMAIL_HOST") or not DEBUG
        else {"BACKEND": "core.notices.ReadableConsole"}
    )
}
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "registry@localhost")
# Background work (e-mail, the auction's protocol): queued in the database and done by
# `manage.py worker` (core.jobs).
TASKS = {"default": {"BACKEND": env("TASKS_BACKEND", "django_tasks_db.DatabaseBackend")}}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Owner tokens in URLs (`acc_token=`) are masked in every line, the development server's
    # request lines included (gunicorn's access log: gunicorn.conf.py).
    "filters": {"mask_tokens": {"()": "core.log_filters.MaskTokens"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["mask_tokens"]}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
