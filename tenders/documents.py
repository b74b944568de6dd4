"""Documents in the registry: metadata and a document-service address, never the content.

A document keeps its id across versions; each PUT appends a version. The rules of who may add
or replace a document, and when, belong to its container (Tender, Complaint); what is common to
every container is here: the request shapes, the check of a submitted document-service URL,
and the versions themselves.
"""

import re

from django.core.validators import RegexValidator
from django.db import models
from rest_framework.exceptions import ValidationError

from core.actors import Role
from core.errors import DomainError, InvalidData, NotFound, Refused
from core.ids import new_id
from core.reads import Read
from core.schema import (
    Choice,
    LongText,
    Schema,
    Text,
    md5_digest,
    to_json,
    too_many,
    validate,
)
from core.transactions import atomic_change
from docservice import links
from docservice.signing import SignatureError, keyring, permanent_message
from tenders.schema import MAX_DOCUMENTS

DOCUMENT_TYPES = [
    "tenderNotice", "awardNotice", "contractNotice", "notice", "biddingDocuments",
    "technicalSpecifications", "evaluationCriteria", "clarifications", "shortlistedFirms",
    "riskProvisions", "billOfQuantity", "bidders", "conflictOfInterest", "debarments",
    "evaluationReports", "winningBid", "complaints", "contractSigned", "contractArrangements",
    "contractSchedule", "contractAnnexe", "contractGuarantees", "subContract",
    "eligibilityCriteria", "contractProforma", "commercialProposal", "qualificationDocuments",
    "eligibilityDocuments", "registerExtract",
]  # fmt: skip
FORMAT = re.compile(r"^[-\w]+/[-.\w+]+$")
FORMAT_MAX = 255  # its column's (a media type is at most 127/127, RFC 6838)
# Metadata a PATCH may change; the content (url, hash) and dates change only with a new version.
METADATA = (
    "title", "title_en", "title_ru", "description", "description_en", "description_ru",
    "format", "documentType", "language", "documentOf", "relatedItem",
)  # fmt: skip
SERVER_FIELDS = frozenset(
    {"id", "author", "datePublished", "dateModified", "previousVersions", "confidentiality"}
)


class Format(Text):
    """A media type (a validator, so the OpenAPI description gives its pattern)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", FORMAT_MAX)
        super().__init__(**kwargs)
        self.validators.append(
            RegexValidator(FORMAT, message="String value did not match validation regex.")
        )


class Hash(Text):
    """2.3's hash errors; only MD5 binds a document to its content here."""

    def to_internal_value(self, data):
        try:
            return "md5:" + md5_digest(super().to_internal_value(data))
        except ValueError as refusal:
            raise ValidationError(str(refusal)) from None


class DocumentMetadata(Schema):
    model_name = "Document"
    server_fields = SERVER_FIELDS | {"url", "hash"}

    title = Text(allow_blank=False)
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    format = Format()
    documentType = Choice(DOCUMENT_TYPES)
    language = Text()
    documentOf = Choice(["tender", "item", "lot"])
    relatedItem = Text()

    def validate(self, attrs):
        if attrs.get("documentOf") in ("item", "lot", "change") and not attrs.get("relatedItem"):
            raise ValidationError({"relatedItem": ["This field is required."]})
        return attrs


class DocumentInput(DocumentMetadata):
    """POST or PUT with JSON: a document registered in the document service."""

    server_fields = SERVER_FIELDS
    title = Text(required=True, allow_blank=False)
    format = Format(required=True)
    url = Text(required=True)
    hash = Hash()


class ContractDocumentMetadata(DocumentMetadata):
    """A signed contract's document in contracting: of the contract or of one of its changes
    (2.3's contracting)."""

    model_name = "ContractDocument"
    documentOf = Choice(["contract", "change"])


class ContractDocumentInput(ContractDocumentMetadata, DocumentInput):
    model_name = "ContractDocument"


class HashRequired(DomainError):
    http_status = 422
    code = "hash_required"

    def __init__(self):
        super().__init__("This field is required.", name="hash")


class DocumentRefused(DomainError):
    code = "document_url"
    http_status = 422

    def __init__(self, description, *, http_status=None):
        super().__init__(description, name="url")
        if http_status:
            self.http_status = http_status


