"""Accounts: sign-up never joins an existing organization, the e-mail address is confirmed by a
signed link, people join by an administrator's decision (a request or an invitation)."""

import re
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.urls import reverse

from core.actors import Actor, Role
from core.errors import EmailNotConfirmed, NoOrganization
from portal.models import Invitation, JoinRequest, Membership, Organization, User
from portal.models.organization_errors import AlreadyMember, InvitationUnusable
from tenders.models import Tender
from tests.factories import PASSWORD, make_user, sign_up
from tests.helpers import tender_data
from tests.portal.forms import PASSWORD_FIELDS, signup_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


def link_in(message) -> str:
    """The path of the one link of the portal in an e-mail."""
    [url] = re.findall(r"https?://\S+", message.body)
    return urlsplit(url).path


def follow_confirmation(client, to: str):
    [message] = [m for m in mail.outbox if m.to == [to]]
    return client.get(link_in(message))


# --- sign-up ---------------------------------------------------------------------------------


def test_sign_up_names_an_organization_that_is_registered_once_the_address_is_confirmed(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("signup"), signup_form("olena", "2894512345"))

    user = User.objects.get(username="olena")
    assert response.status_code == 302 and response["Location"] == reverse("dashboard")
    assert user.organization is None and user.email_confirmed_at is None
    assert not Organization.objects.exists()
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert "Confirm your e-mail address" in dashboard

    confirmed = follow_confirmation(client, "olena@example.org")

    user = User.objects.get(username="olena")
    assert confirmed.status_code == 302
    assert user.email_confirmed_at is not None
    organization = user.organization
    assert (organization.identifier, organization.kind) == ("2894512345", "procuring")
    assert organization.verification == "pending"
    assert Membership.objects.get(user=user).role == "admin"
    assert [e.action for e in organization.events.all()] == ["register"]


def test_sign_up_says_the_same_whether_the_identifier_is_registered_or_not(
    client, django_capture_on_commit_callbacks
):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    answers = []
    for username, identifier in (("known", "01993913"), ("unknown", "01993914")):
        client.logout()
        client.cookies["django_language"] = "en"
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                reverse("signup"), signup_form(username, identifier), follow=True
            )
        page = response.content.decode().replace(username, "NAME")
        # (what differs on every page anyway: its tokens and nonces)
        page = re.sub(r'(value|nonce)="[^"]*"|"x-csrftoken": "[^"]*"', "", page)
        answers.append((response.status_code, response.redirect_chain, page))

    assert answers[0] == answers[1]
    [known, unknown] = [m for m in mail.outbox if m.to[0].startswith(("known", "unknown"))]
    assert known.subject == unknown.subject
    assert "registered as" not in answers[0][2]


def test_sign_up_with_a_registered_identifier_asks_to_join_and_gives_no_access_until_accepted(
    client, clock, as_user, django_capture_on_commit_callbacks
):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    draft, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now(), status="draft")
    )
    newcomer = sign_up("mallory", name="Лікарня", identifier="01993913", kind="procuring")

    request = JoinRequest.objects.get(user=newcomer)
    assert newcomer.organization is None and request.status == "pending"
    assert as_user(newcomer).get(reverse("tender", args=[draft.pk])).status_code == 404
    cancel = as_user(newcomer).post(
        reverse("tender-cancel", args=[draft.pk]),
        {"once": "c" * 32, "ground": "noDemand", "reason": "Моє"},
    )
    assert cancel.status_code == 404
    assert Tender.objects.get(pk=draft.pk).status == "draft"

    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(buyer).post(reverse("join-decide", args=[request.pk]), {"accept": "1"})

    assert response.status_code == 302
    assert User.objects.get(pk=newcomer.pk).organization == buyer.organization
    assert as_user(newcomer).get(reverse("tender", args=[draft.pk])).status_code == 200
    [told] = [m for m in mail.outbox if m.to == ["mallory@example.org"]]
    assert "Лікарня" in told.subject


