"""How the API finds the tender a URL names, and the part of it."""

from core.api.auth import viewer_for
from core.api.lookup import child
from tenders.models import Tender


def part_of(tender, related: str, pk: str, segment: str):
    obj = child(tender, related, pk, segment)
    obj.tender = tender
    return obj


def read_tender(request, tender_id) -> Tender:
    """The tender brought up to date, as the reader may see it (a draft: its owner alone)."""
    return Tender.objects.current(tender_id, viewer=viewer_for(request))


def tender_to_change(request, tender_id) -> Tender:
    """The tender to change (a draft is found by its owner alone)."""
    return Tender.objects.find(tender_id, viewer=viewer_for(request))
