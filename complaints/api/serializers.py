from rest_framework import serializers

from complaints.models import ComplaintStatus, ResolutionType
from complaints.schema import FileInput, PatchInput
from core.actors import Viewer
from core.api.serializers import Out
from core.schema import Choice, IsoDateTime, Shape, Text, iso
from tenders.api.documents import DocumentShape, documents_of

# Shown only once the answer is sent (Complaint.answer_shown_to).
ANSWER_FIELDS = ("resolution", "resolutionType", "tendererAction", "tendererActionDate")


def shown_complaints(award, context) -> list:
    """The claims of `award` the reader may see (drafts only to their authors), each knowing
    its tender (whose owner alone reads an answer not yet sent)."""
    return _shown(award.complaints.all(), award.tender, context)


def shown_tender_complaints(tender, context) -> list:
    """The claims against `tender`'s conditions the reader may see (as shown_complaints)."""
    against_tender = [claim for claim in tender.complaints.all() if claim.award_id is None]
    return _shown(against_tender, tender, context)


def _shown(complaints, tender, context) -> list:
    viewer = context.get("viewer", Viewer())
    complaints = list(complaints)
    for complaint in complaints:
        complaint.tender = tender
    return [complaint for complaint in complaints if complaint.shown_to(viewer)]


class ComplaintOut(Out):
    """A claim as `context["viewer"]` may read it (an answer not yet sent is left out; who
    filed a claim against the conditions too, until bids are opened, except in the answer to
    its filing: `context["filer"]`)."""

    def to_representation(self, complaint):
        data = super().to_representation(complaint)
        if not complaint.answer_shown_to(self.context.get("viewer", Viewer())):
            for field in ANSWER_FIELDS:
                data.pop(field, None)
        if not (complaint.author_shown or self.context.get("filer")):
            data.pop("author", None)
        return data

    def represent(self, complaint):
        return {
            "id": complaint.id,
            "complaintID": complaint.complaint_id,
            "status": complaint.status,
            "type": "claim",
            "relatedLot": complaint.related_lot,
            "date": iso(complaint.date),
            "title": complaint.title,
            "description": complaint.description,
            "author": complaint.author,
            "dateSubmitted": iso(complaint.date_submitted),
            "resolution": complaint.resolution,
            "resolutionType": complaint.resolution_type,
            "tendererAction": complaint.tenderer_action,
            "tendererActionDate": iso(complaint.tenderer_action_date),
            "dateAnswered": iso(complaint.date_answered),
            "satisfied": complaint.satisfied,
            "cancellationReason": complaint.cancellation_reason,
            "dateCanceled": iso(complaint.date_canceled),
            "documents": documents_of(complaint, self.context),
        }


# What a claim is filed and changed with (complaints/schema.py), plus what the server sets.
class ComplaintShape(Shape, PatchInput, FileInput):
    """What ComplaintOut shows, for the OpenAPI description."""

    always = ("id", "complaintID", "status", "type", "title")

    id = Text()
    complaintID = Text()
    status = Choice(ComplaintStatus.values)
    type = Choice(["claim"])
    relatedLot = Text()
    date = IsoDateTime()
    dateSubmitted = IsoDateTime()
    resolutionType = Choice(ResolutionType.values)
    tendererActionDate = IsoDateTime()
    dateAnswered = IsoDateTime()
    satisfied = serializers.BooleanField(required=False)
    dateCanceled = IsoDateTime()
    documents = DocumentShape(many=True)


def award_complaints(award, context) -> list[dict]:
    """The claims shown inside an award's representation (see tenders.api.serializers)."""
    return ComplaintOut(shown_complaints(award, context), many=True, context=context).data


def tender_complaints(tender, context) -> list[dict]:
    """The claims against the conditions, shown inside the tender's representation."""
    return ComplaintOut(shown_tender_complaints(tender, context), many=True, context=context).data