def test_administrators_are_told_of_a_request_and_see_it_on_their_dashboard(
    as_user, django_capture_on_commit_callbacks
):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    with django_capture_on_commit_callbacks(execute=True):
        olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")

    [notice] = [m for m in mail.outbox if m.to == ["buyer@example.org"]]
    assert "olena@example.org" in notice.body
    dashboard = as_user(buyer).get(reverse("dashboard")).content.decode()
    assert (
        "olena@example.org" in dashboard
        and reverse("join-decide", args=[olena.pending_join_request().pk]) in dashboard
    )


def test_refused_request_leaves_the_account_without_an_organization(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    request = olena.pending_join_request()

    response = as_user(buyer).post(reverse("join-decide", args=[request.pk]), {"accept": "0"})

    request.refresh_from_db()
    assert response.status_code == 302
    assert request.status == "refused" and request.decided_by == buyer
    assert User.objects.get(pk=olena.pk).organization is None
    again = as_user(buyer).post(reverse("join-decide", args=[request.pk]), {"accept": "1"})
    assert again.status_code == 422
    assert "already been answered" in again.content.decode()
    assert User.objects.get(pk=olena.pk).organization is None


def test_a_member_who_is_no_administrator_cannot_admit(as_user):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    colleague = make_user("colleague", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    request = olena.pending_join_request()

    response = as_user(colleague).post(reverse("join-decide", args=[request.pk]), {"accept": "1"})

    assert response.status_code == 422
    assert "administrators can do this" in response.content.decode()
    assert JoinRequest.objects.get(pk=request.pk).status == "pending"


def test_a_request_of_another_organization_is_a_404(as_user):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    other = make_user("other", "Інша", "01993914", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")

    response = as_user(other).post(
        reverse("join-decide", args=[olena.pending_join_request().pk]), {"accept": "1"}
    )

    assert response.status_code == 404


def test_the_person_withdraws_its_request_and_names_another_organization(as_user):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    client = as_user(olena)

    twice = client.post(
        reverse("join"),
        {"organization_name": "Моя", "organization_identifier": "40111222", "organization_kind": "bidder"},
    )  # fmt: skip
    withdrawn = client.post(reverse("join-withdraw"))
    joined = client.post(
        reverse("join"),
        {"organization_name": "Моя", "organization_identifier": "40111222", "organization_kind": "bidder"},
    )  # fmt: skip

    assert twice.status_code == 422 and "wait for the answer" in twice.content.decode()
    assert withdrawn.status_code == 302 and joined.status_code == 302
    assert JoinRequest.objects.get(user=olena).status == "withdrawn"
    assert User.objects.get(pk=olena.pk).organization.identifier == "40111222"


def test_a_request_accepted_after_the_person_joined_elsewhere_is_refused():
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    request = olena.pending_join_request()
    Membership.objects.create(user=olena, organization=Organization.objects.create(
        name="Інша", identifier="40111222", kind="bidder"
    ))  # fmt: skip

    with pytest.raises(AlreadyMember):
        request.accept(user=buyer)
    assert JoinRequest.objects.get(pk=request.pk).status == "pending"


# --- e-mail confirmation ---------------------------------------------------------------------


def test_an_unconfirmed_account_cannot_act():
    user = User.objects.create_user("olena", email="olena@example.org", password=PASSWORD)

    with pytest.raises(EmailNotConfirmed):
        Actor(Role.AUTHENTICATED, user=user).check_standing(in_public=False)
    with pytest.raises(EmailNotConfirmed):
        Organization.objects.join_or_register(
            user=user, name="Моя", identifier="40111222", kind="bidder"
        )
    assert not Organization.objects.exists()


def test_a_confirmed_account_without_an_organization_cannot_act():
    user = sign_up("olena")

    with pytest.raises(NoOrganization):
        Actor(Role.AUTHENTICATED, user=user).check_standing(in_public=False)


@pytest.mark.parametrize(
    "token",
    ["nonsense", "eyJ1c2VyIjoxLCJlbWFpbCI6ImFAYi5jIn0:1abc:forged"],
)
def test_a_bad_confirmation_link_is_refused_with_a_page(client, token):
    response = client.get(reverse("confirm-email", args=[token]))

    assert response.status_code == 400
    assert "not valid or has expired" in response.content.decode()


def test_the_link_stops_working_when_the_address_changes(client):
    user = User.objects.create_user("olena", email="olena@example.org")
    token = user.confirmation_token()
    user.email = "other@example.org"
    user.save()

    response = client.get(reverse("confirm-email", args=[token]))

    assert response.status_code == 400
    assert User.objects.get(pk=user.pk).email_confirmed_at is None


def test_the_link_expires(client, clock, settings):
    settings.EMAIL_CONFIRMATION_DAYS = 3
    user = User.objects.create_user("olena", email="olena@example.org")
    token = user.confirmation_token()
    clock.advance(days=3, minutes=1)

    assert client.get(reverse("confirm-email", args=[token])).status_code == 400
    assert User.objects.get(pk=user.pk).email_confirmed_at is None


def test_a_second_visit_of_the_link_changes_nothing(client):
    user = User.objects.create_user("olena", email="olena@example.org")
    user.pending_organization = {"name": "Моя", "identifier": "40111222", "kind": "bidder"}
    user.save()
    token = user.confirmation_token()

    first = client.get(reverse("confirm-email", args=[token]))
    second = client.get(reverse("confirm-email", args=[token]))

    assert first.status_code == second.status_code == 302
    assert Organization.objects.count() == 1 and Membership.objects.count() == 1


def test_a_new_link_is_sent_on_request(as_user, django_capture_on_commit_callbacks):
    user = User.objects.create_user("olena", email="olena@example.org")

    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(user).post(reverse("confirm-email-again"))

    assert response.status_code == 302
    [message] = mail.outbox
    assert message.to == ["olena@example.org"]
    assert as_user(None).get(link_in(message)).status_code == 302
    assert User.objects.get(pk=user.pk).email_confirmed_at is not None


# --- invitations -----------------------------------------------------------------------------


def invite(admin, email="olena@example.org") -> str:
    """Invite by e-mail through the model; the token of the link."""
    _invitation, token = admin.organization.invite(user=admin, email=email)
    return token


def test_an_invited_person_creates_an_account_and_is_a_member_at_once(
    client, as_user, django_capture_on_commit_callbacks
):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(buyer).post(reverse("invite"), {"email": "olena@example.org"})
    [message] = [m for m in mail.outbox if m.to == ["olena@example.org"]]
    url = link_in(message)

    page = as_user(None).get(url)
    joined = client.post(
        url, {"username": "olena", "first_name": "Олена", "last_name": "К", **PASSWORD_FIELDS}
    )

    olena = User.objects.get(username="olena")
    assert response.status_code == 302 and page.status_code == 200
    assert joined.status_code == 302
    assert olena.organization == buyer.organization and olena.email == "olena@example.org"
    assert olena.email_confirmed_at is not None
    assert Membership.objects.get(user=olena).role == "member"
    assert "accept_invitation" in [e.action for e in buyer.organization.events.all()]


def test_a_signed_in_account_of_the_invited_address_joins(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena")
    token = invite(buyer)

    response = as_user(olena).post(reverse("invitation", args=[token]))

    assert response.status_code == 302
    assert User.objects.get(pk=olena.pk).organization == buyer.organization


def test_an_invitation_works_once(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena")
    token = invite(buyer)
    as_user(olena).post(reverse("invitation", args=[token]))
    other = sign_up("other", email="olena@example.org")

    again = as_user(other).post(reverse("invitation", args=[token]))

    assert again.status_code == 422
    assert "already been used" in again.content.decode()
    assert User.objects.get(pk=other.pk).organization is None


def test_an_expired_invitation_is_refused(as_user, clock, settings):
    settings.INVITATION_DAYS = 7
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena")
    token = invite(buyer)
    clock.advance(days=7)

    page = as_user(olena).get(reverse("invitation", args=[token]))
    response = as_user(olena).post(reverse("invitation", args=[token]))

    assert "has expired" in page.content.decode()
    assert response.status_code == 422 and "has expired" in response.content.decode()
    assert User.objects.get(pk=olena.pk).organization is None


def test_an_invitation_for_another_address_is_refused(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    mallory = sign_up("mallory")
    token = invite(buyer)

    response = as_user(mallory).post(reverse("invitation", args=[token]))

    assert response.status_code == 422
    assert "another e-mail address" in response.content.decode()
    assert User.objects.get(pk=mallory.pk).organization is None


def test_a_second_invitation_to_the_address_replaces_the_first(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    first = invite(buyer)
    second = invite(buyer)
    olena = sign_up("olena")

    with pytest.raises(InvitationUnusable, match="withdrawn"):
        Invitation.objects.by_token(first).accept(user=olena)
    Invitation.objects.by_token(second).accept(user=olena)
    assert User.objects.get(pk=olena.pk).organization == buyer.organization


def test_a_withdrawn_invitation_is_refused(as_user):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    token = invite(buyer)
    invitation = Invitation.objects.by_token(token)

    response = as_user(buyer).post(reverse("invitation-revoke", args=[invitation.pk]))
    page = as_user(None).get(reverse("invitation", args=[token]))

    assert response.status_code == 302
    assert "withdrawn" in page.content.decode()


def test_an_unknown_invitation_link_is_a_404(client):
    assert client.get(reverse("invitation", args=["0" * 32])).status_code == 404


def test_only_administrators_invite(as_user):
    make_user("buyer", "Лікарня", "01993913", "procuring")
    colleague = make_user("colleague", "Лікарня", "01993913", "procuring")

    response = as_user(colleague).post(reverse("invite"), {"email": "olena@example.org"})

    assert response.status_code == 422
    assert not Invitation.objects.exists()


def test_accepting_an_invitation_withdraws_a_pending_request():
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    make_user("other", "Інша", "01993914", "procuring")
    olena = sign_up("olena", name="Інша", identifier="01993914", kind="procuring")

    Invitation.objects.by_token(invite(buyer)).accept(user=olena)

    assert JoinRequest.objects.get(user=olena).status == "withdrawn"
    assert User.objects.get(pk=olena.pk).organization == buyer.organization


def test_an_account_that_joined_in_another_tab_cannot_also_ask_to_join():
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    make_user("other", "Інша", "01993914", "procuring")
    olena = sign_up("olena", name="Інша", identifier="01993914", kind="procuring")
    stale = User.objects.get(pk=olena.pk)  # the page was loaded before she joined
    Invitation.objects.by_token(invite(buyer)).accept(user=User.objects.get(pk=olena.pk))

    with pytest.raises(AlreadyMember):
        Organization.objects.join_or_register(
            user=stale, name="Третя", identifier="40111333", kind="bidder"
        )
    assert not JoinRequest.objects.filter(user=olena, status="pending").exists()


def test_withdrawing_a_request_answered_a_moment_before_says_so(as_user, monkeypatch):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    olena = sign_up("olena", name="Лікарня", identifier="01993913", kind="procuring")
    client = as_user(olena)
    page = client.get(reverse("dashboard"))  # the withdraw button is on it
    assert page.status_code == 200
    request = olena.pending_join_request()
    # The administrator refuses while the person's withdrawal is on its way: the person's
    # answer finds the request still pending at first, then already answered.
    original = User.pending_join_request
    calls = []

    def pending_then_refused(user):
        found = original(user)
        if not calls:
            calls.append(1)
            request.refuse(user=buyer)
        return found

    monkeypatch.setattr(User, "pending_join_request", pending_then_refused)
    response = client.post(reverse("join-withdraw"), follow=True)
    assert response.status_code == 200
    assert (
        "already been answered" in response.content.decode() or "вже" in response.content.decode()
    )
    assert JoinRequest.objects.get(pk=request.pk).status == "refused"
