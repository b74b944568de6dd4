"""The portal's own status machines cell by cell, like the tender's (tests/tenders/
test_tables.py): an organization's verification and a request to join, every status × action ×
person, against what the rules allow, written out by hand. Each object reaches its status
through the transitions; allowed cells are then performed by the model's method and leave the
status and the audit event the table says."""

import pytest
from django.utils import timezone

from core.actors import Actor, Role, portal_actor
from core.errors import PermissionDenied, Refused, RoleNotAllowed
from portal.models import Invitation, JoinRequest, Organization
from portal.models import organization_errors as refusals
from tests.factories import make_user, operator, sign_up

pytestmark = pytest.mark.django_db

ALLOWED = "allowed"
REASON = "Код ЄДРПОУ не збігається з назвою."


def outcome(subject, action: str, user):
    try:
        subject.guard(action, portal_actor(user), timezone.now())
    except Refused as refusal:
        return type(refusal)
    return ALLOWED


# --- Verification ---------------------------------------------------------------------------

VERIFICATION_ALLOWED = {"verify": {"pending", "refused"}, "refuse": {"pending", "verified"}}


def organization_in(status: str) -> tuple[Organization, object]:
    """A new organization (its administrator returned too), brought to `status` by an operator."""
    admin = make_user("founder", "ТОВ «Нове»", "41000001", Organization.Kind.BIDDER, verified=False)
    organization = admin.organization
    if status == "verified":
        organization.verify(user=operator())
    elif status == "refused":
        organization.refuse(user=operator(), reason=REASON)
    organization.refresh_from_db()
    assert organization.verification == status
    return organization, admin


@pytest.mark.parametrize("status", ["pending", "verified", "refused"])
@pytest.mark.parametrize("action", ["verify", "refuse"])
@pytest.mark.parametrize("who", ["operator", "administrator", "anonymous"])
def test_verification_cells(status, action, who):
    organization, admin = organization_in(status)
    user = {"operator": operator(), "administrator": admin, "anonymous": None}[who]
    if who != "operator":
        expected = PermissionDenied
    else:
        expected = ALLOWED if status in VERIFICATION_ALLOWED[action] else refusals.Refused
    assert outcome(organization, action, user) == expected
    if expected is ALLOWED:
        before = organization.events.count()
        if action == "verify":
            organization.verify(user=user)
        else:
            organization.refuse(user=user, reason=REASON)
        organization.refresh_from_db()
        target = {"verify": "verified", "refuse": "refused"}[action]
        assert organization.verification == target
        assert organization.verification_date is not None
        event = organization.events.latest("id")
        assert organization.events.count() == before + 1
        assert (event.action, event.from_status, event.to_status) == (action, status, target)


# --- A request to join ----------------------------------------------------------------------

JOIN_ALLOWED = {
    "accept": ({"pending"}, "administrator"),
    "refuse": ({"pending"}, "administrator"),
    "withdraw": ({"pending"}, "applicant"),
}
PEOPLE = ["administrator", "applicant", "member", "stranger", "anonymous"]


def request_in(status: str) -> tuple[JoinRequest, dict]:
    """A request to join a verified organization, brought to `status` by its people."""
    admin = make_user("head", "Лікарня №5", "02000002", Organization.Kind.PROCURING)
    member = make_user("clerk", "Лікарня №5", "02000002", Organization.Kind.PROCURING)
    stranger = make_user("other", "ТОВ «Інше»", "41000009", Organization.Kind.BIDDER)
    applicant = sign_up("olena", name="Лікарня №5", identifier="02000002", kind="procuring")
    request = applicant.pending_join_request()
    if status == "accepted":
        request.accept(user=admin)
    elif status == "refused":
        request.refuse(user=admin)
    elif status == "withdrawn":
        request.withdraw(user=applicant)
    request.refresh_from_db()
    assert request.status == status
    people = {
        "administrator": admin, "applicant": applicant, "member": member, "stranger": stranger,
        "anonymous": None,
    }  # fmt: skip
    return request, people


@pytest.mark.parametrize("status", ["pending", "accepted", "refused", "withdrawn"])
@pytest.mark.parametrize("action", ["accept", "refuse", "withdraw"])
@pytest.mark.parametrize("who", PEOPLE)
def test_join_request_cells(status, action, who):
    request, people = request_in(status)
    statuses, performer = JOIN_ALLOWED[action]
    if who in ("member", "stranger", "anonymous"):
        expected = refusals.NotAnAdministrator
    elif who != performer:
        expected = RoleNotAllowed
    else:
        expected = ALLOWED if status in statuses else refusals.Refused
    assert outcome(request, action, people[who]) == expected
    if expected is ALLOWED:
        getattr(request, action)(user=people[who])
        request.refresh_from_db()
        target = {"accept": "accepted", "refuse": "refused", "withdraw": "withdrawn"}[action]
        assert request.status == target
        assert request.decided_by == people[who] and request.decided_at is not None
        event = request.organization.events.latest("id")
        assert (event.action, event.member) == (f"{action}_request", people["applicant"])
        joined = request.organization.memberships.filter(user=people["applicant"]).exists()
        assert joined is (action == "accept")