def verify_document_url(base: str, url: str, hash_: str | None) -> tuple[str, str]:
    """The (document id, md5) a client's document-service URL vouches for, with 2.3's errors:
    only URLs of our document service, signed over the id and the hash the client states."""
    parsed = links.parse(url, base)
    if parsed is None or set(parsed[1]) != {"KeyID", "Signature"}:
        raise DocumentRefused("Can add document only from document service.", http_status=403)
    if not hash_:
        raise HashRequired()
    doc_id, params = parsed
    md5 = hash_.split(":", 1)[1]
    try:
        keyring().verify(params["KeyID"], params["Signature"], permanent_message(doc_id, md5))
    except SignatureError as error:
        raise DocumentRefused(
            {
                "key": "Document url expired.",
                "encoding": "Document url signature invalid.",
                "mismatch": "Document url invalid.",
            }[error.reason]
        ) from None
    return doc_id, md5


def document_fields(data: dict, *, base: str, schema=DocumentInput) -> dict:
    """A JSON document request as model-method keywords: the content's key and md5, the title,
    the format and the rest of the metadata."""
    fields = validate(schema, data)
    key, md5 = verify_document_url(base, fields.pop("url"), fields.pop("hash", None))
    return {
        "key": key,
        "md5": md5,
        "title": fields.pop("title"),
        "format": fields.pop("format"),
        "metadata": to_json(fields),
    }


class DocumentVersion(models.Model):
    """One version of a document; versions of one document share `document_id`."""

    document_id = models.CharField(max_length=32, editable=False)
    version = models.PositiveIntegerField(editable=False)
    key = models.CharField(max_length=32, editable=False)
    md5 = models.CharField(max_length=32, editable=False)
    title = models.TextField()
    format = models.CharField(max_length=FORMAT_MAX)
    # description, documentType, language, documentOf, relatedItem and translations
    metadata = models.JSONField(default=dict, blank=True)
    author = models.CharField(max_length=32, editable=False)
    date_published = models.DateTimeField(editable=False)
    date_modified = models.DateTimeField(editable=False)

    class Meta:
        abstract = True
        ordering = ["date_modified", "version", "id"]

    def __str__(self) -> str:
        return f"{self.title} (v{self.version})"

    @property
    def hash(self) -> str:
        return f"md5:{self.md5}"

    def is_auction_protocol_of(self, lot_id: str | None = None) -> bool:
        """Is it the auction module's record of an auction (of `lot_id`'s; None: any)?"""
        if self.author != Role.AUCTION:
            return False
        return lot_id is None or self.metadata.get("relatedItem", "") == lot_id


def latest_versions(versions) -> list:
    """The newest version of each document, in the order documents were last changed."""
    newest = {}
    for version in versions:
        current = newest.get(version.document_id)
        if current is None or version.version > current.version:
            newest[version.document_id] = version
    return sorted(newest.values(), key=lambda v: (v.date_modified, v.version, v.pk))


class NotAuthor(Refused):
    code = "not_author"
    location = "url"
    name = "role"

    def __init__(self):
        super().__init__("Can update document only author")


# The query of all_document_versions, by kind of container.
_VERSIONS_OF: dict = {}


