"""Operators read tenders and their audit trail here; changes go through the API or the portal."""

from django.contrib import admin

from tenders.models import AuditEvent, Tender


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AuditEventInline(admin.TabularInline):
    model = AuditEvent
    fields = [
        "at",
        "actor_role",
        "actor_name",
        "action",
        "subject_type",
        "from_status",
        "to_status",
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Tender)
class TenderAdmin(ReadOnlyAdmin):
    list_display = [
        "tender_id",
        "title",
        "status",
        "mode",
        "broker",
        "organization",
        "date_modified",
    ]
    list_filter = ["status", "mode"]
    search_fields = ["tender_id", "title", "id"]
    inlines = [AuditEventInline]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = [
        "at",
        "tender",
        "subject_type",
        "action",
        "from_status",
        "to_status",
        "actor_name",
    ]
    list_filter = ["subject_type", "action", "actor_role"]
    search_fields = ["tender__tender_id", "subject_id", "actor_name"]
    list_select_related = ["tender"]
