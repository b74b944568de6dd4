"""An organization's members and its verification: administrators remove members and appoint
administrators (the last one stays); operators verify or refuse in the admin's queue; every
change is in the organization's audit trail."""

import pytest
from django.contrib.auth.models import Permission
from django.core import mail
from django.urls import reverse

from core.actors import Actor, Role
from core.errors import InvalidData, PermissionDenied
from portal.models import Membership, Organization, User
from portal.models.organization_errors import LastAdministrator, NotAnAdministrator, Refused
from tenders.models import Tender
from tests.factories import make_user, operator, sign_up
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/portal/organization/"


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", "procuring")


@pytest.fixture
def colleague(buyer):
    return make_user("colleague", "Лікарня", "01993913", "procuring")


def member_action(client, member, action):
    return client.post(reverse("member", args=[member.pk]), {"action": action})


def role_of(user) -> str | None:
    membership = Membership.objects.filter(user=user).first()
    return membership.role if membership else None


# --- the organization's page ----------------------------------------------------------------


def test_administrators_see_requests_invitations_and_the_invite_form(as_user, buyer, colleague):
    sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    buyer.organization.invite(user=buyer, email="ivan@example.org")

    admin_page = as_user(buyer).get(reverse("members")).content.decode()
    member_page = as_user(colleague).get(reverse("members")).content.decode()

    for text in ("olena@example.org", "ivan@example.org", reverse("invite"), "colleague@"):
        assert text in admin_page
    assert "colleague@" in member_page and "buyer@" in member_page
    for text in ("olena@example.org", "ivan@example.org", reverse("invite")):
        assert text not in member_page


def test_an_account_without_an_organization_has_no_organization_page(as_user):
    assert as_user(sign_up("olena")).get(reverse("members")).status_code == 404


# --- members --------------------------------------------------------------------------------


def test_a_removed_member_loses_access_at_once(as_user, buyer, colleague, clock):
    draft, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), status="draft")
    )
    assert as_user(colleague).get(reverse("tender", args=[draft.pk])).status_code == 200

    response = member_action(as_user(buyer), colleague, "remove")

    assert response.status_code == 302
    assert role_of(colleague) is None
    assert as_user(colleague).get(reverse("tender", args=[draft.pk])).status_code == 404
    event = buyer.organization.events.get(action="remove")
    assert (event.actor, event.member) == (buyer, colleague)


def test_a_member_who_is_no_administrator_cannot_remove(as_user, buyer, colleague):
    response = member_action(as_user(colleague), buyer, "remove")

    assert response.status_code == 422
    assert "administrators can do this" in response.content.decode()
    assert role_of(buyer) == "admin"


def test_a_member_of_another_organization_is_a_404(as_user, buyer):
    stranger = make_user("stranger", "Інша", "01993914", "procuring")

    assert member_action(as_user(buyer), stranger, "remove").status_code == 404
    assert role_of(stranger) == "admin"


def test_the_last_administrator_can_neither_leave_nor_be_demoted(as_user, buyer, colleague):
    client = as_user(buyer)

    left = client.post(reverse("leave"))
    demoted = member_action(client, buyer, "revoke_admin")

    assert left.status_code == demoted.status_code == 422
    assert "last administrator" in left.content.decode()
    assert role_of(buyer) == "admin"
    with pytest.raises(LastAdministrator):
        buyer.organization.remove(user=buyer, member=buyer)


def test_another_administrator_appointed_the_first_may_leave(as_user, buyer, colleague):
    appointed = member_action(as_user(buyer), colleague, "make_admin")
    left = as_user(buyer).post(reverse("leave"))

    assert appointed.status_code == left.status_code == 302
    assert role_of(colleague) == "admin" and role_of(buyer) is None
    actions = [e.action for e in colleague.organization.events.all()]
    assert actions[-2:] == ["make_admin", "leave"]


def test_an_administrator_removes_another_administrator_but_not_the_last(buyer, colleague):
    organization = buyer.organization
    organization.set_role(user=buyer, member=colleague, admin=True)

    organization.remove(user=colleague, member=buyer)

    assert role_of(buyer) is None
    with pytest.raises(NotAnAdministrator):
        organization.remove(user=buyer, member=colleague)
    with pytest.raises(LastAdministrator):
        organization.set_role(user=colleague, member=colleague, admin=False)


