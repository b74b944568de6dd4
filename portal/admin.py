from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from portal.models import Broker, Organization, User


@admin.register(Broker)
class BrokerAdmin(admin.ModelAdmin):
    """Keys are set with `manage.py add_broker NAME [--key KEY]`; only a digest is stored."""

    list_display = ["name", "is_active", "created"]
    list_filter = ["is_active"]
    search_fields = ["name"]
    readonly_fields = ["created"]

    def has_add_permission(self, request):
        return False


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "identifier_scheme", "identifier", "kind"]
    list_filter = ["kind"]
    search_fields = ["name", "identifier"]


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    fieldsets = [*UserAdmin.fieldsets, ("Organization", {"fields": ["organization"]})]
    list_display = ["username", "email", "organization", "is_staff"]
