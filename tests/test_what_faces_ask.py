"""What templates and views ask the models instead of comparing statuses themselves: each
answer, for the statuses it is asked in, reached through the transitions."""

import pytest
from django.utils import translation

from core.actors import Actor, Role
from tenders.models import Tender
from tests.factories import decided_award, make_complaint
from tests.helpers import tender_data

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("status", "last_step"),
    [
        ("draft", None),
        ("claim", None),
        ("answered", None),
        ("resolved", "closed_by_claimant"),
        ("invalid", "closed_by_time"),
        ("declined", "closed_by_time"),
        ("cancelled", "withdrawn"),
        ("ignored", "ignored"),
    ],
)
def test_a_claims_last_step(status, last_step, brokers, clock):
    world = decided_award(brokers, clock)
    complaint = make_complaint(world, status)

    assert complaint.status == status
    assert complaint.last_step == last_step
    assert complaint.is_draft is (status == "draft")


def test_a_claim_rated_but_open_is_rated(brokers, clock):
    world = decided_award(brokers, clock)
    complaint = make_complaint(world, "answered")
    complaint.rate_answer(by=world.claimant(complaint), satisfied=False)

    assert world.reload(complaint).last_step == "rated"


@pytest.mark.parametrize("decision", ["active", "unsuccessful"])
def test_a_decision_says_what_it_is_and_until_when_it_takes_claims(decision, brokers, clock):
    world = decided_award(brokers, clock, decision=decision)
    award = world.award

    assert award.won is (decision == "active")
    with translation.override("en"):
        label = str(award.decision_label)
    assert label == {"active": "winner", "unsuccessful": "disqualified"}[decision]
    assert award.takes_claims_until == award.complaint_period_end is not None


def test_a_decision_taken_back_takes_no_claims(brokers, clock):
    world = decided_award(brokers, clock)
    world.award.cancel(by=world.owner)
    world.refresh()
    award = world.tender.awards.get(pk=world.award.pk)

    with translation.override("en"):
        label = str(award.decision_label)
    assert (award.won, award.takes_claims_until, label) == (False, None, "decision cancelled")


def test_the_stages_of_a_tender(brokers, clock):
    by = Actor(Role.AUTHENTICATED, broker=brokers["broker"])
    draft, _ = Tender.objects.register(by=by, data=tender_data(clock.now(), status="draft"))
    tender, _ = Tender.objects.register(by=by, data=tender_data(clock.now()))
    owner = Actor(Role.TENDER_OWNER, broker=brokers["broker"], subject=tender)

    assert [state for _status, state in draft.stages()] == ["upcoming"] * 6
    assert [state for _status, state in tender.stages()] == ["current"] + ["upcoming"] * 5
    assert (tender.is_draft, draft.is_draft, tender.cancellation_in_effect) == (False, True, None)

    tender.cancel(by=owner, reason="Потреба відпала")
    tender = Tender.objects.current(tender.pk, viewer=None)

    assert [state for _status, state in tender.stages()] == ["skipped"] * 6
    assert tender.is_cancelled and tender.cancellation_in_effect.took_effect


def test_a_contract_signed(brokers, clock):
    world = decided_award(brokers, clock)
    contract = world.tender.contracts.get()
    assert not contract.is_signed
    clock.move_to(world.award.complaint_period_end)
    world.refresh()
    contract.tender, contract.award = world.tender, world.award

    contract.sign(by=world.owner)

    assert contract.is_signed
