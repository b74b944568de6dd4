"""How claims and the tender's lifecycle act on each other."""

from datetime import timedelta

import pytest
from django.core.management import call_command

from complaints.models import Complaint
from core.errors import NotAllowed
from tenders.models import AuditEvent, Tender
from tenders.schema import MAX_CLAIMS_OF_ONE
from tests.factories import RESOLUTION, decided_award, file_claim, make_complaint

pytestmark = pytest.mark.django_db


def test_a_claim_lets_the_owner_reopen_a_disqualification(brokers, clock):
    world = decided_award(brokers, clock, decision="unsuccessful")
    disqualified = world.award
    claim = file_claim(world, submit=True)
    claim.answer(by=world.owner, resolution=RESOLUTION, resolution_type="resolved")
    world.refresh()
    second = world.tender.awards.get(number=2)
    assert second.status == "pending"

    disqualified = world.tender.awards.get(number=1)
    disqualified.tender = world.tender
    disqualified.cancel(by=world.owner)

    tender = Tender.objects.current(world.tender.pk, viewer=None)
    assert tender.status == "active.qualification"
    assert [(a.number, a.status) for a in tender.awards.all()] == [
        (1, "cancelled"),
        (2, "cancelled"),
        (3, "pending"),
    ]
    assert tender.awards.get(number=3).bid_id == disqualified.bid_id
    # The later award falls with the one reconsidered, through its table, as the system.
    [fallen] = AuditEvent.objects.filter(subject_id=second.pk, to_status="cancelled")
    assert (fallen.action, fallen.from_status, fallen.actor_role) == (
        "fall_with_earlier", "pending", "system",
    )  # fmt: skip
    # As in 2.3, the open claims against the cancelled decisions go with them.
    voided = Complaint.objects.get(pk=claim.pk)
    assert (voided.status, voided.cancellation_reason) == ("cancelled", "cancelled")


def test_a_disqualification_without_claims_cannot_be_reopened(brokers, clock):
    world = decided_award(brokers, clock, decision="unsuccessful")
    with pytest.raises(NotAllowed) as raised:
        world.award.cancel(by=world.owner)
    assert raised.value.description == "Can't update award in current (unsuccessful) status"
    assert "cancel" not in world.award.available_actions(world.owner)


def test_failed_qualification_waits_for_submitted_claims(brokers, clock):
    world = decided_award(brokers, clock, decision="unsuccessful")
    claim = file_claim(world, submit=True)
    second = world.tender.awards.get(number=2)
    second.tender = world.tender
    second.disqualify(by=world.owner)
    world.refresh()
    assert world.tender.status == "active.awarded"
    last_period_end = max(a.complaint_period_end for a in world.tender.awards.all())
    clock.move_to(last_period_end + timedelta(days=10))
    assert Tender.objects.current(world.tender.pk, viewer=None).status == "active.awarded"
    assert Tender.objects.get(pk=world.tender.pk).next_check is None

    claim.answer(by=world.owner, resolution=RESOLUTION, resolution_type="declined")
    answered = Complaint.objects.get(pk=claim.pk)
    clock.advance(days=4)
    tender = Tender.objects.current(world.tender.pk, viewer=None)
    assert Complaint.objects.get(pk=claim.pk).status == "declined"
    assert tender.status == "unsuccessful"
    assert tender.date == answered.date_answered + timedelta(days=3)


def test_cancelled_tender_ignores_claims_but_answered_ones_still_close(brokers, clock):
    world = decided_award(brokers, clock)
    unanswered = file_claim(world, submit=True)
    answered = make_complaint(world, "answered", resolution_type="invalid")
    draft = file_claim(world)
    world.tender.add_cancellation(
        by=world.owner, data={"reason": "Потреба відпала", "status": "active"}
    )
    assert Complaint.objects.get(pk=unanswered.pk).status == "ignored"
    assert Complaint.objects.get(pk=draft.pk).status == "draft"
    assert Complaint.objects.get(pk=answered.pk).status == "answered"
    clock.advance(days=3, seconds=1)
    call_command("chronograph", "--once")
    assert Complaint.objects.get(pk=answered.pk).status == "invalid"


def test_sandbox_accelerates_the_three_days(brokers, clock, settings):
    settings.SANDBOX_MODE = True
    world = decided_award(brokers, clock, procurementMethodDetails="quick, accelerator=4320")
    claim = make_complaint(world, "answered")
    assert claim.closes_at == claim.date_answered + timedelta(minutes=1)
    clock.advance(minutes=1, seconds=1)
    Tender.objects.current(world.tender.pk, viewer=None)
    assert Complaint.objects.get(pk=claim.pk).status == "resolved"


def test_listing_claims_costs_the_same_for_one_and_for_as_many_as_a_broker_may_file(
    brokers, clock, anonymous, query_count
):
    def queries(world):
        path = f"/tenders/{world.tender.pk}/awards/{world.award.pk}/complaints"
        with query_count() as captured:
            response = anonymous.get(path)
        assert response.status_code == 200
        return len(response.json()["data"]), len(captured.captured_queries)

    one = decided_award(brokers, clock)
    file_claim(one, submit=True)
    many = decided_award(brokers, clock)
    for _ in range(MAX_CLAIMS_OF_ONE):
        file_claim(many, submit=True)
    count_one, queries_one = queries(one)
    count_many, queries_many = queries(many)
    assert (count_one, count_many) == (1, MAX_CLAIMS_OF_ONE)
    assert queries_one == queries_many

    with query_count() as captured:
        assert (
            len(
                anonymous.get(f"/tenders/{many.tender.pk}").json()["data"]["awards"][0][
                    "complaints"
                ]
            )
            == MAX_CLAIMS_OF_ONE
        )
    with query_count() as captured_one:
        anonymous.get(f"/tenders/{one.tender.pk}")
    assert len(captured.captured_queries) == len(captured_one.captured_queries)