def test_a_member_leaves(as_user, buyer, colleague):
    response = as_user(colleague).post(reverse("leave"))

    assert response.status_code == 302 and response["Location"] == reverse("dashboard")
    assert role_of(colleague) is None


# --- verification ---------------------------------------------------------------------------


def pending_organization() -> Organization:
    return make_user("olena", "Нова", "40111222", "bidder", verified=False).organization


def test_the_queue_lists_organizations_awaiting_verification_first(admin_client):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    pending = pending_organization()

    response = admin_client.get(CHANGELIST)

    listed = list(response.context["cl"].result_list)
    assert listed[0] == pending and listed[0].verification == "pending"


def test_an_operator_verifies_in_the_admin_and_the_members_are_told(
    admin_client, django_capture_on_commit_callbacks
):
    organization = pending_organization()

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            CHANGELIST, {"action": "verify", "_selected_action": [organization.pk]}
        )

    organization.refresh_from_db()
    assert response.status_code == 302
    assert organization.verification == "verified" and organization.verification_date
    event = organization.events.get(action="verify")
    assert (event.actor_name, event.from_status, event.to_status) == (
        "admin",
        "pending",
        "verified",
    )
    [message] = mail.outbox
    assert message.to == ["olena@example.org"] and "Нова" in message.subject


def test_an_operator_refuses_with_a_reason(admin_client, django_capture_on_commit_callbacks):
    organization = pending_organization()
    selected = {"action": "refuse", "_selected_action": [organization.pk]}

    asked = admin_client.post(CHANGELIST, selected)
    without_reason = admin_client.post(CHANGELIST, {**selected, "reason": " "})
    with django_capture_on_commit_callbacks(execute=True):
        refused = admin_client.post(CHANGELIST, {**selected, "reason": "Код не збігається"})

    organization.refresh_from_db()
    assert asked.status_code == without_reason.status_code == 200
    assert 'name="reason"' in asked.content.decode()
    assert refused.status_code == 302
    assert (organization.verification, organization.refusal_reason) == (
        "refused",
        "Код не збігається",
    )
    [message] = mail.outbox
    assert "Код не збігається" in message.body
    assert [e.action for e in organization.events.all()][-1] == "refuse"


def test_only_operators_verify(client):
    organization = pending_organization()
    staff = User.objects.create_user("clerk", password="x", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_organization"))
    client.force_login(staff)

    with pytest.raises(PermissionDenied):
        organization.verify(user=staff)
    response = client.post(CHANGELIST, {"action": "verify", "_selected_action": [organization.pk]})

    organization.refresh_from_db()
    assert response.status_code == 200  # the action is not offered to a clerk
    assert organization.verification == "pending"
    assert not organization.events.filter(action="verify").exists()


def test_a_verified_organization_is_not_verified_twice(buyer):
    with pytest.raises(Refused):
        buyer.organization.verify(user=operator())


def test_a_refusal_needs_a_reason():
    organization = pending_organization()

    with pytest.raises(InvalidData) as refusal:
        organization.refuse(user=operator(), reason="  ")
    assert refusal.value.errors == {"reason": ["Say why the verification is refused."]}
    organization.refresh_from_db()
    assert organization.verification == "pending"


def test_the_dashboard_tells_an_unverified_organization_what_it_awaits(as_user):
    olena = make_user("olena", "Нова", "40111222", "bidder", verified=False)

    page = as_user(olena).get(reverse("dashboard")).content.decode()

    assert "awaits an operator's verification" in page


def test_an_administrator_who_removes_itself_lands_on_its_dashboard(as_user, buyer, colleague):
    buyer.organization.set_role(user=buyer, member=colleague, admin=True)

    response = member_action(as_user(buyer), buyer, "remove")

    assert response.status_code == 302 and response["Location"] == reverse("dashboard")
    assert role_of(buyer) is None and role_of(colleague) == "admin"
