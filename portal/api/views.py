from django.conf import settings
from django.db import DatabaseError, connection
from rest_framework.decorators import api_view
from rest_framework.response import Response

from .errors import envelope, not_found_response


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


@api_view(["GET"])
def health(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        entry = {"location": "request", "name": "database", "description": "unreachable"}
        return Response(envelope([entry]), status=503)
    return Response({"data": {"database": "ok"}})


def not_found(request, *args, **kwargs):
    return not_found_response()
