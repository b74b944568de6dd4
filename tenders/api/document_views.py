"""The documents of a tender and of its parts over the 2.3 paths (the document frame itself is
tenders/api/documents.py)."""

from core.actors import Role
from core.api.auth import actor_for

from .documents import DocumentViewSet, document_operations
from .lookup import part_of, read_tender, tender_to_change


class _PartDocumentViewSet(DocumentViewSet):
    """The documents of a part of the tender (`related`, found by the URL's `segment`): read by
    anyone, changed by its party (`party`: the tender owner unless said otherwise) as the part
    allows (tenders.documents.PartDocuments)."""

    related: str
    segment: str

    def container_for_read(self, request, tender_id, **kwargs):
        return part_of(
            read_tender(request, tender_id), self.related, kwargs[self.segment], self.segment
        )

    def container_for_write(self, request, tender_id, **kwargs):
        # Not locked here: an upload may take long, and the change locks when it is made.
        tender = tender_to_change(request, tender_id)
        part = part_of(tender, self.related, kwargs[self.segment], self.segment)
        actor = actor_for(request, self.party(tender, part))
        part.check_party(actor)
        return part, actor

    def party(self, tender, part) -> tuple:
        """(role, what its token owns) of who may change the part's documents."""
        return Role.TENDER_OWNER, tender

    def route_args(self, part):
        return [part.tender_id, part.id]


@document_operations("Bid", sealed=True)
class BidDocumentViewSet(_PartDocumentViewSet):
    """A bid's papers: the bidder's, sealed with the bid until tendering closes."""

    route, related, segment = "api:bid-document", "bids", "bid_id"

    def container_for_read(self, request, tender_id, **kwargs):
        bid = super().container_for_read(request, tender_id, **kwargs)
        noun = "bid documents" if self.action == "list" else "bid document"
        bid.check_visible(actor_for(request, self.party(bid.tender, bid)), noun)
        return bid

    def container_for_write(self, request, tender_id, **kwargs):
        bid, actor = super().container_for_write(request, tender_id, **kwargs)
        bid.check_visible(actor)  # a withdrawn bid is gone
        return bid, actor

    def party(self, tender, bid) -> tuple:
        return Role.BID_OWNER, bid


@document_operations("Award")
class AwardDocumentViewSet(_PartDocumentViewSet):
    """The decision's papers: while the tender is in qualification."""

    route, related, segment = "api:award-document", "awards", "award_id"


@document_operations("Contract")
class ContractDocumentViewSet(_PartDocumentViewSet):
    """The signed contract and its annexes."""

    route, related, segment = "api:contract-document", "contracts", "contract_id"


@document_operations("Cancellation")
class CancellationDocumentViewSet(_PartDocumentViewSet):
    """The protocol of the decision to cancel: until the tender ends."""

    route, related, segment = "api:cancellation-document", "cancellations", "cancellation_id"


@document_operations("Tender")
class TenderDocumentViewSet(DocumentViewSet):
    route = "api:tender-document"

    def container_for_read(self, request, tender_id):
        return read_tender(request, tender_id)

    def container_for_write(self, request, tender_id):
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        return tender, actor

    def route_args(self, tender):
        return [tender.id]
