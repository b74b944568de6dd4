"""Chronographs beside each other and beside the API's writes, on PostgreSQL: a tender being
changed is skipped and caught up later, and every due change is made exactly once."""

import threading
from datetime import timedelta

import pytest
from django.db import connections, transaction

from complaints.models import Complaint
from tenders.models import AuditEvent, Tender
from tests.concurrency.conftest import run_together
from tests.factories import decided_award, make_complaint
from tests.helpers import Clock, create_tender, parse_iso

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_tender_locked_by_a_write_is_skipped_and_caught_up_by_the_next_pass(
    fresh_api, time_machine
):
    clock = Clock(time_machine)
    tenders = [create_tender(fresh_api()) for _ in range(3)]
    clock.move_to(parse_iso(tenders[0].read()["tenderPeriod"]["startDate"]) + timedelta(hours=1))
    locked, release, done = threading.Event(), threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                Tender.objects.select_for_update().get(pk=tenders[0].id)
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()
            done.set()

    threading.Thread(target=hold).start()
    assert locked.wait(10)
    try:
        assert Tender.objects.catch_up_due(limit=10) == 2  # without waiting for the lock
        assert Tender.objects.get(pk=tenders[0].id).status == "active.enquiries"
    finally:
        release.set()
        done.wait(10)
    assert Tender.objects.catch_up_due(limit=10) == 1
    assert {Tender.objects.get(pk=t.id).status for t in tenders} == {"active.tendering"}


def test_chronographs_and_readers_together_expire_each_claim_once(brokers, time_machine):
    clock = Clock(time_machine)
    claims = []
    for _ in range(6):
        world = decided_award(brokers, clock)
        claims.append(make_complaint(world, "answered", resolution_type="invalid"))
    clock.move_to(max(claim.closes_at for claim in claims) + timedelta(minutes=1))

    def chronograph():
        return Tender.objects.catch_up_due(limit=2)

    def reader(tender_id):
        return Tender.objects.current(tender_id, viewer=None).status

    passes = [chronograph] * 4
    reads = [lambda pk=claim.tender_id: reader(pk) for claim in claims[::2]]
    run_together(*passes, *reads)
    while Tender.objects.catch_up_due(limit=2):
        pass
    assert {Complaint.objects.get(pk=claim.pk).status for claim in claims} == {"invalid"}
    for claim in claims:
        assert AuditEvent.objects.filter(subject_id=claim.pk, action="expire").count() == 1
    assert not Tender.objects.filter(next_check__lte=clock.now()).exists()
