from django import template

from tenders.document_types import document_type_title

register = template.Library()


@register.filter
def document_type(version, of: str = "tender") -> str:
    """A document version's type in words: `{{ doc|document_type:"award" }}`."""
    return document_type_title(version.metadata.get("documentType", ""), of)
