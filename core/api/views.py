from django.conf import settings
from django.db import DatabaseError, connection
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.response import Response

from core.schema import Text

from .errors import envelope, not_found_response
from .openapi import ERROR


@extend_schema(
    operation_id="spore",
    responses={
        200: inline_serializer(
            "Spore",
            {
                "name": Text(required=True),
                "version": Text(required=True),
                "base_url": Text(required=True),
                "formats": serializers.ListField(child=Text()),
            },
        )
    },
)
@api_view(["GET", "HEAD"])
def spore(request):
    """The service description; 2.3 clients call it first (HEAD) to pick up cookies."""
    return Response(
        {
            "name": "openprocurement.api",
            "version": settings.API_VERSION,
            "base_url": request.build_absolute_uri(f"/api/{settings.API_VERSION}"),
            "formats": ["json"],
        }
    )


@extend_schema(
    operation_id="health",
    responses={
        200: inline_serializer(
            "Health", {"data": inline_serializer("HealthData", {"database": Text()})}
        ),
        503: ERROR,
    },
)
@api_view(["GET"])
def health(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        entry = {"location": "request", "name": "database", "description": "unreachable"}
        return Response(envelope([entry]), status=503)
    return Response({"data": {"database": "ok"}})


@csrf_exempt
def not_found(request, *args, **kwargs):
    """Any method on a path the API or the document service does not have. Like every view of
    the machine faces it is exempt from CSRF: they authenticate by key and token, never by a
    cookie, so there is no cross-site request to forge."""
    return not_found_response()
