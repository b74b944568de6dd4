"""How tenders and their parts look on the wire (2.3)."""

from complaints.serializers import ComplaintOut, shown_complaints
from portal.api.serializers import Out, compact
from portal.schema import iso
from tenders.api.documents import documents_of
from tenders.models import BidStatus


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
            "complaints": ComplaintOut(
                shown_complaints(award, self.context),
                many=True,
                context=self.context,
            ).data,
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
    return [bid for bid in tender.bids.all() if bid.status == BidStatus.ACTIVE]


class TenderOut(Out):
    """The whole tender; expects bids, awards, contracts and cancellations prefetched."""

    def represent(self, tender):
        bids = public_bids(tender)
        return {
            "id": tender.id,
            "tenderID": tender.tender_id,
            "status": tender.status,
            "owner": tender.owner_name,
            "date": iso(tender.date),
            "dateModified": iso(tender.date_modified),
            "title": tender.title,
            **tender.data,
            "description": tender.description,
            "mode": tender.mode,
            "procurementMethodDetails": tender.procurement_method_details,
            "enquiryPeriod": period(tender.enquiry_start, tender.enquiry_end),
            "tenderPeriod": period(tender.tender_start, tender.tender_end),
            "awardPeriod": period(tender.award_period_start, tender.award_period_end),
            "next_check": iso(tender.next_check),
            "numberOfBids": len(bids) if tender.bids_are_public else None,
            "bids": BidOut(bids, many=True).data,
            "awards": AwardOut(tender.awards.all(), many=True, context=self.context).data,
            "contracts": ContractOut(tender.contracts.all(), many=True).data,
            "cancellations": CancellationOut(tender.cancellations.all(), many=True).data,
            "documents": documents_of(tender, self.context),
        }
