"""Start-up checks of the settings: `manage.py check` (and `--deploy` for production)."""

import os
import tempfile

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.checks import Error, Tags, Warning, register
from django.core.files.storage import FileSystemStorage

from core.limits import Rate
from docservice.signing import keyring
from docservice.storage import documents_storage

DEVELOPMENT_SECRET_KEY = "development-only-key-never-use-in-production"

RATE_SETTINGS = [
    "API_RATE_ANONYMOUS_READS",
    "API_RATE_BROKER_READS",
    "API_RATE_ANONYMOUS_WRITES",
    "API_RATE_BROKER_WRITES",
    "API_RATE_FAILED_KEYS",
    "SIGNUP_RATE",
    "CONFIRMATION_RESEND_RATE",
    "INVITATION_RATE",
    "JOIN_REQUEST_RATE",
    "PUBLIC_POST_RATE",
    "FOLLOW_RATE",
    "EXPORT_RATE",
]


@register(Tags.security)
def rates_are_readable(app_configs, **kwargs):
    """A rate read at request time that cannot be read would refuse every request."""
    errors = []
    for name in RATE_SETTINGS:
        try:
            Rate.setting(name)
        except ValueError as error:
            errors.append(Error(f"{name}: {error}", id="portal.E001"))
    return errors


@register(Tags.caches, deploy=True)
def shared_cache(app_configs, **kwargs):
    """Rate limits and the sign-in lockout count in the cache; a per-process cache lets every
    worker grant the whole allowance again."""
    backend = settings.CACHES["default"]["BACKEND"]
    if backend.endswith(("RedisCache", "PyMemcacheCache", "PyLibMCCache")):
        return []
    return [
        Warning(
            "The cache is local to each process: rate limits and the sign-in lockout do not "
            "hold across workers.",
            hint="Set REDIS_URL.",
            id="portal.W001",
        )
    ]


@register(Tags.staticfiles, deploy=True)
def static_files_are_collected(app_configs, **kwargs):
    """Served as deployed, every page names its CSS and scripts by the manifest collectstatic
    writes; without it every page of the portal fails."""
    store = staticfiles_storage
    if not isinstance(store, ManifestFilesMixin) or store.manifest_storage.exists(
        store.manifest_name
    ):
        return []
    return [
        Warning(
            "The static files have not been collected: every page of the portal would fail "
            "(the API and the document service would not).",
            hint="Run manage.py collectstatic --noinput before serving.",
            id="portal.W003",
        )
    ]


@register(Tags.security, deploy=True)
def proxies_are_counted(app_configs, **kwargs):
    """Behind a proxy every request comes from the proxy's address: limits per address would
    then be one limit for everybody."""
    if getattr(settings, "SECURE_PROXY_SSL_HEADER", None) and settings.PROXY_COUNT == 0:
        return [
            Warning(
                "TRUST_X_FORWARDED_PROTO says a proxy is in front, but PROXY_COUNT is 0: every "
                "caller would share the proxy's address in rate limits and the sign-in lockout.",
                hint="Set PROXY_COUNT to the number of proxies that append to X-Forwarded-For.",
                id="portal.W002",
            )
        ]
    return []


@register(Tags.security)
def secret_key_is_set(app_configs, **kwargs):
    """Sessions, confirmation links and (by default) the document signing keys derive from
    SECRET_KEY: production must have its own."""
    if settings.DEBUG or (settings.SECRET_KEY and settings.SECRET_KEY != DEVELOPMENT_SECRET_KEY):
        return []
    return [
        Error(
            "SECRET_KEY is not set: production needs a secret key of its own.",
            hint="Set SECRET_KEY (python -c 'import secrets; print(secrets.token_urlsafe(50))').",
            id="portal.E002",
        )
    ]


@register()
def document_service_is_reachable(app_configs, **kwargs):
    """With the document service on another host, the registry uploads to it with a broker
    key and trusts the URLs it signs; the service trusts the registry's. Missing either, every
    upload or every attached URL would be refused at request time."""
    errors = []
    if settings.DOCSERVICE_URL and not settings.DOCSERVICE_UPLOAD_KEY:
        errors.append(
            Error(
                "DOCSERVICE_URL is set but DOCSERVICE_UPLOAD_KEY is not: the registry could "
                "not store a single uploaded file.",
                hint="Set DOCSERVICE_UPLOAD_KEY to a broker key issued by that service.",
                id="portal.E003",
            )
        )
    apart = settings.DOCSERVICE_URL or settings.ROOT_URLCONF == "docservice.standalone_urls"
    if apart and not settings.DOCSERVICE_TRUSTED_KEYS:
        errors.append(
            Error(
                "The registry and the document service are apart but DOCSERVICE_TRUSTED_KEYS "
                "is empty: neither would accept a URL the other signed.",
                hint="Put the other side's verify key (manage.py signing_key) in "
                "DOCSERVICE_TRUSTED_KEYS.",
                id="portal.E004",
            )
        )
    try:
        keyring()
    except (ValueError, TypeError) as error:
        errors.append(
            Error(
                f"The signing keys cannot be read: {error}",
                hint="DOCSERVICE_SIGNING_KEYS, REGISTRY_SIGNING_KEYS and "
                "DOCSERVICE_TRUSTED_KEYS hold 64 hex digits each.",
                id="portal.E005",
            )
        )
    return errors


@register()
def document_folder_is_usable(app_configs, **kwargs):
    """A document store on the filesystem must be a folder this process can write to."""
    store = documents_storage()
    location = getattr(store, "location", None)
    if not isinstance(store, FileSystemStorage) or location is None:
        return []
    try:
        os.makedirs(location, exist_ok=True)
        with tempfile.TemporaryFile(dir=location):
            pass
    except OSError as error:
        return [
            Error(
                f"The document folder {location} is not usable: {error.strerror or error}.",
                hint="Set DOCUMENTS_ROOT to a folder this user may write to.",
                id="portal.E006",
            )
        ]
    return []
