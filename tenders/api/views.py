"""The tender registry over the 2.3 paths. Views resolve the actor, read the body, call one
model method and show the result; the rules are on the models."""

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.response import Response

from core.actors import Role
from core.api import feed
from core.api.auth import actor_for, api_context, viewer_for
from core.api.envelope import answered_with_the_write, created, ok, read_data
from core.api.openapi import OWNER_TOKEN, Feed, data_of, errors, patch_of
from core.errors import InvalidData, PermissionDenied
from core.schema import too_many
from docservice import links
from tenders.documents import document_fields
from tenders.models import Question, Tender
from tenders.part_schemas import (
    AwardPatchSchema,
    BidSchema,
    CancellationSchema,
    ContractPatchSchema,
    QuestionAnswerSchema,
    QuestionSchema,
)
from tenders.schema import MAX_DOCUMENTS, Lot, TenderSchema

from . import schemas, stored
from .feed import FEED_PARAMETERS, feed_listing, listed, reads_whole_tenders
from .lookup import part_of, read_tender, tender_to_change
from .serializers import (
    AwardOut,
    AwardShape,
    BidOut,
    BidShape,
    CancellationOut,
    CancellationShape,
    ContractOut,
    ContractShape,
    LotShape,
    QuestionOut,
    QuestionShape,
    TenderOut,
    TenderShape,
    public_bids,
)

TENDER = data_of("Tender", TenderShape)


def _documents_sent(request, documents) -> list[dict]:
    """The documents sent inside a POST's body (2.3 keeps those of a bid), each checked as a
    document registered by its URL; 422 names the first one refused."""
    if documents is None:
        return []
    if not isinstance(documents, list) or not all(isinstance(d, dict) for d in documents):
        raise InvalidData.field("documents", "Please use a mapping for this field or a list.")
    if len(documents) > MAX_DOCUMENTS:
        raise too_many("documents", MAX_DOCUMENTS)
    checked = []
    for document in documents:
        try:
            checked.append(document_fields(document, base=links.base_url(request)))
        except InvalidData as refused:
            raise InvalidData({"documents": [refused.errors]}) from None
    return checked


@extend_schema_view(
    list=extend_schema(
        operation_id="listTenders",
        summary="The feed: published tenders by dateModified, followed by next_page",
        parameters=FEED_PARAMETERS,
        responses={200: Feed, **errors(404, 422)},
    ),
    create=extend_schema(
        operation_id="createTender",
        summary='Register a tender (data.status "draft": a draft only its owner sees)',
        request=data_of("TenderCreate", TenderSchema),
        responses={201: data_of("TenderCreated", TenderShape, access=True), **errors(403, 422)},
    ),
    retrieve=extend_schema(
        operation_id="getTender",
        parameters=[
            *OWNER_TOKEN,
            OpenApiParameter(
                "opt_schema",
                str,
                description="ocds: the tender as an OCDS 1.1 release package (the whole body); "
                "ocds-record: as a record package, with the compiled release (README 'Open data').",
            ),
        ],
        responses={200: TENDER, **errors(404)},
    ),
    partial_update=extend_schema(
        operation_id="patchTender",
        parameters=OWNER_TOKEN,
        request=patch_of("TenderPatch", TenderSchema),
        responses={200: TENDER, **errors(403, 404, 409, 422)},
    ),
)
class TenderViewSet(viewsets.ViewSet):
    def list(self, request):
        fields = TenderOut.known_fields(feed.opt_fields(request))
        listing = feed_listing(request.query_params.get("mode", ""), fields)
        large = reads_whole_tenders(fields)
        return feed.page(request, listing, listed(request, fields), large=large)

    @answered_with_the_write
    def create(self, request):
        actor = actor_for(request)
        if not actor.is_authenticated:
            raise PermissionDenied()
        tender, token = Tender.objects.register(by=actor, data=read_data(request))
        location = reverse("api:tender", args=[tender.id])
        # Rendered from what was just written (its first read keeps the representation).
        data = TenderOut(tender, context=api_context(request)).data
        return created(request, data, location, token)

    def retrieve(self, request, tender_id):
        other = schemas.asked(request)
        if other is not None:
            return Response(other(request, tender_id))
        return ok(stored.read(request, tender_id))

    @answered_with_the_write
    def partial_update(self, request, tender_id):
        tender = Tender.objects.for_change(tender_id, viewer=viewer_for(request))
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        tender.patch(by=actor, data=read_data(request))
        return ok(TenderOut(read_tender(request, tender_id), context=api_context(request)).data)


BID = data_of("Bid", BidShape)


