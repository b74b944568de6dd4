"""A tender in lots on its page: the lots, a price per lot in the bid form, a choice per
feature, decisions and documents by what they belong to, types in words."""

from datetime import timedelta

import pytest
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from core.ids import new_id
from tenders.document_types import document_type_title
from tenders.models import Bid, Tender
from tests.factories import make_user, through_the_auction
from tests.helpers import FIRST, SECOND, item, lot, tender_data
from tests.portal.forms import bid_form, claim_form, signing_form, upload

pytestmark = pytest.mark.django_db

YEARS = {
    "code": "years",
    "featureOf": "tenderer",
    "title": "Років на ринку",
    "enum": [{"value": 0, "title": "До 3 років"}, {"value": 0.1, "title": "Понад 3 роки"}],
}


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def buyer(db):
    return make_user("buyer", "Лікарня", "01993913", "procuring")


@pytest.fixture
def bidder(db):
    return make_user("bidder", "ТОВ «Медтехсервіс»", "38012345", "bidder")


@pytest.fixture
def tender(buyer, clock):
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(
            clock.now(),
            lots=[lot(FIRST, 300, 15, title="Папір"), lot(SECOND, 200, 7, title="Конверти")],
            items=[item(FIRST, "Папір А4"), item(SECOND, "Конверти С4")],
            features=[YEARS],
        ),
    )
    return tender


def lot_bid_form(first=None, second=None):
    """A bid with a price for the first lot, the second, or both (fields named by lot id)."""
    form = bid_form(feature_0="0.1")
    del form["amount"]
    prices = {f"lot_{FIRST}": first, f"lot_{SECOND}": second}
    return {**form, **{name: price for name, price in prices.items() if price is not None}}


def test_the_page_shows_the_lots_and_the_bid_form_asks_a_price_for_each(
    client, tender, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    page = client.get(reverse("tender", args=[tender.pk]))

    body = page.content.decode()
    assert "Папір" in body and "Конверти" in body and "Lots" in body
    # Each lot's own step, and none for the tender (2.3's is only the smallest of them).
    lots = body[body.index('id="lots"') :]
    assert "15.00 UAH" in lots and "7.00 UAH" in lots
    about = body[body.index('id="about-title"') : body.index('id="lots"')]
    assert "Minimal step" not in about
    form = page.context["bid_form"]
    assert "amount" not in form.fields
    assert [form.fields[f"lot_{lot_id}"].label for lot_id in (FIRST, SECOND)] == [
        "Price for lot «Папір» (leave empty not to bid for it)",
        "Price for lot «Конверти» (leave empty not to bid for it)",
    ]
    assert form.fields["feature_0"].label == "Років на ринку"


def test_a_bidder_bids_for_the_lots_it_chooses_with_its_feature_values(
    client, tender, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    response = client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(second="180"))

    assert response.status_code == 302
    bid = Bid.objects.get()
    assert bid.value is None
    assert [(o["relatedLot"], o["value"]["amount"]) for o in bid.lot_values] == [(SECOND, 180)]
    assert bid.parameters == [{"code": "years", "value": 0.1}]
    page = client.get(reverse("tender", args=[tender.pk]))
    [mine] = page.context["my_bids"]
    assert mine["offers"] == [
        {"lot": "Конверти", "lot_id": SECOND, "value": bid.lot_values[0]["value"]}
    ]


def test_a_bid_for_no_lot_is_refused_next_to_the_form(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)

    response = client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form())

    assert response.status_code == 422
    assert "Offer a price for at least one lot." in response.content.decode()
    assert not Bid.objects.exists()


