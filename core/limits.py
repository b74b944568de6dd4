"""How often anyone may knock, and how many of its requests may be answered at once: counters
in the cache, in fixed windows, and places one caller holds while its requests run.

With REDIS_URL the cache is Redis and every worker on every machine counts in the same place;
without it each process counts on its own. A cache that does not answer lets requests through
(and says so in the log): a limit must never turn into an outage.
"""

import hashlib
import ipaddress
import logging
import math
import re
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.utils.translation import gettext_noop

from .cache import SharedRedisCache
from .errors import DomainError

logger = logging.getLogger(__name__)

_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
_RATE = re.compile(r"^\s*([1-9]\d*)\s*/\s*(second|minute|hour|day)s?\s*$")


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    @lru_cache(maxsize=64)
    def parse(cls, text: str) -> "Rate":
        """ "1200/minute" → Rate(1200, 60)."""
        match = _RATE.match(text or "")
        if match is None:
            raise ValueError(f"A rate is '<count>/<second|minute|hour|day>', not {text!r}")
        return cls(int(match[1]), _PERIODS[match[2]])

    @classmethod
    def setting(cls, name: str) -> "Rate":
        return cls.parse(getattr(settings, name))


class RateLimited(DomainError):
    """Too many requests: 429, and when to come back."""

    http_status = 429
    code = "rate_limited"
    location = "request"
    name = "rate"

    def __init__(self, retry_after: int, description=None, *, field=None):
        super().__init__(description or gettext_noop("Too many requests. Try again later."))
        self.retry_after = max(1, int(retry_after))
        self.field = field

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}

    @property
    def minutes(self) -> int:
        return math.ceil(self.retry_after / 60)


_last_complaint = 0.0


def cache_unavailable(what: str, error: Exception, *, outcome: str = "let a request through"):
    """Say that the cache does not answer and `what` therefore `outcome`: once a minute at
    most per process, so that an outage does not drown the log."""
    global _last_complaint
    now = time.monotonic()
    if now - _last_complaint >= 60 or _last_complaint == 0.0:
        _last_complaint = now
        logger.warning("%s %s: the cache does not answer (%r)", what, outcome, error)


def _key(scope: str, ident: str, rate: Rate, window: int) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
    return f"limit:{scope}:{rate.seconds}:{digest}:{window}"


def count_public_post(by) -> None:
    """A question or a claim about the conditions posted from the portal counts against its
    organization (PUBLIC_POST_RATE); a broker's counts as its API writes."""
    organization = getattr(by.user, "organization", None)
    if organization is not None:
        hit(
            "public-posts",
            f"organization:{organization.pk}",
            Rate.setting("PUBLIC_POST_RATE"),
            gettext_noop("Your organization has posted too often. Try again later."),
        )


def hit(scope: str, ident: str, rate: Rate, description=None, *, field=None) -> None:
    """Count one knock by `ident` on `scope`; RateLimited (with this description, about this
    form field) once the window holds more than the rate allows."""
    now = time.time()
    window = int(now // rate.seconds)
    key = _key(scope, ident, rate, window)
    try:
        count = count_knock(key, rate.seconds + 1)
    except Exception as error:
        cache_unavailable(f"rate limit {scope}", error)
        return
    if count > rate.count:
        retry_after = math.ceil((window + 1) * rate.seconds - now)
        raise RateLimited(retry_after, description, field=field)


def count_knock(key: str, seconds: int) -> int:
    """One more knock in the window `key`, which lives `seconds`; the window's count."""
    shared = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(shared, SharedRedisCache):
        return shared.count(key, seconds)
    try:
        return shared.incr(key)  # (a knock after the window's first: the common case)
    except ValueError:  # the window's first knock, unless another process's came first
        return 1 if shared.add(key, 1, timeout=seconds) else shared.incr(key)


class TooManyAtOnce(RateLimited):
    """The caller has as many requests being answered as it may: 429, come back in a second."""

    def __init__(self):
        super().__init__(1, gettext_noop("Too many requests in progress. Try again later."))


# Reads that cost what a large write does, as the apps above say (each a function of the
# request, true for such a read): counted as writes are, in places of their own
# (core/middleware.py RequestsInFlight), before anything else is done for them.
LARGE_READS: list[Callable] = []


def counts_as_a_large_read(predicate: Callable) -> Callable:
    LARGE_READS.append(predicate)
    return predicate


# Places held in this process, when the cache is not Redis: {key: {place: taken at}}.
_local_places: dict[str, dict[str, float]] = {}
_local_places_lock = threading.Lock()


@contextmanager
def one_of_at_most(scope: str, ident: str, most: int, lease_seconds: int):
    """Run the block holding one of `most` places of `ident` on `scope` (every worker counts
    in the same places with Redis); TooManyAtOnce when all are held. A place its holder never
    gave back (a worker killed mid-request) is free again after `lease_seconds`."""
    key = f"places:{scope}:{hashlib.sha256(ident.encode()).hexdigest()[:32]}"
    shared = caches[DEFAULT_CACHE_ALIAS]
    redis = isinstance(shared, SharedRedisCache)
    try:
        place = (
            shared.take_place(key, most, lease_seconds)
            if redis
            else _take_local_place(key, most, lease_seconds)
        )
    except Exception as error:
        cache_unavailable(f"places {scope}", error)
        place = ""  # (counted nowhere: nothing to give back)
    if place is None:
        raise TooManyAtOnce()
    try:
        yield
    finally:
        if place:
            try:
                if redis:
                    shared.give_place(key, place)
                else:
                    _give_local_place(key, place)
            except Exception as error:
                cache_unavailable(
                    f"places {scope}", error, outcome="keeps a place until its lease ends"
                )


def _take_local_place(key: str, most: int, lease_seconds: int) -> str | None:
    now = time.time()
    with _local_places_lock:
        held = _local_places.setdefault(key, {})
        for place, taken in list(held.items()):
            if taken < now - lease_seconds:
                del held[place]
        if len(held) >= most:
            return None
        place = uuid.uuid4().hex
        held[place] = now
        return place


def _give_local_place(key: str, place: str) -> None:
    with _local_places_lock:
        held = _local_places.get(key, {})
        held.pop(place, None)
        if not held:
            _local_places.pop(key, None)


def check(scope: str, ident: str, rate: Rate) -> None:
    """RateLimited if `ident` has used up `scope` in this window, without counting a knock."""
    now = time.time()
    window = int(now // rate.seconds)
    try:
        count = cache.get(_key(scope, ident, rate, window), 0)
    except Exception as error:
        cache_unavailable(f"rate limit {scope}", error)
        return
    if count >= rate.count:
        raise RateLimited(retry_after=math.ceil((window + 1) * rate.seconds - now))


def client_address(request) -> str:
    """The caller's address: REMOTE_ADDR, or with PROXY_COUNT proxies in front the address the
    outermost of them saw (the one a client cannot forge). An IPv6 caller is its /64 network:
    one subscriber holds a whole /64 and could otherwise take a new address per request."""
    address = request.META.get("REMOTE_ADDR") or ""
    proxies = settings.PROXY_COUNT
    if proxies > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= proxies:
            address = forwarded[-proxies]
    return _normalized(address)


def _normalized(address: str) -> str:
    text = address.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return f"unparsed:{address[:100]}"
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)