@extend_schema_view(
    list=extend_schema(
        operation_id="listBids",
        summary="The bids, once tendering has closed",
        responses={200: data_of("Bids", BidShape, many=True), **errors(403, 404)},
    ),
    create=extend_schema(
        operation_id="placeBid",
        request=data_of("BidCreate", BidSchema),
        responses={201: data_of("BidPlaced", BidShape, access=True), **errors(403, 404, 422)},
    ),
    retrieve=extend_schema(
        operation_id="getBid",
        summary="A bid: its owner's alone until tendering closes",
        parameters=OWNER_TOKEN,
        responses={200: BID, **errors(403, 404)},
    ),
    partial_update=extend_schema(
        operation_id="patchBid",
        parameters=OWNER_TOKEN,
        request=patch_of("BidPatch", BidSchema),
        responses={200: BID, **errors(403, 404, 409, 422)},
    ),
    destroy=extend_schema(
        operation_id="withdrawBid",
        description="Withdraws the bid while tendering is open. The answer is the bid as it "
        "was (its status unchanged, as 2.3 answers); from then on the bid is gone from every "
        "path (404).",
        parameters=OWNER_TOKEN,
        responses={200: BID, **errors(403, 404, 409)},
    ),
)
class BidViewSet(viewsets.ViewSet):
    def list(self, request, tender_id):
        tender = read_tender(request, tender_id)
        tender.check_bids_visible()
        return ok(BidOut(public_bids(tender), many=True, context=api_context(request)).data)

    def create(self, request, tender_id):
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request)
        if not actor.is_authenticated:
            raise PermissionDenied()
        data = read_data(request)
        documents = _documents_sent(request, data.get("documents"))
        bid, token = tender.place_bid(by=actor, data=data, documents=documents)
        location = reverse("api:bid", args=[tender.id, bid.id])
        return created(request, self._shown(request, bid), location, token)

    def retrieve(self, request, tender_id, bid_id):
        bid = part_of(read_tender(request, tender_id), "bids", bid_id, "bid_id")
        actor = actor_for(request, (Role.BID_OWNER, bid))
        bid.check_visible(actor)
        return ok(self._shown(request, bid, to_its_owner=actor.acts_as(Role.BID_OWNER, bid)))

    @staticmethod
    def _shown(request, bid, *, to_its_owner: bool = True) -> dict:
        return BidOut(bid, context={**api_context(request), "to_its_owner": to_its_owner}).data

    def _owned(self, request, tender_id, bid_id):
        bid = part_of(tender_to_change(request, tender_id), "bids", bid_id, "bid_id")
        actor = actor_for(request, (Role.BID_OWNER, bid))
        bid.check_party(actor)
        bid.check_visible(actor)  # a withdrawn bid is gone
        return bid, actor

    def partial_update(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        bid.patch(by=actor, data=read_data(request))
        return ok(self._shown(request, bid))

    def destroy(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        # 2.3 answers the removed bid as it was, its status unchanged.
        as_it_was = self._shown(request, bid)
        bid.withdraw(by=actor)
        return ok(as_it_was)


class _OwnerPatchedViewSet(viewsets.ViewSet):
    """Awards, contracts and cancellations: public reads, PATCH by the tender owner."""

    related: str
    lookup: str
    out: type

    def list(self, request, tender_id):
        tender = read_tender(request, tender_id)
        objects = getattr(tender, self.related).all()
        return ok(self.out(objects, many=True, context=api_context(request)).data)

    def retrieve(self, request, tender_id, pk):
        obj = part_of(read_tender(request, tender_id), self.related, pk, self.lookup)
        return ok(self.out(obj, context=api_context(request)).data)

    @answered_with_the_write
    def partial_update(self, request, tender_id, pk):
        tender = Tender.objects.for_change(tender_id, viewer=viewer_for(request))
        obj = part_of(tender, self.related, pk, self.lookup)
        obj.mark_locked()
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        obj.check_party(actor)
        # (an award made by time as the tender was locked is not this decision's)
        tender.awarded_next = None
        obj.patch(by=actor, data=read_data(request))
        response = ok(self.out(obj, context=api_context(request)).data)
        following = getattr(tender, "awarded_next", None)
        if following is not None:
            # 2.3: a decision that gave the next bid a pending award points at that award.
            location = reverse("api:award", args=[tender.id, following.id])
            response["Location"] = request.build_absolute_uri(location)
        return response


def owner_patched(name: str, shape, schema, *, plural: str):
    """The operations of a part of the tender that its owner PATCHes."""
    one = data_of(name, shape)
    return extend_schema_view(
        list=extend_schema(
            operation_id=f"list{plural}",
            responses={200: data_of(plural, shape, many=True), **errors(404)},
        ),
        retrieve=extend_schema(operation_id=f"get{name}", responses={200: one, **errors(404)}),
        partial_update=extend_schema(
            operation_id=f"patch{name}",
            parameters=OWNER_TOKEN,
            request=data_of(f"{name}Patch", schema),
            responses={200: one, **errors(403, 404, 409, 422)},
        ),
    )


@owner_patched("Award", AwardShape, AwardPatchSchema, plural="Awards")
class AwardViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "awards", "award_id", AwardOut


@owner_patched("Contract", ContractShape, ContractPatchSchema, plural="Contracts")
class ContractViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "contracts", "contract_id", ContractOut


@owner_patched("Cancellation", CancellationShape, CancellationSchema, plural="Cancellations")
@extend_schema_view(
    create=extend_schema(
        operation_id="cancelTender",
        summary="Cancel the tender: a pending cancellation, active once its owner says so",
        parameters=OWNER_TOKEN,
        request=data_of("CancellationCreate", CancellationSchema),
        responses={
            201: data_of("CancellationMade", CancellationShape),
            **errors(403, 404, 409, 422),
        },
    )
)
class CancellationViewSet(_OwnerPatchedViewSet):
    related, lookup, out = "cancellations", "cancellation_id", CancellationOut

    def create(self, request, tender_id):
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        cancellation = tender.add_cancellation(by=actor, data=read_data(request))
        location = reverse("api:cancellation", args=[tender.id, cancellation.id])
        data = CancellationOut(cancellation, context=api_context(request)).data
        return created(request, data, location)


LOT = data_of("Lot", LotShape)


@extend_schema_view(
    list=extend_schema(
        operation_id="listLots",
        responses={200: data_of("Lots", LotShape, many=True), **errors(404)},
    ),
    retrieve=extend_schema(operation_id="getLot", responses={200: LOT, **errors(404)}),
    create=extend_schema(
        operation_id="addLot",
        summary="Add a lot while the tender is a draft or in enquiries",
        parameters=OWNER_TOKEN,
        request=data_of("LotCreate", Lot),
        responses={201: LOT, **errors(403, 404, 409, 422)},
    ),
    partial_update=extend_schema(
        operation_id="patchLot",
        parameters=OWNER_TOKEN,
        request=patch_of("LotPatch", Lot),
        responses={200: LOT, **errors(403, 404, 409, 422)},
    ),
    destroy=extend_schema(
        operation_id="deleteLot",
        description="Removes the lot while the tender is a draft or in enquiries, unless an "
        "item still points at it (422); the answer is the lot as it was.",
        parameters=OWNER_TOKEN,
        responses={200: LOT, **errors(403, 404, 409, 422)},
    ),
)
class LotViewSet(viewsets.ViewSet):
    """A tender's lots: public reads; the tender owner adds, changes and removes them before
    tendering starts (Tender.add_lot, patch_lot, delete_lot)."""

    def list(self, request, tender_id):
        return ok(read_tender(request, tender_id).lots)

    def retrieve(self, request, tender_id, lot_id):
        return ok(read_tender(request, tender_id).lot(lot_id))

    def _owned(self, request, tender_id) -> tuple:
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        return tender, actor

    def create(self, request, tender_id):
        tender, actor = self._owned(request, tender_id)
        lot = tender.add_lot(by=actor, data=read_data(request))
        return created(request, lot, reverse("api:lot", args=[tender.id, lot["id"]]))

    def partial_update(self, request, tender_id, lot_id):
        tender, actor = self._owned(request, tender_id)
        return ok(tender.patch_lot(by=actor, lot_id=lot_id, data=read_data(request)))

    def destroy(self, request, tender_id, lot_id):
        tender, actor = self._owned(request, tender_id)
        return ok(tender.delete_lot(by=actor, lot_id=lot_id))


QUESTION = data_of("Question", QuestionShape)


@extend_schema_view(
    list=extend_schema(
        operation_id="listQuestions",
        summary="Questions to the buyer and its answers (who asked: once bids are opened)",
        responses={200: data_of("Questions", QuestionShape, many=True), **errors(404)},
    ),
    retrieve=extend_schema(operation_id="getQuestion", responses={200: QUESTION, **errors(404)}),
    create=extend_schema(
        operation_id="askQuestion",
        summary="Ask a question (any broker) during the enquiry period",
        request=data_of("QuestionCreate", QuestionSchema),
        responses={201: QUESTION, **errors(403, 404, 422)},
    ),
    partial_update=extend_schema(
        operation_id="answerQuestion",
        summary="Answer a question (the tender owner) until tendering starts",
        parameters=OWNER_TOKEN,
        request=data_of("QuestionAnswer", QuestionAnswerSchema),
        responses={200: QUESTION, **errors(403, 404, 409, 422)},
    ),
)
class QuestionViewSet(viewsets.ViewSet):
    """Questions to the buyer: anyone known asks (Question.objects.ask), the owner answers
    (Question.objects.answer); reads are public."""

    def list(self, request, tender_id):
        tender = read_tender(request, tender_id)
        return ok(QuestionOut(tender.questions.all(), many=True).data)

    def retrieve(self, request, tender_id, question_id):
        question = part_of(read_tender(request, tender_id), "questions", question_id, "question_id")
        return ok(QuestionOut(question).data)

    @answered_with_the_write
    def create(self, request, tender_id):
        tender = tender_to_change(request, tender_id)
        question = Question.objects.ask(
            tender=tender, by=actor_for(request), data=read_data(request)
        )
        location = reverse("api:question", args=[tender.id, question.id])
        return created(request, QuestionOut(question, context={"asker": True}).data, location)

    @answered_with_the_write
    def partial_update(self, request, tender_id, question_id):
        tender = tender_to_change(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        data = read_data(request)
        question = Question.objects.answer(
            tender=tender, by=actor, question_id=question_id, data=data
        )
        return ok(QuestionOut(question).data)
