"""Two administrators of one organization act at once on PostgreSQL: the organization never
ends without an administrator, and one invitation admits one person."""

import pytest

from portal.models import Invitation, Membership
from portal.models.organization_errors import InvitationUnusable, NotAnAdministrator
from tests.concurrency.conftest import run_together
from tests.factories import make_user, sign_up

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def outcome(call):
    try:
        call()
    except (NotAnAdministrator, InvitationUnusable) as refusal:
        return type(refusal).__name__
    return "done"


@pytest.mark.parametrize("round_", range(3))
def test_two_administrators_removing_each_other_leave_one(brokers, round_):
    first = make_user("first", "Лікарня", "01993913", "procuring")
    second = make_user("second", "Лікарня", "01993913", "procuring")
    organization = first.organization
    organization.set_role(user=first, member=second, admin=True)

    results = run_together(
        lambda: outcome(lambda: organization.remove(user=first, member=second)),
        lambda: outcome(lambda: organization.remove(user=second, member=first)),
    )

    assert sorted(results) == ["NotAnAdministrator", "done"]
    assert Membership.objects.filter(organization=organization, role="admin").count() == 1


def test_two_people_following_one_invitation_make_one_member(brokers):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena")
    twin = sign_up("twin", email="olena@example.org")
    _invitation, token = buyer.organization.invite(user=buyer, email="olena@example.org")
    invitation = Invitation.objects.by_token(token)

    results = run_together(
        lambda: outcome(lambda: Invitation.objects.get(pk=invitation.pk).accept(user=olena)),
        lambda: outcome(lambda: Invitation.objects.get(pk=invitation.pk).accept(user=twin)),
    )

    assert sorted(results) == ["InvitationUnusable", "done"]
    assert Membership.objects.filter(organization=buyer.organization).count() == 2
