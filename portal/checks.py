"""Start-up checks of the settings: `manage.py check` (and `--deploy` for production)."""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from .limits import Rate

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
