"""Claims over the 2.3 paths /tenders/{tid}/awards/{aid}/complaints[/{cid}] (against a
decision) and /tenders/{tid}/complaints[/{cid}] (against the tender's conditions).

POST files a claim (against an award: the bid owner's token; against the tender: any broker);
PATCH asks for a status, and the model says which transition that is for this actor
(`Complaint.action_for`), validates nothing itself beyond the shape of the request, and calls
that one method. Both kinds share everything past filing.
"""

import json

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from complaints.api.serializers import (
    ComplaintOut,
    ComplaintShape,
    shown_complaints,
    shown_tender_complaints,
)
from complaints.models import Complaint
from complaints.schema import INPUTS, FileInput, PatchInput, StatusInput
from core.actors import Role
from core.api.auth import actor_for, api_context, owner_among, viewer_for
from core.api.envelope import answered_with_the_write, created, ok, read_data
from core.api.lookup import child
from core.api.openapi import OWNER_TOKEN, data_of, errors
from core.errors import NotFound
from core.schema import validate
from tenders.api import stored
from tenders.api.documents import DocumentViewSet, document_operations
from tenders.models import BidStatus, Tender


def _award(tender, award_id):
    award = child(tender, "awards", award_id, "award_id")
    award.tender = tender
    return award


def _complaint(request, award, complaint_id):
    """One claim of the award, as the reader may see it (a draft: its author alone)."""
    complaint = child(award, "complaints", complaint_id, "complaint_id")
    if not complaint.shown_to(viewer_for(request)):
        raise NotFound("complaint_id")
    complaint.tender = award.tender
    return complaint


def _tender_complaint(request, tender, complaint_id):
    """One claim against the tender itself, as the reader may see it."""
    complaint = child(tender, "complaints", complaint_id, "complaint_id")
    if complaint.award_id is not None or not complaint.shown_to(viewer_for(request)):
        raise NotFound("complaint_id")
    complaint.tender = tender
    return complaint


def _shown_complaint(request, tender_id, award_id, complaint_id) -> dict | None:
    """The claim (against the award `award_id`, or None: against the tender) as the tender's
    read shows it to this reader (kept, or rendered and kept: tenders.api.stored), or None
    (then the claim's own read says what is not found)."""
    tender = stored.read(request, tender_id)
    if isinstance(tender, str):
        tender = json.loads(tender)
    if award_id is None:
        holders = [tender]
    else:
        holders = [award for award in tender.get("awards", []) if award["id"] == award_id]
    for holder in holders:
        for complaint in holder.get("complaints", []):
            if complaint["id"] == complaint_id:
                return complaint
    return None


def _read(request, tender_id, award_id):
    return _award(Tender.objects.current(tender_id, viewer=viewer_for(request)), award_id)


def _find(request, tender_id, award_id):
    """The award to file a claim against, its tender locked for the write."""
    return Tender.objects.award_for_change(tender_id, award_id, viewer=viewer_for(request))


def _claim_to_change(request, tender_id, award_id, complaint_id):
    """The claim to change (against the award, or with None against the tender), as the reader
    may see it, its tender locked for the write."""
    viewer = viewer_for(request)
    return Complaint.objects.for_change(tender_id, award_id, complaint_id, viewer=viewer)


def _filing(fields: dict) -> dict:
    """What a filing POST sends, as the keywords both kinds of filing take."""
    return {
        "title": fields["title"],
        "description": fields.get("description", ""),
        "author": fields["author"],
        "submit": fields.get("status") == "claim",
    }


def _filed(request, complaint, token: str, route: str, *route_args):
    """201: the claim as its filer sees it (its name included), its Location and its token."""
    location = reverse(route, args=[*route_args, complaint.id])
    context = {**api_context(request), "filer": True}
    return created(request, ComplaintOut(complaint, context=context).data, location, token)


def _change(request, complaint):
    """PATCH: the status asked for is a transition of the claim's table for this actor."""
    tender = complaint.tender
    actor = actor_for(request, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, tender))
    complaint.check_party(actor)
    data = read_data(request)
    # A status of null is no status asked for, as in 2.3 (which reads null as unset).
    asked = validate(StatusInput, {"status": data.get("status")})
    requested = asked.get("status") or complaint.status
    action = complaint.action_for(actor, requested)
    getattr(complaint, action)(by=actor, **validate(INPUTS[action], data))
    return ok(ComplaintOut(complaint, context=api_context(request)).data)


COMPLAINT = data_of("Complaint", ComplaintShape)


