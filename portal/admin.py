from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError
from core.models import Broker
from core.refusals import in_words
from portal.account_forms import RefusalForm
from portal.models import Membership, Organization, OrganizationEvent, User


@admin.register(Broker)
class BrokerAdmin(admin.ModelAdmin):
    """Keys are set with `manage.py add_broker NAME [--key KEY]`; only a digest is stored."""

    list_display = ["name", "is_active", "created"]
    list_filter = ["is_active"]
    search_fields = ["name"]
    readonly_fields = ["created"]

    def has_add_permission(self, request):
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    fields = ["user", "role", "since"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class OrganizationEventInline(admin.TabularInline):
    model = OrganizationEvent
    fields = ["at", "actor_name", "action", "member_name", "from_status", "to_status", "payload"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["-at", "-id"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    """The operators' verification queue: organizations awaiting verification come first.
    Verifying and refusing go through the model (Organization.verify / refuse), which checks
    the operator's permission and writes the audit trail."""

    list_display = ["name", "identifier", "kind", "verification", "created", "members"]
    list_filter = ["verification", "kind"]
    search_fields = ["name", "identifier"]
    readonly_fields = [
        "identifier_scheme",
        "identifier",
        "kind",
        "verification",
        "verification_date",
        "refusal_reason",
        "created",
    ]
    fields = ["name", *readonly_fields]
    inlines = [MembershipInline, OrganizationEventInline]
    actions = ["verify", "refuse"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("memberships")

    def get_ordering(self, request):
        # Pending first, then refused, then verified; the oldest application first.
        return ["verification", "created"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_verify_permission(self, request):
        return request.user.has_perm("portal.verify_organization")

    @admin.display(description=_("members"))
    def members(self, organization):
        return len(organization.memberships.all())

    @admin.action(description=_("Verify the selected organizations"), permissions=["verify"])
    def verify(self, request, queryset):
        self._decide(request, queryset, lambda organization: organization.verify(user=request.user))

    @admin.action(
        description=_("Refuse the selected organizations (with a reason)"),
        permissions=["verify"],
    )
    def refuse(self, request, queryset):
        """First shows a page asking the reason; its form comes back here with it."""
        form = RefusalForm(request.POST if "reason" in request.POST else None)
        if form.is_bound and form.is_valid():
            reason = form.cleaned_data["reason"]
            self._decide(
                request,
                queryset,
                lambda organization: organization.refuse(user=request.user, reason=reason),
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Refuse the verification"),
            "organizations": queryset,
            "form": form,
            "opts": self.model._meta,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/portal/organization/refuse.html", context)

    def _decide(self, request, queryset, decide) -> None:
        for organization in queryset:
            try:
                decide(organization)
            except DomainError as error:
                self.message_user(
                    request, f"{organization.name}: {in_words(error)}", messages.WARNING
                )
            else:
                self.message_user(
                    request,
                    f"{organization.name}: {organization.get_verification_display()}",
                    messages.SUCCESS,
                )


@admin.register(User)
class PortalUserAdmin(UserAdmin):
    fieldsets = [
        *UserAdmin.fieldsets,
        (_("Organization"), {"fields": ["organization", "email_confirmed_at"]}),
    ]
    readonly_fields = ["organization", "email_confirmed_at"]
    list_display = ["username", "email", "organization", "email_confirmed_at", "is_staff"]
    list_select_related = ["organization_membership__organization"]
