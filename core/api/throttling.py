"""How often the API and the document service answer one caller: per broker key, or per address
for callers without one, reads and writes apart (the API_RATE_* settings)."""

from rest_framework.throttling import BaseThrottle

from core.limits import Rate, client_address, hit

_READING = frozenset({"GET", "HEAD", "OPTIONS"})


def check_rate(request, broker) -> None:
    """Count this request against its caller; RateLimited (429) over the limit."""
    reading = request.method in _READING
    kind = "READS" if reading else "WRITES"
    if broker is not None:
        caller, ident = "BROKER", f"broker:{broker.pk}"
    else:
        caller, ident = "ANONYMOUS", f"address:{client_address(request)}"
    hit(f"api-{caller}-{kind}".lower(), ident, Rate.setting(f"API_RATE_{caller}_{kind}"))


class KeyOrAddressRate(BaseThrottle):
    def allow_request(self, request, view):
        check_rate(request, request.user)
        return True
