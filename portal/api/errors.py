"""The one place API errors are rendered: `{"status": "error", "errors": [...]}`."""

import logging

from django.db import DatabaseError, IntegrityError, OperationalError
from django.http import JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response

from portal.errors import Conflict, DomainError

logger = logging.getLogger(__name__)

# Lock timeouts, deadlocks and serialization failures: the client should simply retry.
_RETRYABLE_SQLSTATES = {"40001", "40P01", "55P03"}


def envelope(entries: list[dict]) -> dict:
    return {"status": "error", "errors": entries}


def handler(exc, context):
    if isinstance(exc, DomainError):
        return Response(envelope(exc.entries()), status=exc.http_status, headers=exc.headers())
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
    if isinstance(exc, IntegrityError):
        return True
    cause = exc.__cause__
    if getattr(cause, "sqlstate", None) in _RETRYABLE_SQLSTATES:
        return True
    return isinstance(exc, OperationalError) and "database is locked" in str(exc)


def not_found_response() -> JsonResponse:
    entry = {"location": "url", "name": "url", "description": "Not Found"}
    return JsonResponse(envelope([entry]), status=404)


def server_error_response() -> JsonResponse:
    entry = {"location": "request", "name": "server", "description": "Internal Server Error"}
    return JsonResponse(envelope([entry]), status=500)
