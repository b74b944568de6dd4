from django import template

from tenders import classifiers
from tenders.document_types import document_type_title

register = template.Library()


@register.filter
def document_type(version, of: str = "tender") -> str:
    """A document version's type in words: `{{ doc|document_type:"award" }}`."""
    return document_type_title(version.metadata.get("documentType", ""), of)


@register.filter
def counted(item: dict) -> str:
    """An item's quantity with its unit, in words: `{{ item|counted }}` (10 штук)."""
    return classifiers.counted(item.get("quantity"), item.get("unit"))


@register.filter
def classification_name(classification: dict) -> str:
    """A ДК 021 classification's name in the reader's language (the catalogue's), else as the
    tender wrote it: `{{ item.classification|classification_name }}`."""
    return classifiers.cpv_name(classification.get("id", "")) or classification.get(
        "description", ""
    )


# The kinds of file people know by name, by their media type (the rest: its subtype).
FILE_KINDS = {
    "application/pdf": "PDF",
    "application/msword": "Word",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
    "application/vnd.ms-excel": "Excel",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel",
    "application/vnd.oasis.opendocument.text": "ODT",
    "application/vnd.oasis.opendocument.spreadsheet": "ODS",
    "application/zip": "ZIP",
    "application/pkcs7-signature": "p7s",
    "application/json": "JSON",
    "text/plain": "TXT",
    "image/jpeg": "JPEG",
    "image/png": "PNG",
}


@register.filter
def file_kind(media_type: str) -> str:
    """A document's format as people call it: `{{ doc.format|file_kind }}` (application/pdf:
    PDF)."""
    if media_type in FILE_KINDS:
        return FILE_KINDS[media_type]
    # (image/svg+xml: SVG; application/vnd.acme.plan: PLAN)
    subtype = media_type.partition("/")[2].split("+")[0].rpartition(".")[2]
    return subtype.upper() if subtype else media_type
