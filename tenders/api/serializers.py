"""How tenders and their parts look on the wire (2.3)."""

from collections.abc import Callable

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from portal.core.api.serializers import Out, compact
from portal.core.schema import Choice, IsoDateTime, Schema, Text, iso
from tenders.api.documents import DocumentShape, documents_of
from tenders.models import (
    AwardStatus,
    BidStatus,
    CancellationStatus,
    ContractStatus,
    TenderStatus,
)
from tenders.schema import (
    AwardPatchSchema,
    CancellationSchema,
    ContractPatchSchema,
    Organization,
    TenderSchema,
    Value,
)


def period(start, end) -> dict:
    return compact({"startDate": iso(start), "endDate": iso(end)})


class BidOut(Out):
    def represent(self, bid):
        return {
            "id": bid.id,
            "status": bid.status,
            "date": iso(bid.date),
            "value": bid.value,
            "tenderers": bid.tenderers,
        }


# What the apps above tenders show inside an award (the claims app its claims): name -> a
# function of (award, serializer context) giving the list. Registered in their AppConfig.ready.
AWARD_PARTS: dict[str, Callable] = {}


def embed_in_awards(name: str, part: Callable) -> None:
    AWARD_PARTS[name] = part


class AwardOut(Out):
    def represent(self, award):
        return {
            **award.data,
            "id": award.id,
            "bid_id": award.bid_id,
            "status": award.status,
            "date": iso(award.date),
            "value": award.value,
            "suppliers": award.suppliers,
            "complaintPeriod": period(award.complaint_period_start, award.complaint_period_end),
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
        }


class CancellationOut(Out):
    def represent(self, cancellation):
        return {
            **cancellation.data,
            "id": cancellation.id,
            "reason": cancellation.reason,
            "status": cancellation.status,
            "date": iso(cancellation.date),
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
        {"numberOfBids", "bids", "awards", "contracts", "cancellations", "documents"}
    )

    # The fields shown from the tender's columns (the others of its row come from `data`).
    FROM_COLUMNS = frozenset(
        {
            "id", "tenderID", "status", "owner", "date", "dateModified", "title", "description",
            "mode", "procurementMethodDetails", "enquiryPeriod", "tenderPeriod", "awardPeriod",
            "next_check",
        }
    )  # fmt: skip

    @staticmethod
    def own_fields(tender, *, with_data: bool = True) -> dict:
        """What the tender's row alone shows, in the order of the full representation
        (`with_data` False: its columns alone, the fields in FROM_COLUMNS)."""
        return {
            "id": tender.id,
            "tenderID": tender.tender_id,
            "status": tender.status,
            "owner": tender.owner_name,
            "date": iso(tender.date),
            "dateModified": iso(tender.date_modified),
            "title": tender.title,
            **(tender.data if with_data else {}),
            "description": tender.description,
            "mode": tender.mode,
            "procurementMethodDetails": tender.procurement_method_details,
            "enquiryPeriod": period(tender.enquiry_start, tender.enquiry_end),
            "tenderPeriod": period(tender.tender_start, tender.tender_end),
            "awardPeriod": period(tender.award_period_start, tender.award_period_end),
            "next_check": iso(tender.next_check),
        }

    def represent(self, tender):
        bids = public_bids(tender)
        return {
            **self.own_fields(tender),
            "numberOfBids": len(bids) if tender.bids_are_public else None,
            "bids": BidOut(bids, many=True).data,
            "awards": AwardOut(tender.awards.all(), many=True, context=self.context).data,
            "contracts": ContractOut(tender.contracts.all(), many=True).data,
            "cancellations": CancellationOut(tender.cancellations.all(), many=True).data,
            "documents": documents_of(tender, self.context),
        }


# --- what the representations above look like, for the OpenAPI description -----------------
# Each shape is the schema its object is written with, plus what the server sets. Absent values
# are left out of every representation, so few fields are required.


class PeriodShape(Schema):
    startDate = IsoDateTime()
    endDate = IsoDateTime()


class BidShape(Schema):
    id = Text(required=True)
    status = Choice(BidStatus.values, required=True)
    date = IsoDateTime()
    value = Value()
    tenderers = Organization(many=True)


@extend_schema_field({"type": "array", "items": {"$ref": "#/components/schemas/ComplaintShape"}})
class AwardComplaints(serializers.ListField):
    """The award's claims, as the claims app describes them (its ComplaintShape)."""


class AwardShape(AwardPatchSchema):
    id = Text(required=True)
    bid_id = Text()
    status = Choice(AwardStatus.values, required=True)
    date = IsoDateTime()
    value = Value()
    suppliers = Organization(many=True)
    complaintPeriod = PeriodShape()
    complaints = AwardComplaints()


class ContractShape(ContractPatchSchema):
    id = Text(required=True)
    awardID = Text()
    contractID = Text()
    status = Choice(ContractStatus.values, required=True)
    date = IsoDateTime()


class CancellationShape(CancellationSchema):
    id = Text(required=True)
    status = Choice(CancellationStatus.values, required=True)
    date = IsoDateTime()


class TenderShape(TenderSchema):
    id = Text(required=True)
    tenderID = Text(required=True)
    status = Choice(TenderStatus.values, required=True)
    owner = Text()
    date = IsoDateTime()
    dateModified = IsoDateTime(required=True)
    procurementMethodType = Choice(["belowThreshold"])
    enquiryPeriod = PeriodShape()
    tenderPeriod = PeriodShape()
    awardPeriod = PeriodShape()
    next_check = IsoDateTime()
    numberOfBids = serializers.IntegerField(required=False)
    bids = BidShape(many=True)
    awards = AwardShape(many=True)
    contracts = ContractShape(many=True)
    cancellations = CancellationShape(many=True)
    documents = DocumentShape(many=True)