def test_decisions_are_shown_by_lot_and_a_cancelled_lot_with_its_reason(
    client, tender, buyer, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250", second="180"))
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    current = Tender.objects.current(tender.pk, viewer=None)
    owner = Actor(Role.TENDER_OWNER, user=buyer, subject=current)
    current.add_cancellation(
        by=owner,
        data={"reason": "Конверти не потрібні", "cancellationOf": "lot", "relatedLot": SECOND,
              "status": "active"},
    )  # fmt: skip

    page = client.get(reverse("tender", args=[tender.pk]))

    body = page.content.decode()
    lots = [award["lot"]["title"] for award in page.context["awards"]]
    assert lots == ["Папір", "Конверти"]
    assert "Папір: ТОВ «Медтехсервіс»" in body
    # The cancelled lot's award is shown, but no decision on it is offered.
    client.force_login(buyer)
    owner_page = client.get(reverse("tender", args=[tender.pk]))
    offered = [bool(entry["decisions"]) for entry in owner_page.context["awards"]]
    assert offered == [True, False]
    [entry] = page.context["cancellations"]
    assert entry["lot"]["title"] == "Конверти"
    assert "Конверти не потрібні" in body
    statuses = {entry["lot"]["id"]: entry["status"] for entry in page.context["lots"]}
    assert statuses == {FIRST: "active", SECOND: "cancelled"}


def test_bid_documents_are_the_bidder_s_until_bids_open_then_everyone_s(
    client, tender, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))
    bid = Bid.objects.select_related("tender").get()
    version = bid.add_document(
        by=Actor(Role.BID_OWNER, user=bidder, subject=bid),
        key="f" * 32,
        md5="0" * 32,
        title="ліцензія.pdf",
        format="application/pdf",
        metadata={"documentType": "qualificationDocuments"},
    )
    url = reverse(
        "part-document-download",
        args=[tender.pk, "bids", bid.pk, version.document_id, version.key],
    )
    page = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert url in page and document_type_title("qualificationDocuments", "bid") in page
    assert client.get(url).status_code == 302
    client.logout()
    assert client.get(url).status_code == 404  # sealed with the bid
    assert url not in client.get(reverse("tender", args=[tender.pk])).content.decode()

    clock.move_to(tender.tender_end + timedelta(minutes=1))

    assert url in client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert client.get(url).status_code == 302
    other = reverse("part-document-download", args=[tender.pk, "bids", bid.pk, "x", "y"])
    assert client.get(other).status_code == 404


def test_a_document_s_type_is_shown_in_the_reader_s_words(client, tender, buyer):
    owner = Actor(Role.TENDER_OWNER, user=buyer, subject=tender)
    tender.add_document(
        by=owner,
        key="e" * 32,
        md5="1" * 32,
        title="оголошення.pdf",
        format="application/pdf",
        metadata={"documentType": "notice", "documentOf": "lot", "relatedItem": SECOND},
    )
    client.force_login(buyer)
    english = client.get(reverse("tender", args=[tender.pk])).content.decode()
    client.cookies["django_language"] = "uk"
    ukrainian = client.get(reverse("tender", args=[tender.pk])).content.decode()
    assert "Announcement of procurement" in english and "for lot «Конверти»" in english
    assert "Оголошення про проведення закупівлі" in ukrainian


def test_the_bidder_attaches_papers_to_its_bid_sealed_with_it(client, tender, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))
    bid = Bid.objects.get()
    url = reverse("bid-documents", args=[tender.pk, bid.pk])
    assert url in client.get(reverse("tender", args=[tender.pk])).content.decode()

    response = client.post(url, {"once": "d" * 32, "documents": [upload("ліцензія.pdf")]})

    assert response.status_code == 302
    assert [d.title for d in bid.documents.all()] == ["ліцензія.pdf"]
    assert "ліцензія.pdf" in client.get(reverse("tender", args=[tender.pk])).content.decode()
    client.logout()
    assert "ліцензія.pdf" not in client.get(reverse("tender", args=[tender.pk])).content.decode()


def test_nobody_else_attaches_papers_to_a_bid(client, tender, bidder, buyer, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))
    bid = Bid.objects.get()
    client.force_login(buyer)

    response = client.post(
        reverse("bid-documents", args=[tender.pk, bid.pk]),
        {"once": "e" * 32, "documents": [upload("підробка.pdf")]},
    )

    assert response.status_code == 422 and "You may not do this" in response.content.decode()
    assert not bid.documents.exists()
    unknown = reverse("bid-documents", args=[tender.pk, "0" * 32])
    assert client.post(unknown, {"once": "f" * 32}).status_code == 404


def test_the_buyer_cancels_one_lot_with_its_protocol(client, tender, buyer, clock):
    client.force_login(buyer)
    review = client.get(reverse("tender-cancel", args=[tender.pk]))
    what = review.context["review"].form.fields["what"]
    assert [label for _value, label in what.choices] == [
        "The whole tender",
        "Lot «Папір»",
        "Lot «Конверти»",
    ]

    response = client.post(
        reverse("tender-cancel", args=[tender.pk]),
        {"once": "x" * 32, "what": SECOND, "ground": "noDemand", "reason": "Конверти не потрібні",
         "protocol": upload("рішення.pdf")},
    )  # fmt: skip

    assert response.status_code == 302
    current = Tender.objects.get(pk=tender.pk)
    assert {lot["id"]: lot["status"] for lot in current.lots} == {
        FIRST: "active",
        SECOND: "cancelled",
    }
    assert current.status == "active.enquiries"
    [cancellation] = current.cancellations.all()
    assert cancellation.related_lot == SECOND
    assert [d.title for d in cancellation.documents.all()] == ["рішення.pdf"]
    assert cancellation.documents.get().metadata == {}  # (2.3 has no type for it)


