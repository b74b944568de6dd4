"""Operators read claims and their audit trail; every change goes through the API or the portal."""

from django.contrib import admin

from complaints.models import Complaint
from tenders.admin import ReadOnlyAdmin
from tenders.models import AuditEvent


@admin.register(Complaint)
class ComplaintAdmin(ReadOnlyAdmin):
    list_display = ["complaint_id", "title", "status", "tender", "date"]
    list_filter = ["status", "resolution_type"]
    search_fields = ["complaint_id", "title", "id"]
    list_select_related = ["tender"]
    readonly_fields = ["audit_trail"]

    @admin.display(description="audit trail")
    def audit_trail(self, complaint):
        events = AuditEvent.objects.filter(subject_type="complaint", subject_id=complaint.pk)
        return "; ".join(
            f"{e.at:%Y-%m-%d %H:%M:%S} {e.actor_name} ({e.actor_role}) {e.action} "
            f"{e.from_status or '—'} → {e.to_status or '—'}"
            for e in events
        )
