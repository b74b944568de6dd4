"""The shape of the documents of a tender's parts (2.3 belowThreshold): bids, the owner's
changes of awards and contracts, cancellations, questions and their answers (the tender's own
shape, and the pieces these share with it, are tenders/schema.py)."""

from rest_framework.exceptions import ValidationError

from core.schema import Choice, IsoDateTime, LongText, Number, Schema, Text
from tenders.schema import MAX_FEATURES, MAX_LOTS, Md5Id, Organization, Period, Value


class LotValue(Schema):
    """A bid's offer for one lot."""

    model_name = "LotValue"
    server_fields = frozenset({"date", "participationUrl"})

    value = Value(required=True)
    relatedLot = Md5Id(required=True)


class Parameter(Schema):
    """A bid's value for one of the tender's features."""

    model_name = "Parameter"
    code = Text(required=True, allow_blank=False)
    value = Number(required=True)


class BidSchema(Schema):
    """A bid: a `value` on a tender without lots, `lotValues` (one per lot it competes for) on
    a tender with lots (Bidding.check_bid_offer holds the rules between the two)."""

    model_name = "Bid"
    server_fields = frozenset(
        {"id", "date", "owner", "owner_token", "participationUrl", "documents"}
    )

    tenderers = Organization(many=True, required=True, allow_empty=False, max_length=1)
    value = Value(required=False)  # (required on a tender without lots: context "lots" False)
    lotValues = LotValue(many=True, required=False, max_length=MAX_LOTS)
    parameters = Parameter(many=True, required=False, max_length=MAX_FEATURES)
    status = Choice(["draft", "active"], default="active")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.context.get("lots") is False:
            self.fields["value"].required = True


class AwardPatchSchema(Schema):
    model_name = "Award"
    server_fields = frozenset(
        {"id", "bid_id", "lotID", "date", "value", "suppliers", "items", "complaintPeriod",
         "documents", "complaints"}
    )  # fmt: skip

    status = Choice(["pending", "unsuccessful", "active", "cancelled"])
    title = Text()
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()


class ContractPatchSchema(Schema):
    model_name = "Contract"
    server_fields = frozenset(
        {"id", "awardID", "contractID", "date", "items", "suppliers", "documents"}
    )

    status = Choice(["pending", "terminated", "active", "cancelled"])
    value = Value(required=False)  # (merged into the contract's value first: Contract.patch)
    contractNumber = Text()
    title = Text()
    title_en = Text()
    title_ru = Text()
    description = LongText()
    description_en = LongText()
    description_ru = LongText()
    dateSigned = IsoDateTime()
    period = Period(required=False)


class CancellationSchema(Schema):
    model_name = "Cancellation"
    server_fields = frozenset({"id", "date", "documents"})

    reason = LongText(required=True, allow_blank=False)
    reason_en = LongText()
    reason_ru = LongText()
    status = Choice(["pending", "active"])
    cancellationOf = Choice(["tender", "lot"], default="tender")
    # (2.3: a cancellation naming a lot cancels that lot, whatever cancellationOf says)
    relatedLot = Md5Id()

    def validate(self, attrs):
        if attrs.get("cancellationOf") == "lot" and not attrs.get("relatedLot"):
            raise ValidationError({"relatedLot": ["This field is required."]})
        return attrs


class QuestionSchema(Schema):
    """POST /questions: what the asker writes (2.3's create role)."""

    model_name = "Question"
    server_fields = frozenset({"id", "date", "answer", "dateAnswered"})

    title = Text(required=True, allow_blank=False)
    description = LongText()
    author = Organization(required=True)
    questionOf = Choice(["tender", "item", "lot"], default="tender")
    relatedItem = Text(min_length=1, max_length=64)  # (an item's or a lot's id)

    def validate(self, attrs):
        if attrs.get("questionOf") in ("item", "lot") and not attrs.get("relatedItem"):
            raise ValidationError({"relatedItem": ["This field is required."]})
        return attrs


class QuestionAnswerSchema(Schema):
    """PATCH /questions/{id}: the owner's answer; what else a client echoes back is ignored."""

    model_name = "Question"
    server_fields = frozenset(
        {"id", "date", "dateAnswered", "title", "description", "author", "questionOf",
         "relatedItem"}
    )  # fmt: skip

    answer = LongText(required=True, allow_blank=False)
