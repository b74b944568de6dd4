"""The portal's own status machines cell by cell, like the tender's (tests/tenders/
test_tables.py): an organization's verification and a request to join, every status × action ×
person, against what the rules allow, written out by hand. Each object reaches its status
through the transitions; allowed cells are then performed by the model's method and leave the
status and the audit event the table says."""

import pytest
from django.utils import timezone

from core.actors import portal_actor
from core.errors import PermissionDenied, Refused, RoleNotAllowed
from portal.models import JoinRequest, Organization
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
        organization.verify(by=operator())
    elif status == "refused":
        organization.refuse(by=operator(), reason=REASON)
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
            organization.verify(by=user)
        else:
            organization.refuse(by=user, reason=REASON)
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
        request.accept(by=admin)
    elif status == "refused":
        request.refuse(by=admin)
    elif status == "withdrawn":
        request.withdraw(by=applicant)
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
        getattr(request, action)(by=people[who])
        request.refresh_from_db()
        target = {"accept": "accepted", "refuse": "refused", "withdraw": "withdrawn"}[action]
        assert request.status == target
        assert request.decided_by == people[who] and request.decided_at is not None
        event = request.organization.events.latest("id")
        assert (event.action, event.member) == (f"{action}_request", people["applicant"])
        joined = request.organization.memberships.filter(user=people["applicant"]).exists()
        assert joined is (action == "accept")


def test_the_tables_are_the_cells_tested():
    assert {a: (r.sources, r.target) for a, r in Organization.TRANSITIONS.items()} == {
        "verify": ({"pending", "refused"}, "verified"),
        "refuse": ({"pending", "verified"}, "refused"),
    }
    assert set(JoinRequest.TRANSITIONS) == set(JOIN_ALLOWED)
