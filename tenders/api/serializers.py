"""How tenders and their parts look on the wire (2.3)."""

from functools import cache
from typing import ClassVar

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.serializers import Out, compact
from core.schema import Choice, IsoDateTime, LongText, Schema, Shape, Text, iso
from tenders.api.documents import DocumentShape, documents_of
from tenders.extensions import AWARD_PARTS, TENDER_PARTS
from tenders.models import (
    AwardStatus,
    BidStatus,
    CancellationStatus,
    ContractStatus,
    LotStatus,
    TenderStatus,
    auction_fields,
    participation_url,
)
from tenders.part_schemas import (
    AwardPatchSchema,
    BidSchema,
    CancellationSchema,
    ContractPatchSchema,
    LotValue,
    QuestionSchema,
)
from tenders.schema import Lot, Organization, TenderSchema, Value


def with_links(bid) -> list[dict]:
    """A bid's lot offers, each with where its bidder enters the lot's auction."""
    offers = without_links(bid.lot_values)
    for offer in offers:
        if link := participation_url(bid, offer["relatedLot"]):
            offer["participationUrl"] = link
    return offers


def without_links(offers: list[dict]) -> list[dict]:
    return [{k: v for k, v in offer.items() if k != "participationUrl"} for offer in offers]


def period(start, end) -> dict:
    return compact({"startDate": iso(start), "endDate": iso(end)})


class BidOut(Out):
    """A bid; where its bidder enters the auction (participationUrl) is shown to its owner
    alone (`context["to_its_owner"]`)."""

    def represent(self, bid):
        own = self.context.get("to_its_owner", False)
        return {
            "id": bid.id,
            "status": bid.status,
            "date": iso(bid.date),
            "value": bid.value,
            "lotValues": with_links(bid) if own else without_links(bid.lot_values),
            "participationUrl": (participation_url(bid, None) or None) if own else None,
            "parameters": bid.parameters,
            "tenderers": bid.tenderers,
            "documents": documents_of(bid, self.context),
        }


class QuestionOut(Out):
    """A question; who asked is left out until bids are opened (2.3), except in the answer to
    the asker's own POST (`context["asker"]`)."""

    def represent(self, question):
        shown = self.context.get("asker") or question.asker_shown(question.tender.status)
        return {
            "id": question.id,
            "author": question.author if shown else None,
            "title": question.title,
            "description": question.description,
            "date": iso(question.date),
            "answer": question.answer,
            "questionOf": question.question_of,
            "relatedItem": question.related_item,
            "dateAnswered": iso(question.date_answered),
        }


class AwardOut(Out):
    def represent(self, award):
        return {
            **award.data,
            "id": award.id,
            "bid_id": award.bid_id,
            "lotID": award.lot_id,
            "status": award.status,
            "date": iso(award.date),
            "value": award.value,
            "suppliers": award.suppliers,
            "complaintPeriod": period(award.complaint_period_start, award.complaint_period_end),
            "documents": documents_of(award, self.context),
            **{name: part(award, self.context) for name, part in AWARD_PARTS.items()},
        }


class ContractOut(Out):
    def represent(self, contract):
        return {
            **contract.data,
            "id": contract.id,
            "awardID": contract.award_id,
            "contractID": contract.contract_id,
            "status": contract.status,
            "date": iso(contract.date),
            "dateSigned": iso(contract.date_signed),
            "documents": documents_of(contract, self.context),
        }


class CancellationOut(Out):
    def represent(self, cancellation):
        return {
            **cancellation.data,
            "id": cancellation.id,
            "reason": cancellation.reason,
            "status": cancellation.status,
            "date": iso(cancellation.date),
            "documents": documents_of(cancellation, self.context),
        }


def public_bids(tender) -> list:
    """The bids anyone may see: none while sealed, then those that took part."""
    if not tender.bids_are_public:
        return []
    return tender.active_bids()


