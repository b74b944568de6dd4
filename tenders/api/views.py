"""The tender registry over the 2.3 paths. Views resolve the actor, read the body, call one
model method and show the result; the rules are on the models."""

from django.urls import NoReverseMatch, reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets

from core.actors import Role
from core.api import feed
from core.api.auth import actor_for, api_context, viewer_for
from core.api.envelope import answered_with_the_write, created, ok, read_data
from core.api.lookup import child
from core.api.openapi import OWNER_TOKEN, Feed, data_of, errors, patch_of
from core.api.serializers import ABSENT
from core.errors import InvalidData, PermissionDenied
from core.reads import FeedRows
from core.schema import iso, too_many
from docservice import links
from tenders.documents import document_fields
from tenders.models import Tender
from tenders.schema import (
    MAX_DOCUMENTS,
    AwardPatchSchema,
    BidSchema,
    CancellationSchema,
    ContractPatchSchema,
    Lot,
    QuestionAnswerSchema,
    QuestionSchema,
    TenderSchema,
)

from . import stored
from .documents import DocumentViewSet, document_operations
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

FEED_PARAMETERS = [
    OpenApiParameter("offset", str, description="Where the previous page ended (next_page)."),
    OpenApiParameter(
        "limit", int, description="Objects per page: 1 to 1000, 100 with opt_fields (default 100)."
    ),
    OpenApiParameter("descending", str, description="Any non-empty value but 0: newest first."),
    OpenApiParameter("opt_fields", str, description="Comma-separated fields to add to each."),
    OpenApiParameter("mode", str, enum=["test", "_all_"], description="Test tenders, or all."),
    OpenApiParameter("opt_pretty", str, description="Indent the answer."),
]
TENDER = data_of("Tender", TenderShape)


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


def is_a_feed_page_of_parts(request) -> bool:
    """A feed page whose opt_fields name tenders' documents or parts reads its tenders whole:
    its caller has as few of them answered at once as of its writes (registered as the app is
    ready, tenders/apps.py)."""
    if request.method != "GET" or "opt_fields" not in request.GET:
        return False
    try:
        if request.path != reverse("api:tenders"):
            return False
    except NoReverseMatch:  # (the document service deployed alone has no API)
        return False
    return _reads_whole_tenders(TenderOut.known_fields(feed.opt_fields(request)))


def _reads_whole_tenders(fields: list[str]) -> bool:
    """Whether a feed page of `fields` (known ones) reads its tenders' documents or parts."""
    return not TenderOut.FROM_COLUMNS.issuperset(fields)


def _listed(request, fields: list[str]):
    """How the feed shows a tender: id and dateModified, and the opt_fields asked for (read
    from the tender's row unless one of them is shown from its parts)."""
    context = api_context(request)
    whole = not TenderOut.FROM_RELATED.isdisjoint(fields)
    with_data = not TenderOut.FROM_COLUMNS.issuperset(fields)

    def show(tender, fields: list[str]) -> dict:
        shown = {"id": tender.id, "dateModified": iso(tender.date_modified)}
        if whole:
            full = TenderOut(tender, context=context).data
            shown.update({field: full[field] for field in fields if field in full})
            return shown
        for field in fields:
            value = TenderOut.own_field(tender, field, with_data=with_data)
            if value not in ABSENT:
                shown[field] = value
        return shown

    return show


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


# The feed's pages that show only columns of the tender's row, by the tenders they list and
# the columns: read as rows in SQL written once (core/reads.py).
_FEED_ROWS: dict = {}


def _feed_rows(mode: str, columns: list[str]) -> FeedRows:
    kind = mode if mode in ("test", "_all_") else ""
    key = (kind, tuple(columns))
    if key not in _FEED_ROWS:
        where = {"published__isnull": False}
        if kind == "test":
            where["mode"] = "test"
        elif not kind:
            where["mode__ne"] = "test"
        _FEED_ROWS[key] = FeedRows("tenders.Tender", columns=columns, where=where)
    return _FEED_ROWS[key]