def test_the_tables_are_the_cells_tested():
    assert {a: (r.sources, r.targets) for a, r in Organization.TRANSITIONS.items()} == {
        "verify": ({"pending", "refused"}, {"verified"}),
        "refuse": ({"pending", "verified"}, {"refused"}),
    }
    assert set(JoinRequest.TRANSITIONS) == set(JOIN_ALLOWED)
    assert set(Invitation.TRANSITIONS) == set(INVITATION_ALLOWED)


# --- An invitation --------------------------------------------------------------------------

INVITATION_ALLOWED = {
    "accept": ({"pending"}, "invitee"),
    "revoke": ({"pending"}, "administrator"),
    "replace": ({"pending"}, "administrator"),
}
INVITATION_STATUSES = ["pending", "accepted", "revoked", "replaced", "expired"]


def invitation_in(status: str, clock) -> tuple[Invitation, dict]:
    """An invitation to a verified organization, brought to `status` by its people (or by
    time: an expired one is pending, past its days)."""
    admin = make_user("head", "Лікарня №5", "02000002", Organization.Kind.PROCURING)
    stranger = make_user("other", "ТОВ «Інше»", "41000009", Organization.Kind.BIDDER)
    invitee = sign_up("olena", email="olena@example.org")
    invitation, _token = admin.organization.invite(user=admin, email="olena@example.org")
    if status == "accepted":
        invitation.accept(user=invitee)
    elif status == "revoked":
        invitation.revoke(user=admin)
    elif status == "replaced":
        admin.organization.invite(user=admin, email="Olena@example.org")
    elif status == "expired":
        clock.move_to(invitation.expires_at)
    invitation.refresh_from_db()
    assert invitation.status == {"replaced": "revoked", "expired": "pending"}.get(status, status)
    people = {"administrator": admin, "invitee": invitee, "stranger": stranger}
    return invitation, people


def invitation_actor(invitation, who: str, user) -> Actor:
    """The invitee acts by the link it holds; anyone else as the portal knows them."""
    if who == "invitee":
        return Actor(Role.INVITEE, user=user, subject=invitation)
    return portal_actor(user)


@pytest.mark.parametrize("status", INVITATION_STATUSES)
@pytest.mark.parametrize("action", list(INVITATION_ALLOWED))
@pytest.mark.parametrize("who", ["administrator", "invitee", "stranger"])
def test_invitation_cells(status, action, who, clock):
    invitation, people = invitation_in(status, clock)
    statuses, performer = INVITATION_ALLOWED[action]
    try:
        invitation.guard(action, invitation_actor(invitation, who, people[who]), timezone.now())
        found = ALLOWED
    except Refused as refusal:
        found = type(refusal)
    if who == "stranger":
        expected = refusals.NotAnAdministrator
    elif who != performer:
        expected = RoleNotAllowed
    elif status == "expired" and action != "replace":
        expected = refusals.InvitationUnusable  # (a new invitation replaces one expired too)
    else:
        expected = ALLOWED if invitation.status in statuses else refusals.InvitationUnusable
    assert found == expected


def test_accepting_an_invitation_withdraws_a_pending_request_through_its_table(clock):
    admin = make_user("head", "Лікарня №5", "02000002", Organization.Kind.PROCURING)
    make_user("boss", "ТОВ «Інше»", "41000009", Organization.Kind.BIDDER)
    person = sign_up("olena", name="ТОВ «Інше»", identifier="41000009", kind="bidder")
    request = person.pending_join_request()
    invitation, _token = admin.organization.invite(user=admin, email=person.email)

    invitation.accept(user=person)

    request.refresh_from_db()
    invitation.refresh_from_db()
    assert (request.status, request.decided_by) == ("withdrawn", person)
    assert (invitation.status, invitation.accepted_by) == ("accepted", person)
    withdrawn = request.organization.events.latest("id")
    assert (withdrawn.action, withdrawn.member) == ("withdraw_request", person)
    joined = admin.organization.events.latest("id")
    assert (joined.action, joined.member) == ("accept_invitation", person)


def test_a_new_invitation_replaces_the_earlier_one_through_its_table(clock):
    admin = make_user("head", "Лікарня №5", "02000002", Organization.Kind.PROCURING)
    earlier, _token = admin.organization.invite(user=admin, email="olena@example.org")

    admin.organization.invite(user=admin, email="OLENA@example.org")

    earlier.refresh_from_db()
    assert earlier.status == "revoked" and earlier.revoked_at is not None
    actions = list(admin.organization.events.values_list("action", flat=True))
    assert actions[-3:] == ["invite", "replace_invitation", "invite"]