class TenderOut(Out):
    """The whole tender; expects bids, awards, contracts and cancellations prefetched."""

    # The fields shown from other rows than the tender's own (the feed loads them only when
    # its opt_fields ask for one).
    FROM_RELATED = frozenset(
        {"numberOfBids", "bids", "awards", "contracts", "cancellations", "documents",
         "questions", "complaints", "auctionPeriod", "auctionUrl", "lots"}
    )  # fmt: skip

    # The fields shown from the tender's columns: field -> (the columns it is read from, how it
    # is shown). The fields of `data` stand between the two groups, as in 2.3's order.
    BEFORE_DATA: ClassVar[dict] = {
        "id": (("id",), lambda t: t.id),
        "tenderID": (("tender_id",), lambda t: t.tender_id),
        "status": (("status",), lambda t: t.status),
        "owner": (("broker__name",), lambda t: t.owner_name),
        "date": (("date",), lambda t: iso(t.date)),
        "dateModified": (("date_modified",), lambda t: iso(t.date_modified)),
        "title": (("title",), lambda t: t.title),
    }
    AFTER_DATA: ClassVar[dict] = {
        "description": (("description",), lambda t: t.description),
        "mode": (("mode",), lambda t: t.mode),
        "procurementMethodDetails": (
            ("procurement_method_details",), lambda t: t.procurement_method_details,
        ),
        "enquiryPeriod": (
            ("enquiry_start", "enquiry_end"), lambda t: period(t.enquiry_start, t.enquiry_end),
        ),
        "tenderPeriod": (
            ("tender_start", "tender_end"), lambda t: period(t.tender_start, t.tender_end),
        ),
        "awardPeriod": (
            ("award_period_start", "award_period_end"),
            lambda t: period(t.award_period_start, t.award_period_end),
        ),
        "next_check": (("next_check",), lambda t: iso(t.next_check)),
    }  # fmt: skip
    FROM_COLUMNS = frozenset(BEFORE_DATA) | frozenset(AFTER_DATA)

    @classmethod
    def own_fields(cls, tender) -> dict:
        """What the tender's row alone shows, in the order of the full representation."""
        return {
            **{name: show(tender) for name, (_columns, show) in cls.BEFORE_DATA.items()},
            **tender.data,
            **{name: show(tender) for name, (_columns, show) in cls.AFTER_DATA.items()},
        }

    @classmethod
    def own_field(cls, tender, name: str, *, with_data: bool = True):
        """One field of `own_fields` (`with_data` False: `data` not loaded, nor asked for)."""
        if name in cls.AFTER_DATA:
            return cls.AFTER_DATA[name][1](tender)
        if with_data and name in tender.data:
            return tender.data[name]
        if name in cls.BEFORE_DATA:
            return cls.BEFORE_DATA[name][1](tender)
        return None

    @classmethod
    def known_fields(cls, names) -> list[str]:
        """The names among `names` that a tender's representation may have: the feed reads
        nothing for any other (opt_fields=x read every tender of a page whole, to show
        nothing)."""
        return [name for name in names if name in cls._every_field()]

    @classmethod
    @cache
    def _every_field(cls) -> frozenset[str]:
        # (what the description says a tender shows; the parts are registered as the apps are
        # ready, before anything asks)
        return (
            cls.FROM_COLUMNS
            | cls.FROM_RELATED
            | set(TenderShape().fields)
            | set(TENDER_PARTS.names())
        )

    @classmethod
    def columns_of(cls, names) -> set[str]:
        """The columns the fields `names` (all in FROM_COLUMNS) are read from."""
        table = {**cls.BEFORE_DATA, **cls.AFTER_DATA}
        return {column for name in names for column in table[name][0]}

    @staticmethod
    def with_auctions(tender, shown: dict) -> dict:
        """`shown` (own_fields) with what the auctions show: the tender's auctionPeriod and
        auctionUrl, or each lot's."""
        own, by_lot = auction_fields(tender, timezone.now())
        if "lots" in shown:
            shown["lots"] = [{**lot, **by_lot.get(lot["id"], {})} for lot in shown["lots"]]
        return {**shown, **own}

    def represent(self, tender):
        bids = public_bids(tender)
        return {
            **self.with_auctions(tender, self.own_fields(tender)),
            "numberOfBids": len(bids) if tender.bids_are_public else None,
            "bids": BidOut(bids, many=True, context=self.context).data,
            "awards": AwardOut(tender.awards.all(), many=True, context=self.context).data,
            "contracts": ContractOut(tender.contracts.all(), many=True, context=self.context).data,
            "cancellations": CancellationOut(
                tender.cancellations.all(), many=True, context=self.context
            ).data,
            "documents": documents_of(tender, self.context),
            "questions": QuestionOut(tender.questions.all(), many=True, context=self.context).data,
            **{name: part(tender, self.context) for name, part in TENDER_PARTS.items()},
        }


