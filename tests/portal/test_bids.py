"""Bidding in the portal: the user's organization bids while tendering is open."""

from datetime import timedelta

import pytest
from django.urls import reverse

from core.actors import Actor, Role
from portal.models import User
from tenders.models import Bid, Tender
from tests.factories import make_user
from tests.helpers import tender_data
from tests.portal.forms import bid_form, upload

pytestmark = pytest.mark.django_db

LICENCE = b"%PDF-1.4 the bidder's licence"


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


def test_a_sealed_paper_s_link_opens_for_its_bidder_alone_until_bids_open(
    client, tender, bidder, clock
):
    rival = make_user("rival", "ТОВ «Конкурент»", "38012346", "bidder")
    buyer = User.objects.get(username="buyer")
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), bid_form())
    bid = Bid.objects.get()
    client.post(
        reverse("bid-documents", args=[tender.pk, bid.pk]),
        {"once": "d" * 32, "documents": [upload("ліцензія.pdf", LICENCE)]},
    )
    version = bid.documents.get()
    link = reverse(
        "part-document-download", args=[tender.pk, "bids", bid.pk, version.document_id, version.key]
    )
    api_address = reverse("api:bid-document", args=[tender.pk, bid.pk, version.document_id])

    assert link in client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert content_behind(client, link) == LICENCE
    for other in (rival, buyer, None):
        client.logout()
        if other:
            client.force_login(other)
        assert client.get(link).status_code == 404
        assert client.get(api_address, {"download": version.key}).status_code == 403

    clock.move_to(tender.tender_end + timedelta(minutes=1))

    assert content_behind(client, link) == LICENCE
    response = client.get(api_address, {"download": version.key})
    assert response.status_code == 302


def content_behind(client, link: str) -> bytes:
    """What a portal link gives: a redirect to a short-lived document-service address, and the
    bytes there."""
    response = client.get(link)
    assert response.status_code == 302, response.status_code
    served = client.get(response["Location"])
    assert served.status_code == 200, served.status_code
    return b"".join(served.streaming_content) if served.streaming else served.content
