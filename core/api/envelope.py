"""The 2.3 wire format: `{"data": ...}` in and out, 201 + Location + `access.token` on creates."""

import json
from functools import wraps

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import renderers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response

from core.errors import DomainError
from core.transactions import all_or_nothing


class Rendered(str):
    """JSON text this renderer wrote before (kept with its object), answered as it is."""


class JSONRenderer(renderers.JSONRenderer):
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        request = (renderer_context or {}).get("request")
        pretty = request is not None and request.query_params.get("opt_pretty")
        kept = data.get("data") if isinstance(data, dict) and len(data) == 1 else None
        if isinstance(kept, Rendered):
            if not pretty:
                # What rendering {"data": <its object>} gives, byte for byte: compact JSON.
                return b'{"data":' + kept.encode() + b"}"
            data = {"data": json.loads(kept)}
        if pretty:
            renderer_context = {**renderer_context, "indent": 4}
        return super().render(data, accepted_media_type, renderer_context)


class AlwaysJSON(BaseContentNegotiation):
    """2.3 answers JSON whatever the Accept header says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class UnsupportedContentType(DomainError):
    http_status = 415
    code = "content_type"

    def __init__(self):
        super().__init__(
            "Content-Type header should be one of ['application/json']",
            location="header",
            name="Content-Type",
        )


class BodyTooLarge(DomainError):
    http_status = 413
    code = "too_large"

    def __init__(self):
        limit = settings.API_MAX_BODY_BYTES
        super().__init__(f"Request body is larger than the limit of {limit} bytes")


class BadBody(DomainError):
    http_status = 422
    code = "bad_body"


def _parse(request):
    """The JSON body, parsed once per request: (value, None) or (None, the error to raise)."""
    if not hasattr(request, "_api_body"):
        try:
            raw = request.body
            if len(raw) > settings.API_MAX_BODY_BYTES:
                raise RequestDataTooBig
            value = json.loads(raw, parse_constant=_refuse_constant)
            depth, has_nul = _walk(value)
            if depth > MAX_DEPTH:
                raise ValueError("nested too deeply")
            # A lone surrogate escape ("\ud800") parses but cannot be stored as text.
            json.dumps(value, ensure_ascii=False).encode("utf-8")
            # Nor can a NUL ("\u0000"): PostgreSQL refuses it in text and in jsonb.
            error = BadBody("Null characters are not allowed.") if has_nul else None
            request._api_body = (None, error) if error else (value, None)
        except RequestDataTooBig:
            request._api_body = (None, BodyTooLarge())
        except (ValueError, UnicodeError, RecursionError):
            request._api_body = (None, BadBody("No JSON object could be decoded"))
    return request._api_body


# No 2.3 document nests deeper than a dozen levels.
MAX_DEPTH = 32


def _walk(value) -> tuple[int, bool]:
    """How deep a parsed body nests (counting stops past MAX_DEPTH), and whether any of its
    strings or keys holds a NUL character."""
    deepest, has_nul, stack = 0, False, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        if isinstance(item, str):
            has_nul = has_nul or "\x00" in item
        elif isinstance(item, dict):
            has_nul = has_nul or any("\x00" in key for key in item)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest, has_nul


def _refuse_constant(name):
    raise ValueError(name)


def _media_type(request) -> str:
    return (request.content_type or "").split(";")[0].strip().lower()


def body_token(request) -> str | None:
    """`access.token` from a JSON body, if the body is one and carries it."""
    if _media_type(request) != "application/json":
        return None
    value, _ = _parse(request)
    access = value.get("access") if isinstance(value, dict) else None
    token = access.get("token") if isinstance(access, dict) else None
    return token if isinstance(token, str) else None


def read_data(request) -> dict:
    """The `data` object of a JSON request body, or the 2.3 error (415, 413 or 422)."""
    if _media_type(request) != "application/json":
        raise UnsupportedContentType()
    value, error = _parse(request)
    if error is not None:
        raise error
    if not isinstance(value, dict) or not isinstance(value.get("data"), dict):
        raise BadBody("Data not available")
    return value["data"]


def answered_with_the_write(view_method):
    """Make a write and the reading of its answer one transaction. A change is answered with
    the object as it now is, which is read again after the change; were the change committed
    first, a failing read would answer 500 for a change that was made, and the client's retry
    would make it twice. In one transaction the read failing rolls the change back, and the
    client is told so (503 for the database, else 500) and may simply send it again."""

    @wraps(view_method)
    def wrapper(*args, **kwargs):
        with all_or_nothing():
            return view_method(*args, **kwargs)

    return wrapper


def ok(data) -> Response:
    return Response({"data": data})


def created(request, data, location: str, token: str | None = None) -> Response:
    body = {"data": data}
    if token is not None:
        body["access"] = {"token": token}
    return Response(body, status=201, headers={"Location": request.build_absolute_uri(location)})
