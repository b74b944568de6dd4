"""How often the API and the document service answer one caller: per broker key, or per address
for callers without one, reads and writes apart (the API_RATE_* settings)."""

import contextlib

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from portal.core.limits import Rate, client_address, hit, one_of_at_most

_READING = frozenset({"GET", "HEAD", "OPTIONS"})


def check_rate(request, broker) -> None:
    """Count this request against its caller; RateLimited (429) over the limit."""
    reading = request.method in _READING
    kind = "READS" if reading else "WRITES"
    caller = "BROKER" if broker is not None else "ANONYMOUS"
    hit(
        f"api-{caller}-{kind}".lower(),
        _ident(request, broker),
        Rate.setting(f"API_RATE_{caller}_{kind}"),
    )


def _ident(request, broker) -> str:
    return f"broker:{broker.pk}" if broker is not None else f"address:{client_address(request)}"


# A place is given back when its request is answered; one a killed worker kept is free again
# after this long (longer than any request may run: gunicorn's timeout).
LEASE_SECONDS = 120


def one_of_the_large_reads(request):
    """Context in which a read that costs what a large write does is answered: its caller (broker
    or address) has at most API_CONCURRENT_LARGE_READS of them being answered at once, on every
    worker together; one more is TooManyAtOnce (429, Retry-After: 1). Rate limits count
    requests, not their cost: 20 small requests a second, each reading a page of large tenders
    whole, held every worker."""
    most = settings.API_CONCURRENT_LARGE_READS
    if not most:
        return contextlib.nullcontext()
    # (request.user is the broker of a DRF request, or None)
    return one_of_at_most("api-large-reads", _ident(request, request.user), most, LEASE_SECONDS)


class KeyOrAddressRate(BaseThrottle):
    def allow_request(self, request, view):
        check_rate(request, request.user)
        return True
