"""An organization acts in public only once an operator has verified it: every acting method of
the portal is refused for an unverified one (with the message next to the form, with and
without htmx), while drafts stay open to it. Verification withdrawn stops it as well."""

from datetime import timedelta

import pytest
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import Bid, Tender
from tests.factories import RESOLUTION, make_user, operator
from tests.helpers import tender_data
from tests.portal.forms import bid_form, claim_form, signing_form, tender_form

pytestmark = pytest.mark.django_db

NOT_VERIFIED = "Your organization is not verified yet"
FACES = {"plain": {}, "htmx": {"HTTP_HX_REQUEST": "true"}}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture(params=FACES)
def face(request):
    """The same form sent as a plain post and through htmx."""
    return FACES[request.param]


def refused(response) -> bool:
    return response.status_code == 422 and NOT_VERIFIED in response.content.decode()


def withdraw_verification(user) -> None:
    user.organization.refuse(user=operator(), reason="Документи не підтверджено")


# --- a new organization, before its verification -------------------------------------------


def test_an_unverified_buyer_saves_drafts_but_does_not_publish(as_user, clock, face):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring", verified=False)
    client = as_user(buyer)

    published = client.post(reverse("tender-new"), tender_form(clock, publish="1"), **face)
    drafted = client.post(reverse("tender-new"), tender_form(clock, once="m" * 32), **face)

    assert refused(published)
    [draft] = Tender.objects.all()
    assert drafted.status_code in (200, 302) and draft.status == "draft"
    publish = client.post(reverse("tender-publish", args=[draft.pk]), {"once": "p" * 32}, **face)
    assert refused(publish)
    assert Tender.objects.get(pk=draft.pk).status == "draft"


def test_an_unverified_bidder_does_not_bid(as_user, clock, face):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    bidder = make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder", verified=False)
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))

    response = as_user(bidder).post(reverse("bid-place", args=[tender.pk]), bid_form(), **face)

    assert refused(response)
    assert not Bid.objects.exists()


DRAFTS_ONLY = "Meanwhile its members write drafts"


def test_an_unverified_organization_is_told_before_it_fills_a_form(as_user, clock):
    """Drafts only: said on the new tender's form and by the bid form, before anything is
    filled in (and not said to a verified one)."""
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    newcomer = make_user("newbuyer", "Школа", "02993913", "procuring", verified=False)
    bidder = make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder", verified=False)
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))

    assert DRAFTS_ONLY in as_user(newcomer).get(reverse("tender-new")).text
    assert DRAFTS_ONLY not in as_user(buyer).get(reverse("tender-new")).text
    assert DRAFTS_ONLY in as_user(bidder).get(reverse("tender", args=[tender.pk])).text


def test_verified_by_an_operator_the_same_buyer_publishes(as_user, clock):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring", verified=False)
    buyer.organization.verify(user=operator())

    response = as_user(buyer).post(reverse("tender-new"), tender_form(clock, publish="1"))

    assert response.status_code == 302
    assert Tender.objects.get().status == "active.enquiries"


# --- verification withdrawn from an organization that acted before --------------------------


def test_decisions_of_a_buyer_whose_verification_is_withdrawn_are_refused(world, as_user, face):
    withdraw_verification(world.buyer)
    client = as_user(world.buyer)
    tender, award = world.tender, world.award

    decision = client.post(
        reverse("award-decision", args=[tender.pk, award.pk]),
        {"once": "a" * 32, "action": "cancel"},
        **face,
    )
    contract = client.post(
        reverse("contract-sign", args=[tender.pk, award.pk]), signing_form(), **face
    )
    cancel = client.post(
        reverse("tender-cancel", args=[tender.pk]),
        {"once": "c" * 32, "ground": "noDemand", "reason": "Потреба відпала"},
        **face,
    )

    assert refused(decision) and refused(contract) and refused(cancel)
    world.refresh()
    assert world.award.status == "active" and world.tender.status == "active.awarded"
    assert world.tender.contracts.get().status == "pending"


def test_a_buyer_whose_verification_is_withdrawn_saves_an_answer_but_does_not_send_it(
    world, as_user, face
):
    bid = world.tender.bids.get(organization=world.bidder.organization)
    claim, _ = Complaint.objects.file(
        award=world.award,
        by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Скарга",
        author=bid.tenderers[0],
        submit=True,
    )
    withdraw_verification(world.buyer)
    url = reverse("claim-answer", args=[claim.pk])
    answer = {"resolution_type": "resolved", "resolution": RESOLUTION}

    sent = as_user(world.buyer).post(url, {"once": "d" * 32, **answer, "answer": "1"}, **face)
    saved = as_user(world.buyer).post(url, {"once": "e" * 32, **answer, "prepare": "1"}, **face)

    assert refused(sent)
    assert saved.status_code in (200, 302)
    claim.refresh_from_db()
    assert claim.status == "claim" and claim.resolution == RESOLUTION


def test_a_bidder_whose_verification_is_withdrawn_drafts_a_claim_but_does_not_file_it(
    world, as_user, face
):
    withdraw_verification(world.bidder)
    client = as_user(world.bidder)
    url = reverse("claim-new", args=[world.tender.pk, world.award.pk])

    filed = client.post(url, claim_form(submit="1"), **face)
    drafted = client.post(url, claim_form(once="z" * 32), **face)

    assert refused(filed)
    [draft] = Complaint.objects.all()
    assert drafted.status_code in (200, 302) and draft.status == "draft"
    submit = client.post(
        reverse("claim-draft", args=[draft.pk]),
        {"once": "y" * 32, "title": draft.title, "description": draft.description, "submit": "1"},
        **face,
    )
    assert refused(submit)
    assert Complaint.objects.get(pk=draft.pk).status == "draft"


def test_a_claimant_whose_verification_is_withdrawn_does_not_close_the_claim(world, as_user, face):
    bid = world.tender.bids.get(organization=world.bidder.organization)
    claim, _ = Complaint.objects.file(
        award=world.award,
        by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Скарга",
        author=bid.tenderers[0],
        submit=True,
    )
    claim.tender = world.tender
    claim.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")
    withdraw_verification(world.bidder)

    response = as_user(world.bidder).post(
        reverse("claim-decision", args=[claim.pk]),
        {"once": "f" * 32, "satisfied": "true"},
        **face,
    )

    assert refused(response)
    assert Complaint.objects.get(pk=claim.pk).status == "answered"


def test_the_refusal_is_translated_in_the_ukrainian_portal(as_user, clock, client):
    client.cookies["django_language"] = "uk"
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring", verified=False)

    response = as_user(buyer).post(reverse("tender-new"), tender_form(clock, publish="1"))

    assert response.status_code == 422
    assert NOT_VERIFIED not in response.content.decode()
    assert "Вашу організацію ще не перевірено" in response.content.decode()