class HasDocuments:
    """What Tender and Complaint share about their documents (`self.documents`: versions).

    A container says who may change its documents and when, in `check_document_change(by,
    verb, document_id)` (returning the author role); the rest is here. Every change holds the
    tender's lock, records an audit event and moves the tender's dateModified.
    """

    def check_document_change(self, by, verb: str, document_id: str | None = None) -> str:
        raise NotImplementedError

    def lock_for_change(self):
        raise NotImplementedError

    def _documents_changed(self, version, action: str, by, now) -> None:
        raise NotImplementedError

    @property
    def documents_sealed(self) -> bool:
        """Are its documents hidden from all but their author (a bid's, until bids are
        opened)? Their address then names no content (see tenders.api.documents)."""
        return False

    def all_document_versions(self) -> list:
        """Every version of every document: as read with it (prefetched), or in one query,
        written in SQL once per kind of container (core.reads)."""
        if "documents" in getattr(self, "_prefetched_objects_cache", {}):
            return list(self.documents.all())
        read = _VERSIONS_OF.get(type(self))
        if read is None:
            relation = type(self)._meta.get_field("documents")
            read = _VERSIONS_OF[type(self)] = Read(
                relation.related_model._meta.label, where=[relation.field.attname]
            )
        return read(self.pk)

    def check_document_author(self, author: str, document_id: str) -> None:
        if self.latest_document(document_id).author != author:
            raise NotAuthor()

    def latest_document(self, document_id: str):
        versions = [v for v in self.documents.all() if v.document_id == document_id]
        if not versions:
            raise NotFound("document_id")
        return max(versions, key=lambda v: v.version)

    def document_versions(self, document_id: str) -> list:
        """Every version of one document, oldest first (404 document_id when there is none)."""
        versions = sorted(
            (v for v in self.documents.all() if v.document_id == document_id),
            key=lambda v: v.version,
        )
        if not versions:
            raise NotFound("document_id")
        return versions

    def add_document(self, *, by, key, md5, title, format, metadata):
        with atomic_change():
            now = self.lock_for_change()
            author = self.check_document_change(by, "add")
            content = {"key": key, "md5": md5, "title": title, "format": format}
            return self._new_version(by, now, None, author, metadata, content)

    def replace_document(self, *, by, document_id, key, md5, title, format, metadata):
        """PUT: a new version. It inherits what the PUT does not say (description, type...)."""
        with atomic_change():
            now = self.lock_for_change()
            self.check_document_change(by, "update", document_id)
            previous = self.latest_document(document_id)
            content = {"key": key, "md5": md5, "title": title, "format": format}
            metadata = {**previous.metadata, **metadata}
            return self._new_version(by, now, previous, previous.author, metadata, content)

    def _new_version(self, by, now, previous, author: str, metadata: dict, content: dict):
        """Store a document's first version (`previous` None) or its next one, and record it."""
        version = self.store_document_version(now, previous, author, metadata, content)
        action = "replace_document" if previous else "add_document"
        self._documents_changed(version, action, by, now)
        return version

    def store_document_version(self, now, previous, author: str, metadata: dict, content: dict):
        self._check_related_item(metadata)
        if self.documents.count() >= MAX_DOCUMENTS:
            raise too_many("documents", MAX_DOCUMENTS)
        return self.documents.create(
            document_id=previous.document_id if previous else new_id(),
            version=previous.version + 1 if previous else 1,
            metadata=metadata,
            author=author,
            date_published=previous.date_published if previous else now,
            date_modified=now,
            **content,
        )

    def edit_document(self, *, by, document_id, changes: dict):
        """PATCH: metadata only; the version's dateModified stays (it dates the content)."""
        with atomic_change():
            now = self.lock_for_change()
            self.check_document_change(by, "update", document_id)
            latest = self.latest_document(document_id)
            changes = to_json(changes)
            title = changes.pop("title", latest.title)
            format_ = changes.pop("format", latest.format)
            metadata = {**latest.metadata, **changes}
            self._check_related_item(metadata)
            if (title, format_, metadata) != (latest.title, latest.format, latest.metadata):
                latest.title, latest.format, latest.metadata = title, format_, metadata
                latest.save(update_fields=["title", "format", "metadata"])
                self._documents_changed(latest, "edit_document", by, now)
        return latest

    def _check_related_item(self, metadata: dict) -> None:
        """A document of an item or a lot names one the tender has (2.3)."""
        kind = metadata.get("documentOf")
        if kind not in ("item", "lot"):
            return
        parts = self.document_tender.data.get(f"{kind}s", [])
        if metadata.get("relatedItem") not in {part["id"] for part in parts}:
            raise InvalidData.field("relatedItem", f"relatedItem should be one of {kind}s")


class PartDocuments(HasDocuments):
    """The documents of a part of a tender (a bid, an award, a contract, a cancellation): its
    party's (the bidder's, or the tender owner's), while the part's `check_documents_open(verb)`
    lets them change; a change is recorded on the part and stamps the tender."""

    def check_documents_open(self, verb: str) -> None:
        raise NotImplementedError

    @property
    def document_tender(self):
        return self.tender

    def check_document_change(self, by, verb: str, document_id: str | None = None) -> str:
        role = self.check_party(by)
        self.check_documents_open(verb)
        if document_id:
            self.check_document_author(role, document_id)
        by.check_standing()
        return role

    def _documents_changed(self, version, action: str, by, now) -> None:
        self.record_document_change(version, action, by, now)
        self.tender.stamp_change(now)

    def record_document_change(self, version, action: str, by, now) -> None:
        self.tender.record_event(
            self, action, by, now, document_id=version.document_id, version=version.version
        )

    def attach_sent(self, by, now, documents: list[dict]) -> None:
        """The documents sent with the part's own creation (tenders.documents.document_fields'
        keywords), stored and recorded as part of it: the creation stamps the tender once."""
        for document in documents:
            content = {name: document[name] for name in ("key", "md5", "title", "format")}
            version = self.store_document_version(now, None, by.role, document["metadata"], content)
            self.record_document_change(version, "add_document", by, now)
