"""The auction module's paths (2.3): /tenders/{id}/auction and /tenders/{id}/auction/{lot_id}.
Only a key with the auction role may use them (Tender.auction_view, report_auction_urls,
record_auction_results hold the rules)."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from core.api.auth import actor_for, api_context
from core.api.envelope import answered_with_the_write, ok, read_data
from core.api.openapi import data_of, errors
from tenders.models.auction_routes import AuctionReport

from .lookup import read_tender, tender_to_change
from .serializers import TenderOut, TenderShape


class AuctionViewShape(serializers.Serializer):
    """What the auction module reads: the tender's id and tenderID, dateModified, items,
    minimalStep, features, submissionMethodDetails, the auction's period and link (or each
    lot's), and every bid taking part with its prices, parameters and links."""

    id = serializers.CharField()
    tenderID = serializers.CharField()
    dateModified = serializers.CharField()
    bids = serializers.ListField(child=serializers.DictField())
    lots = serializers.ListField(child=serializers.DictField(), required=False)
    auctionPeriod = serializers.DictField(required=False)
    auctionUrl = serializers.CharField(required=False)


AUCTION_VIEW = data_of("AuctionView", AuctionViewShape)
REPORT = data_of("AuctionReportBody", AuctionReport)
AFTER_RESULTS = data_of("TenderAfterAuction", TenderShape)


def _operations(of: str, lot: str):
    """The three operations' descriptions (`of`: how their ids end; `lot`: what they are of)."""
    return extend_schema_view(
        retrieve=extend_schema(
            operation_id=f"getAuction{of}",
            summary=f"The auction module's view of {lot}, while the tender is in active.auction",
            responses={200: AUCTION_VIEW, **errors(403, 404)},
        ),
        partial_update=extend_schema(
            operation_id=f"patchAuction{of}",
            summary=f"The auction module reports the links of {lot}: the auction's and each bid's",
            request=REPORT,
            responses={200: AUCTION_VIEW, **errors(403, 404, 422)},
        ),
        create=extend_schema(
            operation_id=f"postAuctionResults{of}",
            summary=f"The auction module reports the results of {lot}: each bid's final price",
            request=REPORT,
            responses={200: AFTER_RESULTS, **errors(403, 404, 422)},
        ),
    )


@_operations("", "the tender's auction (every lot's, on a lot tender)")
class AuctionViewSet(viewsets.ViewSet):
    def retrieve(self, request, tender_id, lot_id=None):
        tender = read_tender(request, tender_id)
        return ok(tender.auction_view(by=actor_for(request), lot_id=lot_id))

    @answered_with_the_write
    def partial_update(self, request, tender_id, lot_id=None):
        tender, actor = self._reported(request, tender_id, lot_id, "report_auction_urls")
        return ok(tender.auction_view(by=actor, lot_id=lot_id))

    @answered_with_the_write
    def create(self, request, tender_id, lot_id=None):
        tender, _actor = self._reported(request, tender_id, lot_id, "record_auction_results")
        return ok(TenderOut(tender, context=api_context(request)).data)

    @staticmethod
    def _reported(request, tender_id, lot_id, report: str) -> tuple:
        """The module's report (`report`: the Tender method taking it) made; the tender as it
        is read then, and the module as the actor."""
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request)
        tender.check_auction_module(actor)  # (before the body is read, as 2.3)
        getattr(tender, report)(by=actor, data=read_data(request), lot_id=lot_id)
        return read_tender(request, tender_id), actor


@_operations("OfLot", "a lot's auction")
class LotAuctionViewSet(AuctionViewSet):
    """The same, for one lot's auction."""