def _feed_listing(mode: str, fields: list[str]):
    """What a feed page reads: the rows of `mode`'s tenders (when only columns of the tender's
    row are shown), or a function building its queryset (as much of each tender as `fields`
    need)."""
    if not fields:
        # Rows, not model objects: a page shows two columns of each.
        return _feed_rows(mode, [])
    if TenderOut.FROM_COLUMNS.issuperset(fields) and "owner" not in fields:
        # Rows too: each field is shown from its own columns.
        return _feed_rows(mode, sorted(TenderOut.columns_of(fields) - {"id", "date_modified"}))
    if TenderOut.FROM_COLUMNS.issuperset(fields):
        columns, how = sorted(TenderOut.columns_of(fields)), "objects"
    elif TenderOut.FROM_RELATED.isdisjoint(fields):
        columns, how = [], "whole rows"
    else:
        columns, how = [], "with related"

    def listing():
        tenders = Tender.objects.published()
        if mode == "test":
            tenders = tenders.filter(mode="test")
        elif mode != "_all_":
            tenders = tenders.exclude(mode="test")
        unshown = tenders.UNLISTED
        if how == "objects":
            tenders = tenders.only(*columns, "id", "date_modified")
            return tenders.select_related("broker") if "owner" in fields else tenders
        if how == "whole rows":
            return tenders.select_related("broker").defer(*unshown)
        return tenders.with_related().defer(*unshown)

    return listing


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
        parameters=OWNER_TOKEN,
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
        listing = _feed_listing(request.query_params.get("mode", ""), fields)
        large = _reads_whole_tenders(fields)
        return feed.page(request, listing, _listed(request, fields), large=large)

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
        return ok(stored.read(request, tender_id))

    @answered_with_the_write
    def partial_update(self, request, tender_id):
        tender = Tender.objects.for_change(tender_id, viewer=viewer_for(request))
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        tender.patch(by=actor, data=read_data(request))
        return ok(TenderOut(_read(request, tender_id), context=api_context(request)).data)


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
        tender = _read(request, tender_id)
        tender.check_bids_visible()
        return ok(BidOut(public_bids(tender), many=True, context=api_context(request)).data)

    def create(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request)
        if not actor.is_authenticated:
            raise PermissionDenied()
        data = read_data(request)
        documents = _documents_sent(request, data.get("documents"))
        bid, token = tender.place_bid(by=actor, data=data, documents=documents)
        location = reverse("api:bid", args=[tender.id, bid.id])
        return created(request, BidOut(bid, context=api_context(request)).data, location, token)

    def retrieve(self, request, tender_id, bid_id):
        bid = _child(_read(request, tender_id), "bids", bid_id, "bid_id")
        bid.check_visible(actor_for(request, (Role.BID_OWNER, bid)))
        return ok(BidOut(bid, context=api_context(request)).data)

    def _owned(self, request, tender_id, bid_id):
        bid = _child(_find(request, tender_id), "bids", bid_id, "bid_id")
        actor = actor_for(request, (Role.BID_OWNER, bid))
        bid.check_party(actor)
        bid.check_visible(actor)  # a withdrawn bid is gone
        return bid, actor

    def partial_update(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        bid.patch(by=actor, data=read_data(request))
        return ok(BidOut(bid, context=api_context(request)).data)

    def destroy(self, request, tender_id, bid_id):
        bid, actor = self._owned(request, tender_id, bid_id)
        # 2.3 answers the removed bid as it was, its status unchanged.
        as_it_was = BidOut(bid, context=api_context(request)).data
        bid.withdraw(by=actor)
        return ok(as_it_was)


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

    @answered_with_the_write
    def partial_update(self, request, tender_id, pk):
        tender = Tender.objects.for_change(tender_id, viewer=viewer_for(request))
        obj = _child(tender, self.related, pk, self.lookup)
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
        tender = _find(request, tender_id)
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
        return ok(_read(request, tender_id).lots)

    def retrieve(self, request, tender_id, lot_id):
        return ok(_read(request, tender_id).lot(lot_id))

    def _owned(self, request, tender_id) -> tuple:
        tender = _find(request, tender_id)
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
    """Questions to the buyer: anyone known asks (Tender.ask), the owner answers
    (Tender.answer_question); reads are public."""

    def list(self, request, tender_id):
        tender = _read(request, tender_id)
        return ok(QuestionOut(tender.questions.all(), many=True).data)

    def retrieve(self, request, tender_id, question_id):
        question = _child(_read(request, tender_id), "questions", question_id, "question_id")
        return ok(QuestionOut(question).data)

    @answered_with_the_write
    def create(self, request, tender_id):
        tender = _find(request, tender_id)
        question = tender.ask(by=actor_for(request), data=read_data(request))
        location = reverse("api:question", args=[tender.id, question.id])
        return created(request, QuestionOut(question, context={"asker": True}).data, location)

    @answered_with_the_write
    def partial_update(self, request, tender_id, question_id):
        tender = _find(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        data = read_data(request)
        question = tender.answer_question(by=actor, question_id=question_id, data=data)
        return ok(QuestionOut(question).data)


class _PartDocumentViewSet(DocumentViewSet):
    """The documents of a part of the tender (`related`, found by the URL's `segment`): read by
    anyone, changed by its party (`party`: the tender owner unless said otherwise) as the part
    allows (tenders.documents.PartDocuments)."""

    related: str
    segment: str

    def container_for_read(self, request, tender_id, **kwargs):
        return _child(_read(request, tender_id), self.related, kwargs[self.segment], self.segment)

    def container_for_write(self, request, tender_id, **kwargs):
        # Not locked here: an upload may take long, and the change locks when it is made.
        tender = _find(request, tender_id)
        part = _child(tender, self.related, kwargs[self.segment], self.segment)
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
        return _read(request, tender_id)

    def container_for_write(self, request, tender_id):
        tender = _find(request, tender_id)
        actor = actor_for(request, (Role.TENDER_OWNER, tender))
        tender.check_party(actor)
        return tender, actor

    def route_args(self, tender):
        return [tender.id]
