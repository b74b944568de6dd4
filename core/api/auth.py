"""Who is calling: the broker (API key, Basic or Bearer) and the owner token it presents."""

import base64
import binascii

from rest_framework.authentication import BaseAuthentication

from core import tokens
from core.actors import Actor, Role, Viewer
from core.limits import Rate, check, client_address, hit
from core.models import Broker

from .envelope import body_token


def key_from_header(header: str) -> str | None:
    scheme, _, credentials = header.strip().partition(" ")
    scheme = scheme.lower()
    if scheme == "bearer":
        return credentials.strip() or None
    if scheme == "basic":
        try:
            decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
        # The key is the user name; 2.3 ignores the password.
        return decoded.partition(":")[0] or None
    return None


def presented_broker(request) -> Broker | None:
    """The broker whose key the request presents. Keys that match no broker are counted per
    address (API_RATE_FAILED_KEYS): past the limit the address gets 429 before its key is
    looked at, so keys cannot be guessed at speed."""
    key = key_from_header(request.META.get("HTTP_AUTHORIZATION", ""))
    if not key:
        return None
    address, rate = client_address(request), Rate.setting("API_RATE_FAILED_KEYS")
    check("api-failed-keys", address, rate)
    broker = Broker.authenticate(key)
    if broker is None:
        hit("api-failed-keys", address, rate)
    return broker


class BrokerAuthentication(BaseAuthentication):
    """An unknown or missing key is not an error: the caller is anonymous and may read."""

    def authenticate(self, request):
        broker = presented_broker(request)
        return (broker, None) if broker else None

    def authenticate_header(self, request):
        return None


def access_token(request) -> str | None:
    """The owner token from `?acc_token=`, the X-Access-Token header or `access.token`."""
    return (
        request.query_params.get("acc_token")
        or request.META.get("HTTP_X_ACCESS_TOKEN")
        or body_token(request)
    )


def owner_among(request, objects, role: Role) -> Actor:
    """The actor owning one of `objects` (a queryset) by the presented token: one query,
    whatever their number."""
    broker = request.user
    if broker is None:
        return Actor.anonymous()
    if broker.is_auction_module:
        return Actor(Role.AUCTION, broker=broker)
    token = access_token(request)
    owned = (
        objects.filter(broker=broker, token_digest=tokens.digest(token)).first() if token else None
    )
    if owned is not None:
        return Actor(role, broker=broker, subject=owned)
    return Actor(Role.AUTHENTICATED, broker=broker)


def actor_for(request, *candidates) -> Actor:
    """The actor behind a request: the auction module for its key; else the first (role,
    object) whose owner presented its token, else an authenticated broker, else anonymous."""
    broker = request.user
    if broker is None:
        return Actor.anonymous()
    if broker.is_auction_module:
        # (it owns nothing, and may do only what the auction role may)
        return Actor(Role.AUCTION, broker=broker)
    token = access_token(request)
    if token:
        for role, subject in candidates:
            if subject.is_owned_by(broker=broker, token=token):
                return Actor(role, broker=broker, subject=subject, token=token)
    return Actor(Role.AUTHENTICATED, broker=broker)


def viewer_for(request) -> Viewer:
    """Who reads: the broker whose key is on the request, and the token it presents (a draft
    is shown to its owner alone)."""
    viewer = getattr(request, "_viewer", None)
    if viewer is None:
        viewer = request._viewer = Viewer(broker=request.user, token=access_token(request))
    return viewer


def api_context(request) -> dict:
    """The context of every representation: links are built for the request, and what a
    representation shows depends on who reads it."""
    return {"request": request, "viewer": viewer_for(request)}
