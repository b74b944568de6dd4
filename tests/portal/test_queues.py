"""The dashboard's work queue: what each organization must do next, with its deadline and what
happens when it passes, soonest first; the header counts it; acting empties it."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from complaints.models import Complaint
from core.actors import Actor, Role
from portal import queues
from tenders.models import Tender
from tenders.workdays import shift
from tests.factories import RESOLUTION, portal_world
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_english(client):
    client.cookies["django_language"] = "en"


def dashboard(client) -> str:
    response = client.get(reverse("dashboard"))
    assert response.status_code == 200
    return response.text


def header_count(page: str) -> int:
    found = re.search(r'class="waiting-count">(\d+)<', page)
    return int(found.group(1)) if found else 0


def shown(moment) -> str:
    return timezone.localtime(moment).strftime("%d.%m.%Y %H:%M")


def kinds(organization, clock) -> list[str]:
    return [task.kind for task in queues.tasks_of(organization, clock.now())]


def test_the_buyers_queue_holds_the_award_then_the_contract_and_signing_empties_it(
    brokers, clock, as_user
):
    world = portal_world(brokers, clock, decision="")
    buyer = as_user(world.buyer)

    page = dashboard(buyer)
    assert "Decide on the bid of ПП «Чисто»" in page
    assert f"award-{world.award.pk}" in page
    assert header_count(page) == 1
    # The law's 5 working days to decide, a deadline ("by"), on the queue and the tender.
    due = shift(world.award.date, timedelta(days=5), working_days=True)
    assert f"by {shown(due)}</time>" in page and "the law gives 5 working days" in page
    tender_page = buyer.get(reverse("tender", args=[world.tender.pk])).text
    assert f"The procuring entity considers the bid by {shown(due)}" in tender_page

    world.award.activate(by=world.owner())
    world.refresh()
    page = dashboard(buyer)
    assert "Decide on the bid" not in page
    assert "Sign the contract with ПП «Чисто»" in page
    end = world.award.complaint_period_end
    assert f"from {shown(end)}</time>" in page  # (a date it may be done from, no deadline)
    assert "may be signed from then" in page
    tender_page = buyer.get(reverse("tender", args=[world.tender.pk])).text
    assert "The procuring entity considers the bid by" not in tender_page
    assert header_count(page) == 1

    clock.move_to(end + timedelta(minutes=1))
    world.refresh()
    assert "may be signed now" in dashboard(buyer)
    contract = world.tender.contracts.get()
    contract.tender = world.tender
    contract.sign(by=world.owner())
    page = dashboard(buyer)
    assert "Nothing waits for you now." in page
    assert header_count(page) == 0


def test_a_bidder_sees_the_claim_window_on_a_decision_in_a_tender_it_bid_in(
    brokers, clock, as_user
):
    world = portal_world(brokers, clock)
    page = dashboard(as_user(world.bidder))

    assert "A decision you may file a claim against: ПП «Чисто» chosen as the winner" in page
    assert "then no claim can be filed and the contract may be signed" in page
    assert header_count(page) == 1
    # Its bid's standing: another bid won.
    assert "not chosen" in page

    # A bidder of another tender has nothing to claim.
    assert kinds(world.stranger.organization, clock) == []
    # Once the window closes the task is gone.
    clock.move_to(world.award.complaint_period_end + timedelta(seconds=1))
    assert kinds(world.bidder.organization, clock) == []


def test_a_claim_waits_for_the_buyers_answer_then_for_the_claimants_decision(
    brokers, clock, as_user
):
    world = portal_world(brokers, clock)
    claim = world.claim()
    assert kinds(world.buyer.organization, clock) == ["claim", "contract"]
    page = dashboard(as_user(world.buyer))
    assert "Answer the claim" in page
    assert claim.complaint_id in page

    claim.answer(
        by=world.owner(),
        resolution=RESOLUTION,
        resolution_type="resolved",
    )
    assert kinds(world.buyer.organization, clock) == ["contract"]
    claim = Complaint.objects.get(pk=claim.pk)
    page = dashboard(as_user(world.bidder))
    assert "Accept or reject the answer to your claim" in page
    assert shown(claim.closes_at) in page
    # The answer's deadline and the claim window, soonest first.
    tasks = queues.tasks_of(world.bidder.organization, clock.now())
    assert [task.kind for task in tasks] == sorted(
        ["claim-window", "answer"], key=lambda kind: next(t.due for t in tasks if t.kind == kind)
    )
    assert header_count(page) == 2


def test_a_draft_waits_for_the_buyer_while_it_may_still_be_published(brokers, clock, world):
    buyer = Actor(Role.AUTHENTICATED, user=world.buyer)
    draft, _ = Tender.objects.register(
        by=buyer, data={**tender_data(clock.now()), "status": "draft"}
    )

    tasks = queues.tasks_of(world.buyer.organization, clock.now())
    drafts = [task for task in tasks if task.kind == "draft"]
    assert [task.reference for task in drafts] == [draft.tender_id]
    assert drafts[0].due == draft.enquiry_end
    # Soonest first; the award decided waits for signing with its own date.
    assert tasks == sorted(tasks, key=lambda task: (task.due is None, task.due))

    # Once its questions' period is over it can no longer be published: not a task any more.
    clock.move_to(draft.enquiry_end + timedelta(seconds=1))
    assert "draft" not in kinds(world.buyer.organization, clock)


def test_the_count_is_one_query_and_agrees_with_the_queue(brokers, clock, query_count):
    world = portal_world(brokers, clock)
    for user in (world.buyer, world.bidder, world.other_bidder, world.stranger):
        with query_count() as captured:
            count = queues.count_of(user.organization, clock.now())
        assert len(captured) == 1
        assert count == len(queues.tasks_of(user.organization, clock.now()))


def test_the_bidders_bids_say_where_they_stand(brokers, clock, as_user):
    world = portal_world(brokers, clock, decision="")
    page = dashboard(as_user(world.bidder))
    assert "My bids" in page
    assert "another bid is considered first" in page

    world.award.disqualify(by=world.owner())
    world.refresh()
    # The bidder's bid is next: it is now being considered.
    assert "being considered by the procuring entity" in dashboard(as_user(world.bidder))


def test_the_winner_is_not_offered_to_claim_against_its_competitor_s_disqualification(
    brokers, clock
):
    world = portal_world(brokers, clock, decision="unsuccessful")  # (the lowest, a broker's)
    tender = Tender.objects.current(world.tender.pk, viewer=None)
    runner_up = tender.awards.get(status="pending")
    runner_up.activate(by=world.owner())  # (the portal bidder's bid wins)
    now = clock.now()

    winner_tasks = queues.tasks_of(world.bidder.organization, now)
    loser_tasks = queues.tasks_of(world.other_bidder.organization, now)

    assert [t.kind for t in winner_tasks if t.kind == "claim-window"] == []
    assert len([t for t in loser_tasks if t.kind == "claim-window"]) == 2


def test_a_won_bid_whose_contract_is_signed_says_so(brokers, clock, as_user):
    world = portal_world(brokers, clock)
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    world.refresh()
    contract = world.tender.contracts.get()
    contract.sign(by=world.owner())

    bid = world.award.bid
    assert bid.standing(clock.now()) == "contracted"
    assert queues.STANDINGS["contracted"][0] == "the contract is signed"


def test_a_granted_claim_its_claimant_accepted_asks_the_buyer_to_take_the_decision_back(
    brokers, clock, as_user
):
    world = portal_world(brokers, clock)
    claim = world.claim()
    claim.answer(by=world.owner(), resolution=RESOLUTION, resolution_type="resolved")
    assert "award-remedy" not in kinds(world.buyer.organization, clock)  # (not yet accepted)
    claimant = Actor(Role.COMPLAINT_OWNER, user=world.bidder, subject=claim)
    Complaint.objects.get(pk=claim.pk).resolve(by=claimant, satisfied=True)
    buyer = as_user(world.buyer)

    page = dashboard(buyer)

    assert kinds(world.buyer.organization, clock) == ["contract", "award-remedy"]
    assert f"Take back the decision on ПП «Чисто»: you granted the claim {claim.complaint_id}" in (
        page
    )
    remedy = reverse("award-decision", args=[world.tender.pk, world.award.pk]) + "?action=cancel"
    assert remedy in page and header_count(page) == 2
    # Signing warns (once the complaint period is over and signing is offered).
    clock.move_to(world.award.complaint_period_end + timedelta(minutes=1))
    signing = buyer.get(reverse("contract-sign", args=[world.tender.pk, world.award.pk]))
    assert f"Careful: you granted the claim {claim.complaint_id} against this decision" in (
        signing.text
    )
    # Taken back, the task is done.
    world.refresh().award.decide(by=world.owner(), action="cancel")
    assert "award-remedy" not in kinds(world.buyer.organization, clock)
