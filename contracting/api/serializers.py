"""How a contract looks in contracting (2.3's /contracts): the tender's contract, signed, with
what contracting adds (the buyer, the tender, its changes, what was paid). One row: the tender's
contract and this one never disagree."""

from rest_framework import serializers

from contracting.schemas import ChangeSchema
from core.api.serializers import Out
from core.schema import Choice, IsoDateTime, Shape, Text, iso
from tenders.api.documents import DocumentShape, documents_of
from tenders.models import ContractStatus
from tenders.part_schemas import ContractPatchSchema
from tenders.schema import Item, Organization, ProcuringEntity, Value

from ..models import ChangeStatus


class ContractingOut(Out):
    """Expects the contract's tender (and its broker) loaded."""

    # The fields shown from the contract's and its tender's columns (the feed's opt_fields).
    FIELDS = (
        "id", "awardID", "contractID", "contractNumber", "title", "description", "status",
        "period", "value", "dateSigned", "dateModified", "items", "suppliers", "procuringEntity",
        "owner", "tender_id", "mode", "changes", "documents", "amountPaid", "terminationDetails",
    )  # fmt: skip

    def represent(self, contract):
        tender = contract.tender
        return {
            **contract.data,
            "id": contract.id,
            "awardID": contract.award_id,
            "contractID": contract.contract_id,
            "status": contract.status,
            "dateSigned": iso(contract.date_signed),
            "dateModified": iso(contract.date_modified),
            "procuringEntity": tender.data.get("procuringEntity"),
            "owner": tender.owner_name,
            "tender_id": tender.id,
            "mode": tender.mode,
            "changes": ChangeOut(contract.changes.all(), many=True).data,
            "documents": documents_of(contract, self.context),
        }


class ChangeOut(Out):
    def represent(self, change):
        return change.wire()


class ChangeShape(Shape, ChangeSchema):
    always = ("id", "status", "date")
    id = Text()
    status = Choice(ChangeStatus.values)
    date = IsoDateTime()


class ContractingShape(Shape, ContractPatchSchema):
    always = ("id", "status", "dateModified")
    id = Text()
    awardID = Text()
    contractID = Text()
    status = Choice(sorted(ContractStatus.in_contracting()))
    dateModified = IsoDateTime()
    value = Value()
    items = Item(many=True)
    suppliers = Organization(many=True)
    procuringEntity = ProcuringEntity()
    owner = Text()
    tender_id = Text()
    mode = Choice(["test"])
    changes = ChangeShape(many=True)
    documents = DocumentShape(many=True)
    amountPaid = Value()
    terminationDetails = serializers.CharField(required=False)
