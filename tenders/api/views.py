"""The tender registry over the 2.3 paths. Views resolve the actor, read the body, call one
model method and show the result; the rules are on the models."""

from django.urls import reverse
from rest_framework import viewsets

from portal.actors import Role
from portal.api import feed
from portal.api.auth import actor_for, api_context, viewer_for
from portal.api.envelope import created, ok, read_data
from portal.api.lookup import child
from portal.errors import PermissionDenied
from portal.schema import iso
from tenders.models import Tender

from .documents import DocumentViewSet
from .serializers import AwardOut, BidOut, CancellationOut, ContractOut, TenderOut, public_bids


def _child(tender, related: str, pk: str, segment: str):
    obj = child(tender, related, pk, segment)
    obj.tender = tender
    return obj


def _read(request, tender_id) -> Tender:
    """The tender brought up to date, as the reader may see it (a draft: its owner alone)."""
    return Tender.objects.current(tender_id, viewer=viewer_for(request))


def _find(request, tender_id) -> Tender:
    """The tender to change (a draft is found by its owner alone)."""
    return Tender.objects.find(tender_id, viewer=viewer_for(request))


def _listed(request):
    """How the feed shows a tender: id and dateModified, and the opt_fields asked for."""
    context = api_context(request)

    def show(tender, fields: list[str]) -> dict:
        shown = {"id": tender.id, "dateModified": iso(tender.date_modified)}
        if fields:
            full = TenderOut(tender, context=context).data
            shown.update({field: full[field] for field in fields if field in full})
        return shown

    return show


class TenderViewSet(viewsets.ViewSet):
    def list(self, request):
        tenders = Tender.objects.published().select_related("broker")
        mode = request.query_params.get("mode", "")
        if mode == "test":
            tenders = tenders.filter(mode="test")
        elif mode != "_all_":
            tenders = tenders.exclude(mode="test")
        if request.query_params.get("opt_fields"):
            tenders = tenders.with_related()
        return feed.page(request, tenders, _listed(request))

    def create(self, request):
        actor = actor_for(request)
        if not actor.is_authenticated:
            raise PermissionDenied()
        tender, token = Tender.objects.register(by=actor, data=read_data(request))
        location = reverse("api:tender", args=[tender.id])
        return created(
            request, TenderOut(_read(request, tender.id), context=api_context(request)).data,
            location, token,
        )  # fmt: skip

    def retrieve(self, request, tender_id):
        return ok(TenderOut(_read(request, tender_id), context=api_context(request)).data)

    def partial_update(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.require(actor, Role.TENDER_OWNER)
        tender.edit(by=actor, patch=read_data(request))
        return ok(TenderOut(_read(request, tender_id), context=api_context(request)).data)


class BidViewSet(viewsets.ViewSet):
    def list(self, request, tender_id):
        tender = _read(request, tender_id)
        tender.check_bids_visible()
        return ok(BidOut(public_bids(tender), many=True).data)

    def create(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request)
        if not actor.is_authenticated:
            raise PermissionDenied()
        bid, token = tender.place_bid(by=actor, data=read_data(request))
        location = reverse("api:bid", args=[tender.id, bid.id])
        return created(request, BidOut(bid).data, location, token)

    def retrieve(self, request, tender_id, bid_id):
        bid = _child(_read(request, tender_id), "bids", bid_id, "bid_id")
        bid.check_visible(actor_for(request, (Role.BID_OWNER, bid)))
        return ok(BidOut(bid).data)

    def _owned(self, request, tender_id, bid_id):
        bid = _child(_find(request, tender_id), "bids", bid_id, "bid_id")
        actor = actor_for(request, (Role.BID_OWNER, bid))
        bid.require(actor, Role.BID_OWNER)
        return bid, actor

    def partial_update(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        bid.edit(by=actor, patch=read_data(request))
        return ok(BidOut(bid).data)

    def destroy(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        bid.withdraw(by=actor)
        return ok(BidOut(bid).data)


class _OwnerPatchedViewSet(viewsets.ViewSet):
    """Awards, contracts and cancellations: public reads, PATCH by the tender owner."""

    related: str
    lookup: str
    out: type

    def list(self, request, tender_id):
        tender = _read(request, tender_id)
        objects = getattr(tender, self.related).all()
        return ok(self.out(objects, many=True, context=api_context(request)).data)

    def retrieve(self, request, tender_id, pk):
        obj = _child(_read(request, tender_id), self.related, pk, self.lookup)
        return ok(self.out(obj, context=api_context(request)).data)

    def partial_update(self, request, tender_id, pk):
        tender = _find(request, tender_id)
        obj = _child(tender, self.related, pk, self.lookup)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.require(actor, Role.TENDER_OWNER)
        obj.patch(by=actor, data=read_data(request))
        return ok(self.out(obj, context=api_context(request)).data)


class AwardViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "awards", "award_id", AwardOut


class ContractViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "contracts", "contract_id", ContractOut


class CancellationViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "cancellations", "cancellation_id", CancellationOut

    def create(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.require(actor, Role.TENDER_OWNER)
        cancellation = tender.add_cancellation(by=actor, data=read_data(request))
        location = reverse("api:cancellation", args=[tender.id, cancellation.id])
        return created(request, CancellationOut(cancellation).data, location)


class TenderDocumentViewSet(DocumentViewSet):
    route = "api:tender-document"

    def container_for_read(self, request, tender_id):
        return _read(request, tender_id)

    def container_for_write(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.require(actor, Role.TENDER_OWNER)
        return tender, actor

    def route_args(self, tender):
        return [tender.id]