def _claim_operations(name: str, *, of: str, filing: str, filer_token: bool):
    """The OpenAPI description of a kind of claim's paths (`name`: "" or "Tender")."""
    return extend_schema_view(
        list=extend_schema(
            operation_id=f"list{name}Complaints",
            summary=f"The claims against {of} (drafts: their authors alone)",
            parameters=OWNER_TOKEN,
            responses={200: data_of(f"{name}Complaints", ComplaintShape, many=True), **errors(404)},
        ),
        create=extend_schema(
            operation_id=f"file{name}Complaint",
            summary=f'File a claim ({filing}); data.status "claim" submits it at once',
            parameters=OWNER_TOKEN if filer_token else None,
            request=data_of(f"{name}ComplaintCreate", FileInput),
            responses={
                201: data_of(f"{name}ComplaintFiled", ComplaintShape, access=True),
                **errors(403, 404, 422),
            },
        ),
        retrieve=extend_schema(
            operation_id=f"get{name}Complaint",
            parameters=OWNER_TOKEN,
            responses={200: COMPLAINT, **errors(404)},
        ),
        partial_update=extend_schema(
            operation_id=f"patch{name}Complaint",
            summary="Ask for a status: the claim's table says which transition that is for you",
            parameters=OWNER_TOKEN,
            request=data_of(f"{name}ComplaintPatch", PatchInput),
            responses={200: COMPLAINT, **errors(403, 404, 409, 422)},
        ),
    )


@_claim_operations(
    "", of="an award", filing="the bid owner's token, in the award's complaint period",
    filer_token=True,
)  # fmt: skip
class ComplaintViewSet(viewsets.ViewSet):
    def list(self, request, tender_id, award_id):
        award = _read(request, tender_id, award_id)
        context = api_context(request)
        complaints = shown_complaints(award, context)
        return ok(ComplaintOut(complaints, many=True, context=context).data)

    def retrieve(self, request, tender_id, award_id, pk):
        found = _shown_complaint(request, tender_id, award_id, pk)
        if found is not None:
            return ok(found)
        complaint = _complaint(request, _read(request, tender_id, award_id), pk)
        return ok(ComplaintOut(complaint, context=api_context(request)).data)

    @answered_with_the_write
    def create(self, request, tender_id, award_id):
        award = _find(request, tender_id, award_id)
        tender = award.tender
        actor = owner_among(request, tender.bids.filter(status=BidStatus.ACTIVE), Role.BID_OWNER)
        Complaint.objects.check_filer(actor, tender)
        fields = validate(FileInput, read_data(request))
        complaint, token = Complaint.objects.file(award=award, by=actor, **_filing(fields))
        return _filed(request, complaint, token, "api:complaint", tender.id, award.id)

    @answered_with_the_write
    def partial_update(self, request, tender_id, award_id, pk):
        return _change(request, _claim_to_change(request, tender_id, award_id, pk))


@_claim_operations(
    "Tender", of="the tender's conditions",
    filing="any broker, while questions and bids are taken", filer_token=False,
)  # fmt: skip
class TenderComplaintViewSet(viewsets.ViewSet):
    def list(self, request, tender_id):
        tender = Tender.objects.current(tender_id, viewer=viewer_for(request))
        context = api_context(request)
        complaints = shown_tender_complaints(tender, context)
        return ok(ComplaintOut(complaints, many=True, context=context).data)

    def retrieve(self, request, tender_id, pk):
        found = _shown_complaint(request, tender_id, None, pk)
        if found is not None:
            return ok(found)
        tender = Tender.objects.current(tender_id, viewer=viewer_for(request))
        complaint = _tender_complaint(request, tender, pk)
        return ok(ComplaintOut(complaint, context=api_context(request)).data)

    @answered_with_the_write
    def create(self, request, tender_id):
        tender = Tender.objects.find(tender_id, viewer=viewer_for(request))
        actor = actor_for(request)
        Complaint.objects.check_tender_filer(actor, tender)
        fields = validate(FileInput, read_data(request))
        complaint, token = Complaint.objects.file_against_tender(
            tender=tender, by=actor, related_lot=fields.get("relatedLot", ""), **_filing(fields)
        )
        return _filed(request, complaint, token, "api:tender-complaint", tender.id)

    @answered_with_the_write
    def partial_update(self, request, tender_id, pk):
        return _change(request, _claim_to_change(request, tender_id, None, pk))


@document_operations("Complaint")
class ComplaintDocumentViewSet(DocumentViewSet):
    route = "api:complaint-document"

    def container_for_read(self, request, tender_id, award_id, complaint_id):
        return _complaint(request, _read(request, tender_id, award_id), complaint_id)

    def container_for_write(self, request, tender_id, award_id, complaint_id):
        # Not locked here: an upload may take long, and the change locks when it is made.
        tender = Tender.objects.find(tender_id, viewer=viewer_for(request))
        complaint = _complaint(request, _award(tender, award_id), complaint_id)
        actor = actor_for(request, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, tender))
        complaint.check_party(actor)
        return complaint, actor

    def route_args(self, complaint):
        return [complaint.tender_id, complaint.award_id, complaint.id]


@document_operations("TenderComplaint")
class TenderComplaintDocumentViewSet(DocumentViewSet):
    route = "api:tender-complaint-document"

    def container_for_read(self, request, tender_id, complaint_id):
        tender = Tender.objects.current(tender_id, viewer=viewer_for(request))
        return _tender_complaint(request, tender, complaint_id)

    def container_for_write(self, request, tender_id, complaint_id):
        # Not locked here: an upload may take long, and the change locks when it is made.
        tender = Tender.objects.find(tender_id, viewer=viewer_for(request))
        complaint = _tender_complaint(request, tender, complaint_id)
        actor = actor_for(request, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, tender))
        complaint.check_party(actor)
        return complaint, actor

    def route_args(self, complaint):
        return [complaint.tender_id, complaint.id]
