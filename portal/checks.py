"""Start-up checks of a deployment's settings (`manage.py check --deploy`)."""

from django.conf import settings
from django.core.checks import Tags, Warning, register


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
