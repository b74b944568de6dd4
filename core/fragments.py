"""Rendered fragments of public pages kept in the shared cache (Redis with REDIS_URL), keyed on
what decides their content: a page read again is then one small query and the frame around it.

The key names the object's stamp (a tender's dateModified moves with every change of it or of
its parts, in the change's transaction) and the language. What the stamp does not follow (a
broker's or an organization's new name) is shown at most FRAGMENT_SECONDS late. A cache that
does not answer is a miss: the page is rendered as if nothing was kept.
"""

from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from .limits import cache_unavailable


def fragment_key(kind: str, pk: str, *stamps) -> str:
    moments = ":".join("" if stamp is None else stamp.isoformat() for stamp in stamps)
    return f"fragment:{kind}:{pk}:{moments}:{get_language()}"


def kept_fragment(key: str, render: Callable[[], str], seconds: int | None = None) -> SafeString:
    """The fragment kept under `key` (for `seconds`, by default FRAGMENT_SECONDS), or
    `render()`ed now and kept."""
    try:
        text = cache.get(key)
    except Exception as error:
        cache_unavailable("a page", error, outcome="was rendered anew")
        return mark_safe(render())
    if text is None:
        text = render()
        try:
            cache.set(key, text, settings.FRAGMENT_SECONDS if seconds is None else seconds)
        except Exception as error:
            cache_unavailable("a page", error, outcome="was rendered anew")
    return mark_safe(text)