# --- what the representations above look like, for the OpenAPI description -----------------
# Each shape is the schema its object is written with, plus what the server sets. Absent values
# are left out of every representation, so few fields are required.


class PeriodShape(Shape, Schema):
    always = ()
    startDate = IsoDateTime()
    endDate = IsoDateTime()


class AuctionPeriodShape(PeriodShape):
    shouldStartAfter = IsoDateTime()


class LotValueShape(Shape, LotValue):
    always = ("relatedLot",)
    date = IsoDateTime()
    participationUrl = Text()


class BidShape(Shape, BidSchema):
    always = ("id", "status")
    id = Text()
    status = Choice(BidStatus.values)
    date = IsoDateTime()
    lotValues = LotValueShape(many=True)
    participationUrl = Text()


class LotShape(Shape, Lot):
    always = ("id", "status", "title")
    status = Choice(LotStatus.values)
    date = IsoDateTime()
    auctionPeriod = AuctionPeriodShape()
    auctionUrl = Text()


@extend_schema_field({"type": "array", "items": {"$ref": "#/components/schemas/ComplaintShape"}})
class AwardComplaints(serializers.ListField):
    """The claims of an award or of the tender, as the claims app describes them (its
    ComplaintShape)."""


class AwardShape(Shape, AwardPatchSchema):
    always = ("id", "status")
    id = Text()
    bid_id = Text()
    lotID = Text()
    status = Choice(AwardStatus.values)
    date = IsoDateTime()
    value = Value()
    suppliers = Organization(many=True)
    complaintPeriod = PeriodShape()
    complaints = AwardComplaints()


class QuestionShape(Shape, QuestionSchema):
    always = ("id", "title")
    id = Text()
    date = IsoDateTime()
    answer = LongText()
    dateAnswered = IsoDateTime()


class ContractShape(Shape, ContractPatchSchema):
    always = ("id", "status")
    id = Text()
    awardID = Text()
    contractID = Text()
    status = Choice(ContractStatus.values)
    date = IsoDateTime()


class CancellationShape(Shape, CancellationSchema):
    always = ("id", "status")
    id = Text()
    status = Choice(CancellationStatus.values)
    date = IsoDateTime()


class TenderShape(Shape, TenderSchema):
    always = ("id", "tenderID", "status", "dateModified")
    id = Text()
    tenderID = Text()
    status = Choice(TenderStatus.values)
    owner = Text()
    date = IsoDateTime()
    dateModified = IsoDateTime()
    procurementMethodType = Choice(["belowThreshold"])
    enquiryPeriod = PeriodShape()
    tenderPeriod = PeriodShape()
    awardPeriod = PeriodShape()
    auctionPeriod = AuctionPeriodShape()
    auctionUrl = Text()
    next_check = IsoDateTime()
    numberOfBids = serializers.IntegerField(required=False)
    lots = LotShape(many=True)
    bids = BidShape(many=True)
    awards = AwardShape(many=True)
    contracts = ContractShape(many=True)
    cancellations = CancellationShape(many=True)
    documents = DocumentShape(many=True)
    questions = QuestionShape(many=True)
    complaints = AwardComplaints()
