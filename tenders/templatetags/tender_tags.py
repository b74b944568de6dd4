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
