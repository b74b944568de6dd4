"""Bidding in the portal: the user's organization bids while tendering is open."""

from datetime import timedelta

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from tenders.models import Bid, Tender
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import bid_form

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def tender(db, clock):
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    return tender


@pytest.fixture
def bidder(db):
    return make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder")


def test_bidder_bids_while_tendering_and_sees_its_bid(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    url = reverse("tender", args=[tender.pk])
    assert reverse("bid-place", args=[tender.pk]) in client.get(url).content.decode()

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form())

    bid = Bid.objects.get()
    assert response.status_code == 302
    assert bid.organization == bidder.organization
    assert bid.value["amount"] == 420.5
    assert bid.tenderers[0]["identifier"]["id"] == "38012345"
    page = client.get(url)
    assert [entry["bid"] for entry in page.context["my_bids"]] == [bid]
    assert page.context["bid_form"] is None


def test_no_bid_before_tendering_and_a_forged_one_is_refused(client, tender, bidder):
    client.force_login(bidder)
    page = client.get(reverse("tender", args=[tender.pk]))

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form())

    assert page.context["bid_form"] is None
    assert response.status_code == 422
    assert "Not at this stage of the tender: «enquiries»." in response.content.decode()
    assert not Bid.objects.exists()


def test_bid_above_the_expected_value_is_refused_keeping_the_form(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    response = client.post(
        reverse("bid-place", args=[tender.pk]),
        bid_form(amount="99999"),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="bid",
    )

    assert response.status_code == 422
    assert b"<html" not in response.content
    assert 'value="99999"' in response.content.decode()
    assert not Bid.objects.exists()


def test_a_bid_above_the_expected_value_is_refused_in_ukrainian(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.cookies["django_language"] = "uk"

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form(amount="99999"))

    assert response.status_code == 422
    page = response.content.decode()
    assert "Ціна пропозиції не може перевищувати очікувану вартість закупівлі." in page
    assert "should be less than" not in page


def test_negative_price_is_refused_next_to_the_field(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form(amount="-1"))

    assert response.status_code == 422
    assert "amount" in response.context["bid_form"].errors
    assert not Bid.objects.exists()


def test_a_second_bid_of_the_organization_is_refused(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), bid_form())

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form("400", once="c" * 32))

    assert response.status_code == 422
    assert "Your organization has a bid on this tender already" in response.content.decode()
    assert Bid.objects.count() == 1


def test_the_buyer_is_offered_no_bid_form_and_a_forged_bid_is_refused(client, clock):
    buyer = make_user("own", "Лікарня №5", "01993914", "procuring")
    data = tender_data(clock.now())
    data["procuringEntity"]["identifier"]["id"] = buyer.organization.identifier
    tender, _ = Tender.objects.register(by=Actor(Role.AUTHENTICATED, user=buyer), data=data)
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(buyer)

    page = client.get(reverse("tender", args=[tender.pk]))
    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form())

    assert page.context["bid_form"] is None
    assert response.status_code == 422
    assert "A procuring entity does not bid on its own tender." in response.content.decode()
    assert not Bid.objects.exists()


def test_a_zero_price_is_refused_even_when_said_to_be_right(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    response = client.post(
        reverse("bid-place", args=[tender.pk]), bid_form(amount="0", price_is_right="on")
    )

    assert response.status_code == 422
    assert "A price is above zero." in response.content.decode()
    assert not Bid.objects.exists()