def test_two_lots_in_the_portal_from_bids_to_two_contracts_with_a_claim(
    client, tender, buyer, bidder, clock
):
    other = make_user("bidder2", "ФОП Коваленко", "2894512345", "bidder")
    clock.move_to(tender.tender_start + timedelta(hours=1))
    for user, prices in ((bidder, {"first": "250", "second": "180"}), (other, {"first": "240"})):
        client.force_login(user)
        form = {**lot_bid_form(**prices), "once": new_id()}
        placed = client.post(reverse("bid-place", args=[tender.pk]), form)
        assert placed.status_code == 302
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    client.force_login(buyer)
    page = client.get(reverse("tender", args=[tender.pk]))
    # The first lot has two bids: its auction comes first; the second's one bid waits for it.
    [current] = [stage for stage in page.context["stages"] if stage["state"] == "current"]
    assert current["status"] == "active.auction" and page.context["awards"] == []
    [auction] = page.context["auctions"]
    assert auction["lot"]["id"] == FIRST and auction["ended"] is None
    through_the_auction(tender.pk, clock)
    page = client.get(reverse("tender", args=[tender.pk]))
    first, second = (entry["award"] for entry in page.context["awards"])
    assert (first.lot_id, first.value["amount"], second.lot_id) == (FIRST, 240, SECOND)

    def decide(award, action, **extra):
        url = reverse("award-decision", args=[tender.pk, award.pk])
        return client.post(url, {"once": new_id(), "action": action, **extra})

    assert decide(first, "disqualify", reason="Немає ліцензії").status_code == 302
    client.force_login(other)
    filed = client.post(
        reverse("claim-new", args=[tender.pk, first.pk]),
        {**claim_form(once=new_id()), "submit": "1"},
    )
    assert filed.status_code == 302, filed.context["form"].errors
    claim = Complaint.objects.get()
    assert claim.related_lot == FIRST
    client.force_login(buyer)
    page = client.get(reverse("tender", args=[tender.pk]))
    follower = next(e["award"] for e in page.context["awards"] if e["award"].status == "pending"
                    and e["award"].lot_id == FIRST)  # fmt: skip
    assert follower.value["amount"] == 250
    assert decide(follower, "activate").status_code == 302
    assert decide(second, "activate").status_code == 302
    claim.refresh_from_db()
    clock.move_to(max(a.complaint_period_end for a in Tender.objects.get(pk=tender.pk).awards.all()
                      if a.complaint_period_end) + timedelta(minutes=1))  # fmt: skip
    for award in (follower, second):
        signed = client.post(
            reverse("contract-sign", args=[tender.pk, award.pk]), signing_form(new_id())
        )
        assert signed.status_code == 302, signed.content.decode()[:2000]
    current = Tender.objects.current(tender.pk, viewer=None)
    assert current.status == "complete"
    assert {lot["status"] for lot in current.lots} == {"complete"}
    assert [c.status for c in current.contracts.all()] == ["active", "active"]
    claim.refresh_from_db()
    assert claim.status == "ignored"  # nobody answered it before its lot ended


def test_a_lot_nobody_bid_for_shows_as_unsuccessful_and_the_other_goes_on(
    client, tender, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))
    clock.move_to(tender.tender_end + timedelta(minutes=1))

    page = client.get(reverse("tender", args=[tender.pk]))

    statuses = {entry["lot"]["id"]: entry["status"] for entry in page.context["lots"]}
    assert statuses == {FIRST: "active", SECOND: "unsuccessful"}
    assert [entry["lot"]["id"] for entry in page.context["awards"]] == [FIRST]
    assert "lot-unsuccessful" in page.content.decode()


def cancel_lot(tender, buyer, lot_id):
    current = Tender.objects.current(tender.pk, viewer=None)
    current.add_cancellation(
        by=Actor(Role.TENDER_OWNER, user=buyer, subject=current),
        data={"reason": "скасовано", "relatedLot": lot_id, "status": "active"},
    )


