"""Claims over the 2.3 paths /tenders/{tid}/awards/{aid}/complaints[/{cid}].

POST files a claim (the bid owner's token); PATCH asks for a status, and the model says which
transition that is for this actor (`Complaint.action_for`), validates nothing itself beyond the
shape of the request, and calls that one method.
"""

from django.urls import reverse
from rest_framework import viewsets

from complaints.models import Complaint
from complaints.schema import INPUTS, FileInput, StatusInput
from complaints.serializers import ComplaintOut
from portal.actors import Role
from portal.api.auth import actor_for, owner_among
from portal.api.envelope import created, ok, read_data
from portal.api.lookup import child
from portal.schema import validate
from tenders.api.documents import DocumentViewSet
from tenders.models import BidStatus, Tender


def _award(tender, award_id):
    award = child(tender, "awards", award_id, "award_id")
    award.tender = tender
    return award


def _complaint(award, complaint_id):
    complaint = child(award, "complaints", complaint_id, "complaint_id")
    complaint.tender = award.tender
    return complaint


class ComplaintViewSet(viewsets.ViewSet):
    def list(self, request, tender_id, award_id):
        award = _award(Tender.objects.current(tender_id), award_id)
        return ok(
            ComplaintOut(award.complaints.all(), many=True, context={"request": request}).data
        )

    def retrieve(self, request, tender_id, award_id, pk):
        award = _award(Tender.objects.current(tender_id), award_id)
        return ok(ComplaintOut(_complaint(award, pk), context={"request": request}).data)

    def create(self, request, tender_id, award_id):
        tender = Tender.objects.find(tender_id)
        award = _award(tender, award_id)
        actor = owner_among(request, tender.bids.filter(status=BidStatus.ACTIVE), Role.BID_OWNER)
        Complaint.check_filer(actor, tender)
        fields = validate(FileInput, read_data(request))
        complaint, token = Complaint.objects.file(
            award=award,
            by=actor,
            title=fields["title"],
            description=fields.get("description", ""),
            author=fields["author"],
            submit=fields.get("status") == "claim",
        )
        location = reverse("api:complaint", args=[tender.id, award.id, complaint.id])
        return created(
            request, ComplaintOut(complaint, context={"request": request}).data, location, token
        )

    def partial_update(self, request, tender_id, award_id, pk):
        tender = Tender.objects.find(tender_id)
        complaint = _complaint(_award(tender, award_id), pk)
        actor = actor_for(request, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, tender))
        complaint.require_party(actor)
        data = read_data(request)
        requested = validate(StatusInput, {"status": data.get("status", complaint.status)})[
            "status"
        ]
        action = complaint.action_for(actor, requested)
        getattr(complaint, action)(by=actor, **validate(INPUTS[action], data))
        return ok(ComplaintOut(complaint, context={"request": request}).data)


class ComplaintDocumentViewSet(DocumentViewSet):
    route = "api:complaint-document"

    def container_for_read(self, tender_id, award_id, complaint_id):
        return _complaint(_award(Tender.objects.current(tender_id), award_id), complaint_id)

    def container_for_write(self, request, tender_id, award_id, complaint_id):
        tender = Tender.objects.find(tender_id)
        complaint = _complaint(_award(tender, award_id), complaint_id)
        actor = actor_for(request, (Role.COMPLAINT_OWNER, complaint), (Role.TENDER_OWNER, tender))
        complaint.require_party(actor)
        return complaint, actor

    def route_args(self, complaint):
        return [complaint.tender_id, complaint.award_id, complaint.id]
