"""The step before an act that cannot be undone (core/reviews.py): the act's address
read is a page that says what will happen and who will see it, with the form that does it and
a way back; reading it changes nothing, going back changes nothing, a refusal returns to it."""

import html as html_module
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from complaints.models import Complaint
from core.actors import Actor, Role
from core.words import moment
from tenders.models import Tender
from tests.factories import RESOLUTION, portal_world
from tests.helpers import organization, tender_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


@pytest.fixture
def pending(brokers, clock):
    return portal_world(brokers, clock, decision=None)


def main_of(response) -> str:
    page = response.content.decode()
    return page[page.index("<main") : page.index("</main>")]


def text_of(html: str) -> str:
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def decision_url(world, action=None) -> str:
    url = reverse("award-decision", args=[world.tender.pk, world.award.pk])
    return f"{url}?action={action}" if action else url


def test_the_tender_page_offers_each_decision_as_a_link_to_its_review(pending, as_user):
    page = as_user(pending.buyer).get(reverse("tender", args=[pending.tender.pk]))

    html = page.content.decode()
    assert f'href="{decision_url(pending, "activate")}"' in html
    assert f'href="{decision_url(pending, "disqualify")}"' in html
    # The decisions are made on their reviews, never by a form on the tender page.
    assert f'action="{decision_url(pending)}"' not in html


def test_choosing_the_winner_says_what_follows_and_reading_it_changes_nothing(
    pending, as_user, clock
):
    response = as_user(pending.buyer).get(decision_url(pending, "activate"))

    pending.refresh()
    assert response.status_code == 200
    assert pending.award.status == "pending"  # read, not done
    said = text_of(main_of(response))
    assert "Choose ПП «Чисто» as the winner?" in said
    assert "The bid of ПП «Чисто», 400.00 UAH, becomes the winner" in said
    # The claim window it opens, as the decision would set it now.
    end = pending.award.claims_end_if_decided_at(clock.now())
    assert f"Claims against the decision may be filed until {moment(end)}" in said
    assert "Who will see it: Everyone" in said
    form = response.context["review"].form
    assert form.initial["action"] == "activate" and "reason" not in form.fields
    assert re.search(
        r'<button type="submit" class="primary">Choose as the winner</button>', main_of(response)
    )
    back = reverse("tender", args=[pending.tender.pk]) + f"#award-{pending.award.pk}"
    assert f'href="{back}">Back, without changing anything</a>' in main_of(response)


def test_the_review_of_a_disqualification_names_the_bid_considered_next(pending, as_user):
    said = text_of(main_of(as_user(pending.buyer).get(decision_url(pending, "disqualify"))))

    assert "Disqualify the bid of ПП «Чисто»?" in said
    assert "The next bid to consider is that of ТОВ «Медтехсервіс», 450.00 UAH." in said
    assert "Why the bid is disqualified" in said  # the reason is asked on the review


def test_when_no_bid_is_left_the_review_says_the_tender_fails(pending, as_user):
    buyer = as_user(pending.buyer)
    for once in ("a" * 32, "b" * 32):
        buyer.post(
            decision_url(pending),
            {"once": once, "action": "disqualify", "reason": "Немає ліцензії"},
        )
        pending.award = pending.tender.awards.get(status="pending")
        pending.refresh()

    said = text_of(main_of(buyer.get(decision_url(pending, "disqualify"))))

    assert (
        "No other bid is left: once claims against this decision are closed, the tender ends "
        "without a winner." in said
    )


def test_a_refused_decision_comes_back_to_its_review_with_the_reason_asked(pending, as_user):
    response = as_user(pending.buyer).post(
        decision_url(pending), {"once": "d" * 32, "action": "disqualify", "reason": " "}
    )

    pending.refresh()
    assert response.status_code == 422
    assert pending.award.status == "pending"
    assert "Say why the bid is disqualified." in main_of(response)
    assert "Disqualify the bid of ПП «Чисто»?" in main_of(response)


def test_a_review_read_by_one_who_may_not_act_says_why_and_offers_no_form(pending, as_user):
    response = as_user(pending.bidder).get(decision_url(pending, "activate"))

    assert response.status_code == 200
    assert "This can't be done now: You may not do this" in text_of(main_of(response))
    assert "<form" not in main_of(response)


def test_an_unknown_decision_has_no_review(pending, as_user):
    assert as_user(pending.buyer).get(decision_url(pending, "promote")).status_code == 404
    assert as_user(pending.buyer).get(decision_url(pending)).status_code == 404


def test_a_review_needs_a_signed_in_person(pending, client):
    response = client.get(decision_url(pending, "activate"))

    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_taking_a_decision_back_says_the_contract_goes_with_it(world, as_user):
    said = text_of(main_of(as_user(world.buyer).get(decision_url(world, "cancel"))))

    assert "Take back the decision on ПП «Чисто»?" in said
    assert "is no longer the winner, and the contract drawn up for it is cancelled" in said
    assert "Claims against it still open, answered or not, close with it." in said


def test_signing_is_reviewed_once_it_is_allowed(world, as_user, clock):
    buyer = as_user(world.buyer)
    url = reverse("contract-sign", args=[world.tender.pk, world.award.pk])
    early = text_of(main_of(buyer.get(url)))
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))

    review = buyer.get(url)

    end = moment(world.award.complaint_period_end)
    assert f"This can't be done now: Not yet: the contract may be signed from {end}" in early
    said = text_of(main_of(review))
    contract = world.tender.contracts.get()
    assert f"Sign contract {contract.contract_id} with ПП «Чисто»?" in said
    assert "is signed: it can't be unsigned" in said
    assert "The tender is complete" in said
    assert review.context["review"].form.fields["contract"]  # the signed file is asked here
    world.refresh()
    assert world.tender.contracts.get().status == "pending"


