"""The organization's own page: who belongs to it, who asks to, who is invited; its
administrators admit, invite, remove and appoint. Each POST calls one model method; its refusal
is shown next to the form that was sent."""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError
from core.forms import add_domain_error
from core.htmx import render_page_or_partial
from portal.account_forms import DecisionForm, InviteForm, MemberForm
from portal.models import Organization, User

TEMPLATE = "portal/organization.html"


def _organization(request) -> Organization:
    organization = request.user.organization
    if organization is None:
        raise Http404
    return organization


def _page(request, organization, *, refused=None, status=200):
    refused = refused or {}
    is_admin = organization.is_administered_by(request.user)
    context = {
        "organization": organization,
        "is_admin": is_admin,
        "memberships": organization.memberships.select_related("user"),
        "requests": organization.pending_requests() if is_admin else [],
        "invitations": organization.pending_invitations() if is_admin else [],
        "invite_form": refused.get("invite") or InviteForm(),
        "invitation_days": settings.INVITATION_DAYS,
        "errors": {key: _errors(form) for key, form in refused.items() if key != "invite"},
        "events": organization.events.order_by("-at", "-id")[:20] if is_admin else [],
    }
    return render_page_or_partial(request, TEMPLATE, context, status=status)


class NoFields(forms.Form):
    """A form whose only input is its button."""


def _errors(form) -> list[str]:
    return [message for messages_ in form.errors.values() for message in messages_]


def act_on_tender(request, form_class, change, *, at: str, notice: str):
    """Bind the form, make the change; a refusal keeps the form `at` its place (422)."""
    organization = _organization(request)
    form = form_class(request.POST)
    if form.is_valid():
        try:
            change(organization, form.cleaned_data)
        except DomainError as error:
            add_domain_error(form, error)
        else:
            messages.success(request, notice)
            request.user.forget_membership()  # it may have left or lost its seat
            return redirect("members" if request.user.organization else "dashboard")
    return _page(request, organization, refused={at: form}, status=422)


def _member(organization, user_id) -> User:
    membership = organization.memberships.select_related("user").filter(user_id=user_id).first()
    if membership is None:
        raise Http404
    return membership.user


@require_GET
@login_required
def members(request):
    return _page(request, _organization(request))


@require_POST
@login_required
def invite(request):
    def change(organization, data):
        organization.invite(user=request.user, email=data["email"])

    return act_on_tender(
        request,
        InviteForm,
        change,
        at="invite",
        notice=_("The invitation is sent. Its link works once, for %(days)s days.")
        % {"days": settings.INVITATION_DAYS},
    )


@require_POST
@login_required
def revoke_invitation(request, invitation_id):
    organization = _organization(request)
    invitation = organization.invitations.filter(pk=invitation_id).first()
    if invitation is None:
        raise Http404

    def change(organization, _data):
        invitation.revoke(user=request.user)

    return act_on_tender(
        request,
        NoFields,
        change,
        at=f"invitation:{invitation_id}",
        notice=_("The invitation is withdrawn: its link works no more."),
    )


@require_POST
@login_required
def decide_request(request, request_id):
    organization = _organization(request)
    join_request = organization.join_requests.select_related("user").filter(pk=request_id).first()
    if join_request is None:
        raise Http404
    accepted = request.POST.get("accept") == "1"

    def change(organization, data):
        if data["accept"]:
            join_request.accept(user=request.user)
        else:
            join_request.refuse(user=request.user)

    name = join_request.user.get_full_name() or join_request.user.get_username()
    return act_on_tender(
        request,
        DecisionForm,
        change,
        at=f"request:{request_id}",
        notice=(_("%(name)s is now a member.") if accepted else _("The request is refused."))
        % {"name": name},
    )


@require_POST
@login_required
def member_action(request, user_id):
    organization = _organization(request)
    member = _member(organization, user_id)
    notices = {
        "remove": _("%(name)s is no longer a member."),
        "make_admin": _("%(name)s is now an administrator."),
        "revoke_admin": _("%(name)s is no longer an administrator."),
    }

    def change(organization, data):
        if data["action"] == "remove":
            organization.remove(user=request.user, member=member)
        else:
            organization.set_role(
                user=request.user, member=member, admin=data["action"] == "make_admin"
            )

    action = request.POST.get("action")
    return act_on_tender(
        request,
        MemberForm,
        change,
        at=f"member:{user_id}",
        notice=notices.get(action, "") % {"name": member.get_full_name() or member.get_username()},
    )


@require_POST
@login_required
def leave(request):
    def change(organization, _data):
        organization.leave(user=request.user)

    return act_on_tender(
        request,
        NoFields,
        change,
        at="leave",
        notice=_("You have left the organization."),
    )
