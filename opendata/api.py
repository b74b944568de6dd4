"""The bulk feed of releases (GET /releases): every published change of every public tender,
as release packages paged by the tenders' feed rules (core/api/feed.py: by the releases'
dateModified, followed by next_page, each release once); and the files of our own OCDS
extensions, which packages declare by their URL here."""

from urllib.parse import urlencode

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import api_view
from rest_framework.response import Response

from core.api import feed
from core.api.openapi import errors
from core.errors import NotFound

from .models import Release
from .releases import package, published_now, read
from .schema import OWN_EXTENSIONS
from .schema import read as read_schema_file

PAGING = ("offset", "limit", "descending")
PARAMETERS = [
    OpenApiParameter("offset", str, description="Where the previous page ended (next_page)."),
    OpenApiParameter("limit", int, description="Releases per page: 1 to 1000 (default 100)."),
    OpenApiParameter("descending", str, description="Any non-empty value but 0: newest first."),
]


class ReleaseFeedViewSet(viewsets.ViewSet):
    @extend_schema(
        operation_id="listReleases",
        summary="OCDS: every published change of every public tender, a release package a page",
        description="The page's releases, oldest first, in an OCDS 1.1 release package with "
        "`links.next` (and `next_page` as the 2.3 feeds have it); follow it to the end, then "
        "poll the last one: each release is seen once (README 'Open data').",
        parameters=PARAMETERS,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="An OCDS release package"),
            **errors(404, 422),
        },
    )
    def list(self, request):
        page = feed.page(
            request,
            Release.objects.all,
            lambda release, fields: read(request, release),
            large=True,
        ).data
        body = package(request, page["data"], published=published_now())
        # (the page asked: never a token or another parameter the caller sent along)
        asked = {key: request.GET[key] for key in PAGING if request.GET.get(key)}
        body["uri"] = request.build_absolute_uri(
            f"{request.path}?{urlencode(asked)}" if asked else request.path
        )
        body["links"] = {"next": page["next_page"]["uri"]}
        body["next_page"] = page["next_page"]
        if "prev_page" in page:
            body["links"]["prev"] = page["prev_page"]["uri"]
            body["prev_page"] = page["prev_page"]
        return Response(body)


@extend_schema(
    operation_id="getOcdsExtension",
    summary="OCDS: an extension of this registry's own (its extension.json, release-schema.json)",
    responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(404)},
)
@api_view(["GET", "HEAD"])
def extension_file(request, name: str, file: str):
    """The files of the extensions this registry wrote (declared by the URL of their
    extension.json, which names release-schema.json beside it)."""
    if name not in OWN_EXTENSIONS:
        raise NotFound("name")
    if file not in ("extension.json", "release-schema.json"):
        raise NotFound("file")
    return Response(read_schema_file(f"extensions/{name}/{file}"))
