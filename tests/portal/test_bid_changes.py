"""A bid in the portal after it is placed: a price far below the expected value is asked about
first; the bidder changes the price or withdraws the bid (after a review) while bids are
taken, and nobody else can."""

from datetime import timedelta

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from tenders.models import Bid, Tender
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import bid_form

pytestmark = pytest.mark.django_db

LOW_PRICE = "The price is right"


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def tender(db, clock):
    """Tendering is open; the expected value is 500 UAH."""
    buyer = make_user("buyer", "Лікарня", "01993913", "procuring")
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer), data=tender_data(clock.now())
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    return tender


@pytest.fixture
def bidder(db):
    return make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder")


@pytest.fixture
def placed(client, tender, bidder) -> Bid:
    client.force_login(bidder)
    assert client.post(reverse("bid-place", args=[tender.pk]), bid_form()).status_code == 302
    return Bid.objects.get()


def reprice(client, tender, bid, amount, once="p" * 32, **extra):
    url = reverse("bid-price", args=[tender.pk, bid.pk])
    return client.post(url, {"once": once, "amount": amount, **extra})


def test_a_price_far_below_the_expected_value_is_asked_about_first(client, tender, bidder):
    client.force_login(bidder)
    url = reverse("bid-place", args=[tender.pk])

    asked = client.post(url, bid_form(amount="1.00"))
    confirmed = client.post(url, bid_form(amount="1.00", once="c" * 32, price_is_right="on"))

    assert asked.status_code == 422
    page = asked.content.decode()
    assert "This is less than 30% of the expected value, 500.00 UAH." in page
    assert LOW_PRICE in page  # the box to tick appears with the question
    assert confirmed.status_code == 302
    assert Bid.objects.get().value["amount"] == 1.0


def test_a_price_of_a_third_of_the_expected_value_is_not_questioned(client, tender, bidder):
    client.force_login(bidder)
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()

    response = client.post(reverse("bid-place", args=[tender.pk]), bid_form(amount="150.00"))

    assert LOW_PRICE not in page  # no box before a price is in doubt
    assert response.status_code == 302


def test_the_bidder_changes_its_price_while_bids_are_taken(client, tender, placed, clock):
    clock.advance(minutes=5)
    page = client.get(reverse("tender", args=[tender.pk]))
    [entry] = page.context["my_bids"]

    response = reprice(client, tender, placed, "399.99")

    placed.refresh_from_db()
    assert entry["price_form"].fields["amount"].initial == 420.5
    assert response.status_code == 302
    assert placed.value["amount"] == 399.99
    assert placed.date == clock.now()  # 2.3 dates a bid again when its price changes


def test_a_new_price_far_below_is_asked_about_too(client, tender, placed):
    asked = reprice(client, tender, placed, "10", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="bid")
    placed.refresh_from_db()
    assert asked.status_code == 422 and placed.value["amount"] == 420.5
    assert "This is less than 30% of the expected value" in asked.content.decode()

    reprice(client, tender, placed, "10", once="q" * 32, price_is_right="on")

    placed.refresh_from_db()
    assert placed.value["amount"] == 10.0


def test_nobody_else_changes_or_withdraws_the_bid_or_learns_of_it(client, tender, placed):
    stranger = make_user("stranger", "ПП «Сторонній»", "40111222", "bidder")
    client.force_login(stranger)
    withdraw = reverse("bid-withdraw", args=[tender.pk, placed.pk])

    changed = reprice(client, tender, placed, "300")
    review = client.get(withdraw)
    withdrawn = client.post(withdraw, {"once": "w" * 32})

    placed.refresh_from_db()
    # A sealed bid is not even said to exist to another organization.
    assert (changed.status_code, review.status_code, withdrawn.status_code) == (404, 404, 404)
    assert placed.status == "active" and placed.value["amount"] == 420.5


def test_once_bids_close_the_price_stays(client, tender, placed, clock):
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    page = client.get(reverse("tender", args=[tender.pk]))

    response = reprice(client, tender, placed, "300")

    assert reverse("bid-price", args=[tender.pk, placed.pk]) not in page.content.decode()
    assert response.status_code == 422
    placed.refresh_from_db()
    assert placed.value["amount"] == 420.5


def test_withdrawing_is_reviewed_then_the_bid_is_gone_and_a_new_one_may_be_placed(
    client, tender, placed
):
    url = reverse("bid-withdraw", args=[tender.pk, placed.pk])
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()

    review = client.get(url)
    placed.refresh_from_db()
    assert f'href="{url}"' in page
    assert review.status_code == 200 and placed.status == "active"
    assert "Withdraw your bid?" in review.content.decode()
    assert "a withdrawn bid is never shown" in review.content.decode()

    response = client.post(url, {"once": "w" * 32})

    placed.refresh_from_db()
    assert response.status_code == 302 and placed.status == "deleted"
    after = client.get(reverse("tender", args=[tender.pk]))
    assert after.context["my_bids"] == [] and after.context["bid_form"] is not None
