"""The chronograph's pass: many due tenders in one transaction, each brought to what a read of
it alone would have made of it."""

from datetime import timedelta

import pytest

from complaints.models import Complaint
from core.actors import Actor, Role
from tenders.models import AuditEvent, Tender
from tenders.models.tender_queries import RETRY_AFTER
from tests.factories import decided_award, make_complaint, tendering_closed
from tests.helpers import bid_data, tender_data

pytestmark = pytest.mark.django_db


def registered(brokers, clock):
    tender, _token = Tender.objects.register(
        by=Actor(Role.AUTHENTICATED, broker=brokers["broker"]), data=tender_data(clock.now())
    )
    return tender


def test_one_pass_brings_every_kind_of_due_tender_up_to_date(brokers, clock):
    # An answered claim whose three days run out; a tender whose tendering closes with a bid;
    # a tender whose enquiries end.
    world = decided_award(brokers, clock)
    claim = make_complaint(world, "answered", resolution_type="declined")
    closing = registered(brokers, clock)
    clock.move_to(closing.tender_start + timedelta(hours=1))
    closing.place_bid(by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]), data=bid_data(300))
    starting = registered(brokers, clock)
    clock.move_to(max(closing.tender_end, starting.tender_start) + timedelta(minutes=1))
    assert claim.closes_at < clock.now()
    before = {t.pk: Tender.objects.get(pk=t.pk) for t in (world.tender, closing, starting)}

    assert Tender.objects.catch_up_due(limit=10) == 3

    assert Complaint.objects.get(pk=claim.pk).status == "declined"
    closed = Tender.objects.get(pk=closing.pk)
    assert closed.status == "active.qualification"
    assert [award.status for award in closed.awards.all()] == ["pending"]
    assert Tender.objects.get(pk=starting.pk).status == "active.tendering"
    for pk, old in before.items():
        new = Tender.objects.get(pk=pk)
        assert new.date_modified > old.date_modified and new.public_text == ""
        # next_check as the tender itself computes it, from its rows as they now are.
        new._claims = None
        assert new.next_check == new.next_check_due()
    # Each change recorded at the moment it became due, as a read would have recorded it.
    expired = AuditEvent.objects.get(subject_id=claim.pk, action="expire")
    assert expired.at == claim.closes_at and expired.to_status == "declined"
    assert AuditEvent.objects.get(subject_id=starting.pk, action="start_tendering").at == (
        starting.tender_start
    )
    assert AuditEvent.objects.get(subject_id=closing.pk, action="close_tendering").at == (
        closing.tender_end
    )
    assert Tender.objects.catch_up_due(limit=10) == 0


def test_a_pass_costs_the_same_statements_for_two_tenders_and_for_eight(
    brokers, clock, query_count
):
    def statements_of_a_pass(tenders: int) -> int:
        claims = []
        for _ in range(tenders):
            world = decided_award(brokers, clock)
            claims.append(make_complaint(world, "answered", resolution_type="invalid"))
        clock.move_to(max(claim.closes_at for claim in claims) + timedelta(minutes=1))
        with query_count() as captured:
            assert Tender.objects.catch_up_due(limit=100) == tenders
        assert {Complaint.objects.get(pk=c.pk).status for c in claims} == {"invalid"}
        return len(captured.captured_queries)

    assert statements_of_a_pass(2) == statements_of_a_pass(8)


def test_a_tender_nothing_was_due_for_is_looked_at_again_only_when_something_is(brokers, clock):
    tender, _token, _bidders, _tokens = tendering_closed(
        Actor(Role.AUTHENTICATED, broker=brokers["broker"]), brokers, clock
    )
    Tender.objects.filter(pk=tender.pk).update(next_check=clock.now() - timedelta(days=1))
    assert Tender.objects.catch_up_due(limit=10) == 0
    assert Tender.objects.get(pk=tender.pk).next_check is None  # a pending award: no deadline


def test_a_tender_that_cannot_be_brought_up_to_date_holds_up_no_other(
    brokers, clock, monkeypatch, caplog
):
    broken, fine = registered(brokers, clock), registered(brokers, clock)
    clock.move_to(max(broken.tender_start, fine.tender_start) + timedelta(minutes=1))
    advance = Tender.apply_changes_due

    def failing(tender, now):
        if tender.pk == broken.pk:
            raise RuntimeError("a rule that cannot be applied")
        return advance(tender, now)

    monkeypatch.setattr(Tender, "apply_changes_due", failing)

    assert Tender.objects.catch_up_due(limit=10) == 1

    assert Tender.objects.get(pk=fine.pk).status == "active.tendering"
    left = Tender.objects.get(pk=broken.pk)
    assert left.status == "active.enquiries"
    assert left.next_check == clock.now() + RETRY_AFTER
    assert f"tender {broken.pk} could not be brought up to date" in caplog.text
    assert Tender.objects.catch_up_due(limit=10) == 0  # not tried again before its time


def test_a_pass_goes_on_while_tenders_are_due_though_a_batch_changed_fewer(
    brokers, clock, monkeypatch, capsys
):
    from django.core.management import call_command

    stuck, *others = [registered(brokers, clock) for _ in range(3)]
    clock.move_to(max(t.tender_start for t in (stuck, *others)) + timedelta(minutes=1))
    advance = Tender.apply_changes_due
    # Its due change waits on something else: only its next check is looked at again.
    monkeypatch.setattr(
        Tender, "apply_changes_due", lambda t, now: t.pk != stuck.pk and advance(t, now)
    )
    Tender.objects.filter(pk=stuck.pk).update(next_check=stuck.tender_start - timedelta(hours=1))

    call_command("chronograph", "--once", "--batch", "2")

    assert "2 tender(s)" in capsys.readouterr().out
    assert {Tender.objects.get(pk=t.pk).status for t in others} == {"active.tendering"}


def test_the_chronograph_plans_holds_and_ends_auctions_nobody_reads(brokers, clock):
    tender = registered(brokers, clock)
    clock.move_to(tender.tender_start + timedelta(hours=1))
    assert Tender.objects.catch_up_due(limit=10) == 1  # tendering starts: the auction planned
    [auction] = Tender.objects.get(pk=tender.pk).auctions.all()
    assert auction.start is not None and auction.bidders == 0
    for number, amount in enumerate((300, 280)):
        tender.place_bid(
            by=Actor(Role.AUTHENTICATED, broker=brokers["broker2"]),
            data=bid_data(amount, identifier=f"{number + 1:08d}"),
        )
    clock.move_to(tender.tender_end + timedelta(minutes=1))
    assert Tender.objects.catch_up_due(limit=10) == 1
    in_auction = Tender.objects.get(pk=tender.pk)
    auction.refresh_from_db()
    assert in_auction.status == "active.auction" and auction.bidders == 2
    assert in_auction.next_check == auction.start + auction.length(in_auction)

    clock.move_to(in_auction.next_check)
    assert Tender.objects.catch_up_due(limit=10) == 1
    decided = Tender.objects.get(pk=tender.pk)
    auction.refresh_from_db()
    assert decided.status == "active.qualification" and auction.ended == in_auction.next_check
    assert [award.value["amount"] for award in decided.awards.all()] == [280]
    assert decided.award_period_start == auction.ended
    for action in ("auction_ended", "auctions_over"):
        events = AuditEvent.objects.filter(subject_id=tender.pk, action=action)
        assert [event.at for event in events] == [auction.ended], action
