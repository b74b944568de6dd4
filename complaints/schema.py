"""The shape of claim requests (2.3): what each request may carry, in the 2.3 wording.

Every other field of a complaint may be echoed back by a client and is ignored, as 2.3 clients
send the object they read; a field 2.3 does not know is a "Rogue field".
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from complaints.models import ComplaintStatus, ResolutionType
from core.schema import Choice, LongText, Schema, Text
from tenders.schema import Md5Id, Organization

COMPLAINT_FIELDS = frozenset(
    {
        "id", "complaintID", "status", "type", "title", "description", "author", "documents",
        "date", "dateSubmitted", "dateAnswered", "dateEscalated", "dateDecision", "dateCanceled",
        "resolution", "resolutionType", "tendererAction", "tendererActionDate", "satisfied",
        "cancellationReason", "decision", "owner", "owner_token", "bid_id", "relatedLot",
    }
)  # fmt: skip


@extend_schema_field({"type": "boolean"})
class StrictBoolean(serializers.Field):
    """Only JSON true or false."""

    default_error_messages = {"invalid": "Must be either true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


class ComplaintInput(Schema):
    model_name = "Complaint"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.server_fields = COMPLAINT_FIELDS - set(cls().fields)


class StatusInput(ComplaintInput):
    """Any PATCH: the status asked for, if any."""

    status = Choice(ComplaintStatus.values)


class FileInput(ComplaintInput):
    """POST: a new claim (a draft, or with status "claim" submitted at once)."""

    title = Text(required=True, allow_blank=False)
    description = LongText()
    author = Organization(required=True)
    status = Text()
    # Against the tender: the lot whose conditions it contests (against an award: its lot).
    relatedLot = Md5Id()


class EditInput(ComplaintInput):
    """The claimant's draft: its text and author (also when submitting it)."""

    title = Text(allow_blank=False)
    description = LongText()
    author = Organization(required=False)


class AnswerInput(ComplaintInput):
    """The tender owner's answer, or a draft of it."""

    resolution = LongText()
    resolutionType = Choice(ResolutionType.values, source="resolution_type")
    tendererAction = LongText(source="tenderer_action")


class SatisfiedInput(ComplaintInput):
    """The claimant's verdict on the answer."""

    satisfied = StrictBoolean(required=False)


class CancelInput(ComplaintInput):
    cancellationReason = LongText(source="reason")


class PatchInput(EditInput, AnswerInput, SatisfiedInput, CancelInput, StatusInput):
    """Every field a PATCH may carry, for the OpenAPI description: which of them count depends
    on the transition the status asks for (INPUTS)."""


# action -> the input its PATCH may carry
INPUTS = {
    "edit": EditInput,
    "submit": EditInput,
    "prepare_answer": AnswerInput,
    "answer": AnswerInput,
    "rate_answer": SatisfiedInput,
    "resolve": SatisfiedInput,
    "cancel": CancelInput,
}