def test_a_page_read_before_a_lot_was_cancelled_bids_on_the_lot_it_meant(
    client, tender, buyer, bidder, clock
):
    """Found in review: lots were named by their place among the open ones, so a lot
    cancelled meanwhile moved the price to the next lot."""
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.get(reverse("tender", args=[tender.pk]))
    cancel_lot(tender, buyer, FIRST)

    stale = client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))

    assert stale.status_code == 422
    assert "Lot «Папір» is no longer open for bids" in stale.content.decode()
    assert not Bid.objects.exists()
    meant = client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(second="180"))
    assert meant.status_code == 302
    assert [o["relatedLot"] for o in Bid.objects.get().lot_values] == [SECOND]


def test_a_cancel_form_read_before_another_lot_was_cancelled_cancels_the_lot_it_meant(
    client, tender, buyer
):
    client.force_login(buyer)
    cancel_lot(tender, buyer, FIRST)

    gone = client.post(
        reverse("tender-cancel", args=[tender.pk]),
        {"once": new_id(), "what": FIRST, "ground": "noDemand", "reason": "ще раз"},
    )
    meant = client.post(
        reverse("tender-cancel", args=[tender.pk]),
        {"once": new_id(), "what": SECOND, "ground": "noDemand", "reason": "і цей"},
    )

    assert gone.status_code == 422
    assert "That lot is no longer open" in gone.content.decode()
    assert meant.status_code == 302
    assert {lot["status"] for lot in Tender.objects.get(pk=tender.pk).lots} == {"cancelled"}


def test_a_lot_s_feature_is_asked_only_of_a_bid_for_that_lot(client, buyer, bidder, clock):
    lot_feature = {
        "code": "delivery",
        "featureOf": "lot",
        "relatedItem": SECOND,
        "title": "Доставка",
        "enum": [{"value": 0, "title": "Самовивіз"}, {"value": 0.1, "title": "Доставка"}],
    }
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=buyer),
        data=tender_data(
            clock.now(),
            lots=[lot(FIRST, 300, 15, title="Папір"), lot(SECOND, 200, 7, title="Конверти")],
            items=[item(FIRST, "Папір А4"), item(SECOND, "Конверти С4")],
            features=[YEARS, lot_feature],
        ),
    )
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    page = client.get(reverse("tender", args=[tender.pk]))
    assert page.context["bid_form"].fields["feature_1"].label == "Доставка (lot «Конверти»)"

    first_only = client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250"))

    assert first_only.status_code == 302
    assert Bid.objects.get().parameters == [{"code": "years", "value": 0.1}]
    client.force_login(make_user("bidder2", "ФОП Коваленко", "2894512345", "bidder"))
    unanswered = client.post(
        reverse("bid-place", args=[tender.pk]), {**lot_bid_form(second="180"), "once": new_id()}
    )
    assert unanswered.status_code == 422
    assert "Choose one for the lots you bid for." in unanswered.content.decode()


def test_a_lot_bid_is_repriced_lot_by_lot_and_a_far_lower_price_is_asked_about(
    client, tender, bidder, clock
):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(first="250", second="180"))
    bid = Bid.objects.get()
    url = reverse("bid-price", args=[tender.pk, bid.pk])
    prices = {f"lot_{FIRST}": "240", f"lot_{SECOND}": "50"}

    asked = client.post(url, {"once": "p" * 32, **prices})
    changed = client.post(url, {"once": "q" * 32, **prices, "price_is_right": "on"})

    # 50 is under 30% of the second lot's 200 UAH (not of the tender's whole value).
    assert asked.status_code == 422
    assert "less than 30% of the expected value, 200.00 UAH" in asked.content.decode()
    assert changed.status_code == 302
    bid.refresh_from_db()
    assert [(o["relatedLot"], o["value"]["amount"]) for o in bid.lot_values] == [
        (FIRST, 240.0),
        (SECOND, 50.0),
    ]


def test_a_decision_on_a_lot_is_reviewed_with_its_lot(client, tender, buyer, bidder, clock):
    clock.move_to(tender.tender_start + timedelta(hours=1))
    client.force_login(bidder)
    client.post(reverse("bid-place", args=[tender.pk]), lot_bid_form(second="180"))
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    award = Tender.objects.current(tender.pk, viewer=None).awards.get(lot_id=SECOND)
    client.force_login(buyer)
    client.cookies["django_language"] = "en"

    url = reverse("award-decision", args=[tender.pk, award.pk])
    review = client.get(url, {"action": "disqualify"}).content.decode()

    assert f"«{tender.title}» ({tender.tender_id}), lot «Конверти»" in review
    assert "the lot ends without a winner" in review
