"""Documents over the 2.3 paths, for any container (a tender, a claim).

POST and PUT take JSON (a document-service URL with its hash) or a multipart `file`, which the
registry stores through the document service itself. PATCH changes metadata. GET lists the
latest versions (`?all=1`: every version); GET one adds `previousVersions`, and
`?download=<key>` redirects to a freshly signed document-service URL.
"""

from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.urls import reverse
from rest_framework import viewsets

from core.actors import Role
from core.api.envelope import created, ok, read_data
from core.api.serializers import Out
from core.errors import DomainError, NotFound
from core.schema import Choice, IsoDateTime, Shape, Text, iso, validate
from docservice import client, links
from tenders.documents import DocumentInput, DocumentMetadata, document_fields, latest_versions


class DocumentShape(Shape, DocumentMetadata):
    """What DocumentOut shows, for the OpenAPI description."""

    always = ("id", "title", "format", "url", "hash", "author", "datePublished", "dateModified")

    id = Text()
    title = Text()
    format = Text()
    url = Text(
        help_text="Where the content is: a signed document-service URL; a sealed bid's "
        "document (until bids are opened): this API's own address with ?download=<key>, "
        "which redirects its bidder alone."
    )
    hash = Text()
    author = Choice(
        [Role.TENDER_OWNER, Role.BID_OWNER, Role.COMPLAINT_OWNER, Role.CONTRACT_OWNER, Role.AUCTION]
    )
    datePublished = IsoDateTime()
    dateModified = IsoDateTime()
    # (a signed contract's documents are of the contract or of one of its changes)
    documentOf = Choice(["tender", "item", "lot", "contract", "change"])


class DocumentWithVersionsShape(DocumentShape):
    previousVersions = DocumentShape(many=True, help_text="Older versions, oldest first.")


def sealed_address(request, bid, version) -> str:
    """A sealed bid's document as 2.3 answers it: the API's own address, whose `?download=`
    asks who reads before it redirects to the content (only the bidder, until bids are
    opened)."""
    path = reverse("api:bid-document", args=[bid.tender_id, bid.pk, version.document_id])
    return request.build_absolute_uri(f"{path}?{urlencode({'download': version.key})}")


class DocumentOut(Out):
    """A document version; `context["container"]`: whose it is (a sealed container's are
    answered with the API's address, any other with a signed document-service URL)."""

    def represent(self, version):
        request = self.context["request"]
        container = self.context["container"]
        if container.documents_sealed:
            url = sealed_address(request, container, version)
        else:
            url = links.registry_url(request, version.key, version.md5)
        return {
            "id": version.document_id,
            "title": version.title,
            "format": version.format,
            "hash": version.hash,
            "url": url,
            "author": version.author,
            "documentOf": "tender",
            **version.metadata,
            "datePublished": iso(version.date_published),
            "dateModified": iso(version.date_modified),
        }


def document_operations(
    owner: str,
    sealed: bool = False,
    *,
    input_schema=DocumentInput,
    metadata_schema=DocumentMetadata,
):
    """The document operations of a container (`owner`: Tender, Complaint) for the OpenAPI
    description: JSON (a document-service URL with its hash) or a multipart `file`. A sealed
    container's documents (a bid's) are refused 403 to readers until bids are opened."""
    from drf_spectacular.utils import (
        OpenApiParameter,
        OpenApiResponse,
        extend_schema,
        extend_schema_view,
        inline_serializer,
    )
    from rest_framework import serializers

    from core.api.openapi import OWNER_TOKEN, data_of, errors

    content = {
        "application/json": data_of(f"{owner}DocumentCreate", input_schema),
        "multipart/form-data": inline_serializer(
            name=f"{owner}DocumentFile", fields={"file": serializers.FileField()}
        ),
    }
    one = data_of(f"{owner}Document", DocumentShape)
    refused = errors(403, 404, 409, 422)
    unread = errors(403, 404) if sealed else errors(404)
    return extend_schema_view(
        list=extend_schema(
            operation_id=f"list{owner}Documents",
            parameters=[OpenApiParameter("all", str, description="1: every version")],
            responses={200: data_of(f"{owner}Documents", DocumentShape, many=True), **unread},
        ),
        create=extend_schema(
            operation_id=f"add{owner}Document",
            parameters=OWNER_TOKEN,
            request=content,
            responses={201: one, **refused},
        ),
        retrieve=extend_schema(
            operation_id=f"get{owner}Document",
            parameters=[
                OpenApiParameter("download", str, description="A version's key: redirect to it"),
            ],
            responses={
                200: data_of(f"{owner}DocumentVersions", DocumentWithVersionsShape),
                302: OpenApiResponse(
                    description="?download=: a short-lived signed document-service URL"
                ),
                **unread,
            },
        ),
        update=extend_schema(
            operation_id=f"replace{owner}Document",
            summary="A new version of the document",
            parameters=OWNER_TOKEN,
            request=content,
            responses={200: one, **refused},
        ),
        partial_update=extend_schema(
            operation_id=f"patch{owner}Document",
            summary="Change the metadata of the latest version",
            parameters=OWNER_TOKEN,
            request=data_of(f"{owner}DocumentPatch", metadata_schema),
            responses={200: one, **refused},
        ),
    )


