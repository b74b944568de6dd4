"""What contracting (2.3's /contracts) takes: the owner's changes of a signed contract, and a
change's record (its reasons, its number, its signature)."""

from rest_framework import serializers

from core.schema import Choice, IsoDateTime, LongText, Number, Schema, Text
from tenders.schema import Address, Location, Period, Unit, Value

RATIONALE_TYPES = [
    "volumeCuts", "itemPriceVariation", "qualityImprovement", "thirdParty",
    "durationExtension", "priceReduction", "taxRate", "fiscalYearExtension",
]  # fmt: skip


class AmountPaid(Schema):
    """Only its amount is the client's: its currency and VAT are the contract value's."""

    model_name = "Value"
    server_fields = frozenset({"currency", "valueAddedTaxIncluded"})
    amount = Number(required=True)


class Choices(serializers.ListField):
    """A list of one or more of `choices` (2.3's words)."""

    default_error_messages = {
        "not_a_list": "Please provide a list.",
        "empty": "Please provide at least 1 item.",
        "min_length": "Please provide at least {min_length} item.",
    }

    def __init__(self, choices, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(child=Choice(choices), allow_empty=False, **kwargs)


class ContractItem(Schema):
    """What the owner may change of a contract's item (2.3); its id and classifications are
    dropped, as 2.3 drops them: they stay."""

    model_name = "Item"
    server_fields = frozenset({"id", "classification", "additionalClassifications", "relatedLot"})
    description = Text(allow_blank=False)
    description_en = Text()
    description_ru = Text()
    unit = Unit(required=False)
    quantity = Number(as_float=False)
    deliveryDate = Period(required=False)
    deliveryAddress = Address(required=False)
    deliveryLocation = Location(required=False)


class SignedContractPatchSchema(Schema):
    """PATCH /contracts/{id}: what the owner may set on a signed contract; the rest of what
    2.3 shows is dropped, as 2.3 drops it."""

    model_name = "Contract"
    server_fields = frozenset(
        {"id", "awardID", "contractID", "contractNumber", "dateSigned", "dateModified",
         "suppliers", "procuringEntity", "owner", "tender_id", "mode", "changes", "documents",
         "date"}
    )  # fmt: skip

    status = Choice(["active", "terminated"])
    title = Text()
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    period = Period(required=False)
    value = Value(required=False)
    items = ContractItem(many=True, required=False)
    amountPaid = AmountPaid(required=False)
    terminationDetails = LongText()


class ChangeSchema(Schema):
    """POST /contracts/{id}/changes: a change is made pending (a status sent is dropped, as
    2.3 drops it); PATCH signs it."""

    model_name = "Change"
    server_fields = frozenset({"id", "date", "status"})

    rationale = LongText(required=True, allow_blank=False)
    rationale_en = LongText()
    rationale_ru = LongText()
    rationaleTypes = Choices(RATIONALE_TYPES, required=True)
    contractNumber = Text(max_length=255)  # (its column's)
    dateSigned = IsoDateTime()


class ChangePatchSchema(ChangeSchema):
    server_fields = frozenset({"id", "date"})
    status = Choice(["pending", "active"])
    rationale = LongText(allow_blank=False)
    rationaleTypes = Choices(RATIONALE_TYPES)