def test_there_is_no_signing_of_an_award_without_a_contract(pending, as_user):
    url = reverse("contract-sign", args=[pending.tender.pk, pending.award.pk])
    buyer = as_user(pending.buyer)

    assert buyer.get(url).status_code == 404
    assert buyer.post(url, {"once": "s" * 32}).status_code == 404


def test_a_withdrawn_draft_stays_its_authors_alone(world, as_user):
    bid = world.tender.bids.get(organization=world.bidder.organization)
    draft, _ = Complaint.objects.file(
        award=world.award,
        by=Actor(Role.BID_OWNER, user=world.bidder, subject=bid),
        title="Чернетка, яку не подали",
        author=organization(),
    )
    claimant = as_user(world.bidder)
    url = reverse("claim-cancel", args=[draft.pk])
    said = text_of(main_of(claimant.get(url)))

    claimant.post(url, {"once": "w" * 32, "reason": "Передумали"})

    draft.refresh_from_db()
    assert "The draft is withdrawn for good" in said and "Your organization alone" in said
    assert draft.status == "cancelled"
    assert claimant.get(reverse("claim", args=[draft.pk])).status_code == 200
    others = as_user(world.other_bidder)
    assert others.get(reverse("claim", args=[draft.pk])).status_code == 404
    tender_page = others.get(reverse("tender", args=[world.tender.pk])).content.decode()
    assert "Чернетка, яку не подали" not in tender_page


def test_publishing_and_cancelling_are_reviewed(buyer_with_draft, as_user):
    buyer, tender = buyer_with_draft
    client = as_user(buyer)

    publishing = text_of(main_of(client.get(reverse("tender-publish", args=[tender.pk]))))
    cancelling = text_of(main_of(client.get(reverse("tender-cancel", args=[tender.pk]))))

    tender.refresh_from_db()
    assert tender.status == "draft"
    assert f"Publish «{tender.title}»?" in publishing
    assert f"Questions are taken until {moment(tender.enquiry_end)}" in publishing
    assert "It can't become a draft again" in publishing
    assert "Cancel the tender?" in cancelling
    assert "it can't be reopened" in cancelling and "Why the tender is cancelled" in cancelling


@pytest.fixture
def buyer_with_draft(world, clock):
    tender, _ = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, user=world.buyer),
        data=tender_data(clock.now(), status="draft"),
    )
    return world.buyer, tender


@pytest.fixture
def answered(world):
    claim = world.claim()
    claim.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="declined")
    return claim


def verdict_url(claim, satisfied=None) -> str:
    url = reverse("claim-decision", args=[claim.pk])
    return f"{url}?satisfied={satisfied}" if satisfied else url


def test_the_claimants_verdict_is_reviewed_and_rejecting_says_where_to_go_next(
    world, answered, as_user
):
    claimant = as_user(world.bidder)
    page = claimant.get(reverse("claim", args=[answered.pk])).content.decode()

    accepting = text_of(main_of(claimant.get(verdict_url(answered, "true"))))
    rejecting = text_of(main_of(claimant.get(verdict_url(answered, "false"))))

    assert f'href="{verdict_url(answered, "true")}"' in page
    assert f'href="{verdict_url(answered, "false")}"' in page
    assert "Your claim closes as settled: «closed: the answer accepted»." in accepting
    assert "Your claim closes, marked «closed: the claimant disagreed»." in rejecting
    assert "Antimonopoly Committee of Ukraine (amcu.gov.ua)" in rejecting
    assert "Antimonopoly" not in accepting
    answered.refresh_from_db()
    assert answered.status == "answered"
    assert claimant.get(verdict_url(answered, "maybe")).status_code == 404


def test_the_verdict_sent_from_its_review_closes_the_claim(world, answered, as_user):
    response = as_user(world.bidder).post(
        verdict_url(answered), {"once": "v" * 32, "satisfied": "false"}
    )

    answered.refresh_from_db()
    assert response.status_code == 302
    assert answered.status == "resolved" and answered.satisfied is False


def test_withdrawing_a_claim_is_reviewed_and_asks_the_reason(world, answered, as_user):
    claimant = as_user(world.bidder)
    url = reverse("claim-cancel", args=[answered.pk])

    said = text_of(main_of(claimant.get(url)))
    without_reason = claimant.post(url, {"once": "w" * 32, "reason": ""})

    assert "Withdraw your claim?" in said and "Why you withdraw the claim" in said
    assert "the claim stays listed, marked as withdrawn" in said
    assert without_reason.status_code == 422 and "Withdraw your claim?" in main_of(without_reason)
    answered.refresh_from_db()
    assert answered.status == "answered"


def test_taking_back_a_disqualification_nobody_claimed_against_says_why_not(
    brokers, clock, as_user
):
    world = portal_world(brokers, clock, decision="unsuccessful")

    said = text_of(main_of(as_user(world.buyer).get(decision_url(world, "cancel"))))

    assert (
        "This can't be done now: A disqualification is taken back only to remedy a claim "
        "against it, and none stands." in said
    )
