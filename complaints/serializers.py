from portal.api.serializers import Out
from portal.schema import iso
from tenders.api.documents import documents_of


class ComplaintOut(Out):
    def represent(self, complaint):
        return {
            "id": complaint.id,
            "complaintID": complaint.complaint_id,
            "status": complaint.status,
            "type": "claim",
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