def documents_of(container, context) -> list:
    """The documents shown inside their container's representation: every version, in the
    order they were published (2.3 appends a document's new version to the list, where its
    older versions stay; GET .../documents shows the newest of each)."""
    return DocumentOut(
        container.all_document_versions(), many=True, context={**context, "container": container}
    ).data


def _is_multipart(request) -> bool:
    return (request.content_type or "").startswith("multipart/form-data")


class DocumentViewSet(viewsets.ViewSet):
    """Subclasses say how to find the container for reading and for writing, who acts, and the
    name of the route of one document."""

    route: str
    # What a document's JSON may say (a signed contract's differs: contracting's).
    input_schema = DocumentInput
    metadata_schema = DocumentMetadata

    def container_for_read(self, request, **kwargs):
        """The container as `request`'s reader may see it (404 for a draft of another)."""
        raise NotImplementedError

    def container_for_write(self, request, **kwargs):
        """(container, actor), having checked that the actor is a party that may write."""
        raise NotImplementedError

    def route_args(self, container) -> list:
        raise NotImplementedError

    def _out(self, request, container, version) -> dict:
        return DocumentOut(version, context={"request": request, "container": container}).data

    def list(self, request, **kwargs):
        container = self.container_for_read(request, **kwargs)
        versions = container.documents.all()
        if request.query_params.get("all", "").lower() not in ("1", "true", "yes"):
            versions = latest_versions(versions)
        context = {"request": request, "container": container}
        return ok(DocumentOut(versions, many=True, context=context).data)

    def retrieve(self, request, pk, **kwargs):
        container = self.container_for_read(request, **kwargs)
        versions = container.document_versions(pk)
        key = request.query_params.get("download")
        if key is not None:
            if key not in {version.key for version in versions}:
                raise NotFound("download")
            return HttpResponseRedirect(links.registry_download_url(request, key))
        data = self._out(request, container, versions[-1])
        data["previousVersions"] = [
            self._out(request, container, version) for version in versions[:-1]
        ]
        return ok(data)

    def _content(self, request, container, actor, verb: str, document_id: str | None = None):
        """The new content's fields (key, md5, title, format, metadata), from a JSON body or a
        multipart file; returns (fields, stored) where `stored` is content this request put in
        the document service and must be discarded if the change is refused."""
        if not _is_multipart(request):
            return (
                document_fields(
                    read_data(request), base=links.base_url(request), schema=self.input_schema
                ),
                None,
            )
        # Refuse before reading a byte when the change would be refused anyway.
        container.check_document_change(actor, verb, document_id)
        stored = client.store_upload(request, actor)
        return stored.fields(), stored

    def create(self, request, **kwargs):
        container, actor = self.container_for_write(request, **kwargs)
        fields, stored = self._content(request, container, actor, "add")
        try:
            version = container.add_document(by=actor, **fields)
        except DomainError:
            if stored:
                stored.discard()
            raise
        location = reverse(self.route, args=[*self.route_args(container), version.document_id])
        return created(request, self._out(request, container, version), location)

    def update(self, request, pk, **kwargs):
        container, actor = self.container_for_write(request, **kwargs)
        container.latest_document(pk)
        fields, stored = self._content(request, container, actor, "update", pk)
        try:
            version = container.replace_document(by=actor, document_id=pk, **fields)
        except DomainError:
            if stored:
                stored.discard()
            raise
        return ok(self._out(request, container, version))

    def partial_update(self, request, pk, **kwargs):
        container, actor = self.container_for_write(request, **kwargs)
        container.latest_document(pk)
        changes = validate(self.metadata_schema, read_data(request))
        version = container.edit_document(by=actor, document_id=pk, changes=changes)
        return ok(self._out(request, container, version))
