"""The one place API errors are rendered: `{"status": "error", "errors": [...]}`."""

import logging

from django.db import DatabaseError, IntegrityError
from django.http import JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response

from core.errors import Conflict, DomainError, infrastructure_failure, is_retryable

logger = logging.getLogger(__name__)


def envelope(entries: list[dict]) -> dict:
    return {"status": "error", "errors": entries}


def handler(exc, context):
    if isinstance(exc, DomainError):
        return Response(envelope(exc.entries()), status=exc.http_status, headers=exc.headers())
    unavailable = infrastructure_failure(exc)
    if unavailable is not None:
        logger.error("unavailable: %r", exc)
        return handler(unavailable, context)
    if isinstance(exc, exceptions.MethodNotAllowed):
        entry = {"location": "request", "name": "method", "description": "Method not allowed"}
        return Response(envelope([entry]), status=405)
    if isinstance(exc, exceptions.APIException):
        entry = {"location": "request", "name": "data", "description": str(exc.detail)}
        return Response(envelope([entry]), status=exc.status_code)
    if isinstance(exc, DatabaseError) and _is_conflict(exc):
        logger.info("write conflict: %s", exc)
        return Response(envelope(Conflict().entries()), status=409)
    return None


def _is_conflict(exc: DatabaseError) -> bool:
    return isinstance(exc, IntegrityError) or is_retryable(exc)


def envelope_response(entries: list[dict], *, status: int, headers=None) -> JsonResponse:
    """The envelope outside DRF (function views, middleware, Django's error handlers)."""
    return JsonResponse(envelope(entries), status=status, headers=headers)


def error_response(error: DomainError) -> JsonResponse:
    return envelope_response(error.entries(), status=error.http_status, headers=error.headers())


def not_found_response() -> JsonResponse:
    entry = {"location": "url", "name": "url", "description": "Not Found"}
    return envelope_response([entry], status=404)


def server_error_response() -> JsonResponse:
    entry = {"location": "request", "name": "server", "description": "Internal Server Error"}
    return envelope_response([entry], status=500)
