"""How often the API and the document service answer one caller: per broker key, or per address
for callers without one, reads and writes apart (the API_RATE_* settings)."""

from rest_framework.throttling import BaseThrottle

from portal.core.limits import Rate, client_address, hit

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


class KeyOrAddressRate(BaseThrottle):
    def allow_request(self, request, view):
        check_rate(request, request.user)
        return True
